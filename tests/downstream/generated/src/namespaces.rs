//! Kernels in C++ namespaces (`kernels/cuda/namespaces.cu`, built for sm_90a) through their
//! generated declarations: `ns::scale<128>`, `ns::inner::fill<__half>`, `other::plain` beside
//! `ns::plain`, `ns::spread` taking a struct of a nested namespace, and `ns::cluster_rank<64>`, compiled with `__cluster_dims__(2, 1, 1)`, whose
//! launches are checked against that cluster shape.

use cuda_kernel::cudarc::driver::CudaContext;
use cuda_kernel::half::f16;
use cuda_kernel::{Config, Error, Kernel};
use std::sync::Arc;

pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/namespaces.rs"));
}

use generated::{ClusterRank, Fill, Interval, Kernels, OtherPlain, Scale};

/// Launches each kernel and checks its results; on a GPU other than compute capability 9.0
/// (sm_90a code runs on no other), says so and returns.
pub fn run(ctx: &Arc<CudaContext>) -> Result<(), Error> {
    let major = ctx.attribute(
        cuda_kernel::cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    )?;
    if major != 9 {
        println!("namespaces: sm_90a code, and this GPU is of compute capability {major}.x: skipped");
        return Ok(());
    }
    let stream = ctx.default_stream();
    let kernels = Kernels::load(ctx)?;
    // ns::scale<128>
    let scale = Scale::<128>::load(&kernels.module)?;
    let mut x = stream.clone_htod(&vec![2.0f32; 1000])?;
    // SAFETY: ns::scale<128> touches x[i] for i < 1000, of a 1000-float buffer.
    unsafe { scale.launch(&stream, Config::for_elements(1000, 128), &mut x, 3.0, 1000)? };
    assert!(stream.clone_dtoh(&x)?.iter().all(|&v| v == 6.0));
    // ns::plain, then other::plain over the same 32 floats.
    let one_block = Config::new((1, 1, 1), (32, 1, 1));
    let mut y = stream.alloc_zeros::<f32>(32)?;
    // SAFETY: both write y[threadIdx.x] for 32 threads, of 32 floats.
    unsafe { kernels.plain.launch(&stream, one_block, &mut y)? };
    assert!(stream.clone_dtoh(&y)?.iter().all(|&v| v == 1.0));
    let other = OtherPlain::load(&kernels.module)?;
    unsafe { other.launch(&stream, one_block, &mut y)? };
    assert!(stream.clone_dtoh(&y)?.iter().all(|&v| v == 2.0));
    // ns::spread: `ns::shapes::Interval`, generated with its CUDA name, by value and through
    // a pointer.
    let iv = Interval {
        lo: -1.0,
        hi: 1.0,
        n: 64,
    };
    let offset = stream.clone_htod(&[Interval {
        lo: 0.25,
        hi: 0.0,
        n: 0,
    }])?;
    let mut out = stream.alloc_zeros::<f32>(64)?;
    // SAFETY: ns::spread reads *offset and writes out[i] for i < 64, of 64 floats.
    unsafe {
        kernels
            .spread
            .launch(&stream, Config::for_elements(64, 32), iv, &offset, &mut out)?
    };
    let expected: Vec<f32> = (0..64).map(|i| -1.0 + 2.0 * i as f32 / 64.0 + 0.25).collect();
    assert_eq!(stream.clone_dtoh(&out)?, expected);
    // ns::inner::fill<__half>
    let fill = Fill::<f16>::load(&kernels.module)?;
    let mut h = stream.alloc_zeros::<f16>(500)?;
    let v = f16::from_f32(-1.5);
    // SAFETY: fill touches h[i] for i < 500, of 500 halves.
    unsafe { fill.launch(&stream, Config::for_elements(500, 256), &mut h, v, 500)? };
    assert!(stream.clone_dtoh(&h)?.iter().all(|&e| e == v));
    // ns::cluster_rank<64>: each block writes its rank in its cluster of 2.
    let rank = ClusterRank::<64>::load(&kernels.module)?;
    assert_eq!(rank.compiled_cluster(), Some((2, 1, 1)));
    let mut ranks = stream.alloc_zeros::<u32>(256)?;
    // SAFETY: cluster_rank touches ranks[i] for i < 256, of 256 u32 (4 blocks of 64).
    unsafe { rank.launch(&stream, Config::new((4, 1, 1), (64, 1, 1)), &mut ranks, 256)? };
    let host = stream.clone_dtoh(&ranks)?;
    let expected: Vec<u32> = (0..256).map(|i| (i / 64) % 2).collect();
    assert_eq!(host, expected);
    // A grid that is not a multiple of the compiled cluster, and another cluster shape in the
    // configuration: refused before the driver, naming the kernel and the shapes.
    for config in [
        Config::new((3, 1, 1), (64, 1, 1)),
        Config::new((4, 1, 1), (64, 1, 1)).cluster((4, 1, 1)),
    ] {
        // SAFETY: refused before the launch.
        let err = unsafe { rank.launch(&stream, config, &mut ranks, 256) }.unwrap_err();
        let Error::Launch(launch) = &err else {
            panic!("{err}")
        };
        assert!(
            matches!(launch.error(), Error::CompiledCluster { compiled: (2, 1, 1), .. }),
            "{err}"
        );
        assert!(err.to_string().contains("ns::cluster_rank<64>"), "{err}");
        println!("namespaces: refused: {err}");
    }
    // The compiled shape asked again in the configuration: the driver takes it (H100, driver
    // 580), and so does the check.
    let same = Config::new((4, 1, 1), (64, 1, 1)).cluster((2, 1, 1));
    // SAFETY: as above.
    unsafe { rank.launch(&stream, same, &mut ranks, 256)? };
    assert_eq!(stream.clone_dtoh(&ranks)?, expected);
    println!("namespaces: 7 kernels launched through their generated declarations, ok");
    Ok(())
}
