//! Typed launches on a real GPU. Ignored without one: run with
//! `cargo test --release --test gpu -- --ignored` on a CUDA machine (scripts/device-bundle.sh).

use std::sync::Arc;

use cuda_kernel::cudarc::driver::{CudaContext, CudaModule, CudaStream, LaunchConfig};
use cuda_kernel::half::{bf16, f16};
use cuda_kernel::{Double2, Error, Float2, Float4, Int2, Int4, Uint4, kernel};
use kernels::*;

fn setup(ptx: &str) -> (Arc<CudaContext>, Arc<CudaStream>, Arc<CudaModule>) {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let module = cuda_kernel::driver::load_ptx(&ctx, ptx).expect("PTX loads");
    (ctx, stream, module)
}

fn one_thread() -> LaunchConfig {
    LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn vector_add_adds_every_element() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let n = 1_000_003usize; // not a multiple of the block size
    let a_host: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b_host: Vec<f32> = (0..n).map(|i| 0.25 - (i % 97) as f32).collect();
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&b_host).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n).unwrap();
    unsafe {
        kernel
            .launch(
                &stream,
                LaunchConfig::for_num_elems(n as u32),
                &a,
                &b,
                &mut c,
                n as u32,
            )
            .unwrap()
    };
    let c_host = stream.clone_dtoh(&c).unwrap();
    for i in 0..n {
        assert_eq!(c_host[i], a_host[i] + b_host[i], "element {i}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn vector_add_f4_adds_float4_elements_and_views_work() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAddF4::load(&module).unwrap();
    let n4 = 4099usize;
    let a_host: Vec<Float4> = (0..n4)
        .map(|i| Float4::new(i as f32, 1.0, -2.0, 0.5 * i as f32))
        .collect();
    let b_host: Vec<Float4> = (0..n4)
        .map(|i| Float4::new(1.0, i as f32, 2.0, 0.5))
        .collect();
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&b_host).unwrap();
    let mut c = stream.alloc_zeros::<Float4>(n4 + 8).unwrap();
    // Write into the middle of c through a view, reading a and b through views too.
    let mut c_mid = c.slice_mut(4..4 + n4);
    unsafe {
        kernel
            .launch(
                &stream,
                LaunchConfig::for_num_elems(n4 as u32),
                &a.slice(..),
                &b.slice(..),
                &mut c_mid,
                n4 as u32,
            )
            .unwrap()
    };
    let c_host = stream.clone_dtoh(&c).unwrap();
    assert_eq!(c_host[..4], [Float4::default(); 4]);
    assert_eq!(c_host[4 + n4..], [Float4::default(); 4]);
    for i in 0..n4 {
        let (x, y) = (a_host[i], b_host[i]);
        let want = Float4::new(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        assert_eq!(c_host[4 + i], want, "element {i}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn echo_guide_receives_every_parameter_bit_exactly() {
    let (_ctx, stream, module) = setup(ECHO_PTX);
    let kernel = EchoGuide::load(&module).unwrap();
    let mut out = stream.alloc_zeros::<u8>(96).unwrap();
    let i = -0x1234_5678;
    let f4 = Float4::new(
        1.5,
        -0.0,
        f32::from_bits(0x7f80_0001 & 0x7fbf_ffff),
        3.25e-38,
    );
    let c = -7i8;
    let f = f32::from_bits(0x3f80_1234);
    let p = 0x0123_4567_89ab_cdefu64;
    let f2 = Float2::new(f32::MAX, f32::MIN_POSITIVE);
    let d = f64::from_bits(0x4009_21fb_5444_2d18);
    let h = f16::from_bits(0x3c01);
    let d2 = Double2::new(-1.0e300, f64::from_bits(0x0000_0000_0000_0001));
    unsafe {
        kernel
            .launch(
                &stream,
                one_thread(),
                i,
                f4,
                c,
                f,
                p,
                f2,
                d,
                h,
                d2,
                &mut out,
            )
            .unwrap()
    };
    let bytes = stream.clone_dtoh(&out).unwrap();
    let at = |o: usize, n: usize| &bytes[o..o + n];
    assert_eq!(at(0, 4), i.to_le_bytes());
    assert_eq!(at(16, 16), bytemuck::bytes_of(&f4));
    assert_eq!(at(32, 1), c.to_le_bytes());
    assert_eq!(at(36, 4), f.to_bits().to_le_bytes());
    assert_eq!(at(40, 8), p.to_le_bytes());
    assert_eq!(at(48, 8), bytemuck::bytes_of(&f2));
    assert_eq!(at(56, 8), d.to_bits().to_le_bytes());
    assert_eq!(at(64, 2), h.to_bits().to_le_bytes());
    assert_eq!(at(80, 16), bytemuck::bytes_of(&d2));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn echo_scalars_receives_every_scalar_after_a_byte() {
    let (_ctx, stream, module) = setup(ECHO_PTX);
    let kernel = EchoScalars::load(&module).unwrap();
    let mut out = stream.alloc_zeros::<u8>(96).unwrap();
    let pads: [i8; 15] = [3, 5, 9, 17, 33, 65, -127, 2, 4, 8, 16, 32, 64, -128, 7];
    let v_bf16 = bf16::from_bits(0xc0a1);
    let v_f16 = f16::from_bits(0xfbff);
    let int2 = Int2::new(i32::MIN, 0x0102_0304);
    let int4 = Int4::new(-1, 2, -3, 0x7fff_fffe);
    let uint4 = Uint4::new(0xdead_beef, 1, 0x8000_0000, 42);
    unsafe {
        kernel
            .launch(
                &stream,
                one_thread(),
                true,
                pads[0],
                -100,
                pads[1],
                0xfe,
                pads[2],
                -0x1234,
                pads[3],
                0xfedc,
                pads[4],
                -0x1234_5678,
                pads[5],
                0xfedc_ba98,
                pads[6],
                -0x0123_4567_89ab_cdef,
                pads[7],
                0xfedc_ba98_7654_3210,
                pads[8],
                -1.0e-30,
                pads[9],
                6.02214076e23,
                pads[10],
                v_f16,
                pads[11],
                v_bf16,
                pads[12],
                int2,
                pads[13],
                int4,
                pads[14],
                uint4,
                &mut out,
            )
            .unwrap()
    };
    let bytes = stream.clone_dtoh(&out).unwrap();
    let at = |o: usize, n: usize| &bytes[o..o + n];
    assert_eq!(at(0, 1), [1]);
    assert_eq!(at(1, 1), (-100i8).to_le_bytes());
    assert_eq!(at(2, 1), [0xfe]);
    assert_eq!(at(3, 1), pads.iter().fold(0i8, |x, p| x ^ p).to_le_bytes());
    assert_eq!(at(4, 2), (-0x1234i16).to_le_bytes());
    assert_eq!(at(6, 2), 0xfedcu16.to_le_bytes());
    assert_eq!(at(8, 4), (-0x1234_5678i32).to_le_bytes());
    assert_eq!(at(12, 4), 0xfedc_ba98u32.to_le_bytes());
    assert_eq!(at(16, 8), (-0x0123_4567_89ab_cdefi64).to_le_bytes());
    assert_eq!(at(24, 8), 0xfedc_ba98_7654_3210u64.to_le_bytes());
    assert_eq!(at(32, 4), (-1.0e-30f32).to_le_bytes());
    assert_eq!(at(40, 8), 6.02214076e23f64.to_le_bytes());
    assert_eq!(at(48, 2), v_f16.to_bits().to_le_bytes());
    assert_eq!(at(50, 2), v_bf16.to_bits().to_le_bytes());
    assert_eq!(at(56, 8), bytemuck::bytes_of(&int2));
    assert_eq!(at(64, 16), bytemuck::bytes_of(&int4));
    assert_eq!(at(80, 16), bytemuck::bytes_of(&uint4));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cxx_kernels_launch_by_mangled_name() {
    let (_ctx, stream, module) = setup(CXX_FIXTURES_PTX);
    let scale = ScaleF64::load(&module).unwrap();
    let mut x = stream.clone_htod(&[1.0f64, 2.0, 3.0]).unwrap();
    unsafe {
        scale
            .launch(&stream, LaunchConfig::for_num_elems(3), &mut x, -2.5, 3)
            .unwrap()
    };
    assert_eq!(stream.clone_dtoh(&x).unwrap(), [-2.5, -5.0, -7.5]);
    // saxpy's symbol is derived by #[kernel(cpp)] (and checked against the PTX at compile time).
    assert_eq!(Saxpy::NAME, "_Z5saxpyPKfPffi");
    let saxpy = Saxpy::load(&module).unwrap();
    let xs = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut ys = stream.clone_htod(&[10.0f32, 20.0, 30.0]).unwrap();
    unsafe {
        saxpy
            .launch(
                &stream,
                LaunchConfig::for_num_elems(3),
                &xs,
                &mut ys,
                2.0,
                3,
            )
            .unwrap()
    };
    assert_eq!(stream.clone_dtoh(&ys).unwrap(), [12.0, 24.0, 36.0]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn safe_kernel_launches_without_unsafe() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let empty = Empty4::load(&module).unwrap();
    let a = stream.alloc_zeros::<f32>(1).unwrap();
    let mut c = stream.alloc_zeros::<f32>(1).unwrap();
    empty
        .launch(&stream, one_thread(), &a, &a, &mut c, 1)
        .unwrap();
    stream.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn launch_on_a_second_stream_sees_earlier_writes() {
    let (ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let other = ctx.new_stream().unwrap();
    let n = 1 << 22;
    let a = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let b = stream.clone_htod(&vec![2.0f32; n]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n).unwrap();
    // Launched on `other` right after the uploads were queued on `stream`: the launcher's
    // device-pointer guards make `other` wait for them.
    unsafe {
        kernel
            .launch(
                &other,
                LaunchConfig::for_num_elems(n as u32),
                &a,
                &b,
                &mut c,
                n as u32,
            )
            .unwrap()
    };
    let c_host = other.clone_dtoh(&c).unwrap();
    assert!(c_host.iter().all(|&x| x == 3.0));
}

mod wrong {
    use super::kernel;

    #[kernel]
    unsafe extern "C" {
        /// vector_add with `n` declared 8 bytes wide: the PTX has .u32.
        #[kernel(name = "vector_add")]
        pub fn vector_add_n_u64(a: *const f32, b: *const f32, c: *mut f32, n: u64);

        /// vector_add missing its last parameter.
        #[kernel(name = "vector_add")]
        pub fn vector_add_no_n(a: *const f32, b: *const f32, c: *mut f32);

        /// A kernel the module does not have.
        pub fn vector_sub(a: *const f32, b: *const f32, c: *mut f32, n: u32);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn wrong_declarations_are_refused_at_load() {
    let (_ctx, _stream, module) = setup(VECTOR_ADD_PTX);
    match wrong::VectorAddNU64::load(&module) {
        Err(Error::SignatureMismatch(m)) => {
            assert_eq!(m.kernel, "vector_add");
            assert_eq!(m.loaded, [(0, 8), (8, 8), (16, 8), (24, 4)]);
            let text = m.to_string();
            assert!(
                text.contains("parameter 3 `n` is declared at offset 24 with 8 bytes"),
                "{text}"
            );
        }
        other => panic!("expected SignatureMismatch, got {other:?}"),
    }
    match wrong::VectorAddNoN::load(&module) {
        Err(Error::SignatureMismatch(m)) => assert_eq!(m.loaded.len(), 4),
        other => panic!("expected SignatureMismatch, got {other:?}"),
    }
    match wrong::VectorSub::load(&module) {
        Err(Error::KernelNotFound { kernel }) => assert_eq!(kernel, "vector_sub"),
        other => panic!("expected KernelNotFound, got {other:?}"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn driver_errors_name_the_call_and_the_code() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let a = stream.alloc_zeros::<f32>(1).unwrap();
    let mut c = stream.alloc_zeros::<f32>(1).unwrap();
    let too_many_threads = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (4096, 1, 1),
        shared_mem_bytes: 0,
    };
    // Checked before the driver: the limit and the value, not CUDA_ERROR_INVALID_VALUE.
    let e = unsafe { kernel.launch(&stream, too_many_threads, &a, &a, &mut c, 1) }.unwrap_err();
    assert_eq!(
        e.to_string(),
        "block dimension x is 4096 but this device allows at most 1024"
    );
    // Text that is not PTX reaches the driver as an image it cannot read.
    let bad = cuda_kernel::driver::load_ptx(&_ctx, "not ptx").unwrap_err();
    assert!(
        bad.to_string()
            .starts_with("cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE"),
        "{bad}"
    );
    let nul = cuda_kernel::driver::load_ptx(&_ctx, ".version 9.0\0").unwrap_err();
    assert!(matches!(nul, Error::InvalidPtx(_)), "{nul}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn layouts_agree_with_the_driver() {
    // load() already compares with cuFuncGetParamInfo; this states the expected numbers.
    let (_ctx, _stream, module) = setup(ECHO_PTX);
    EchoGuide::load(&module).unwrap();
    EchoScalars::load(&module).unwrap();
    let offsets: Vec<usize> = EchoGuide::LAYOUT.params.iter().map(|p| p.offset).collect();
    assert_eq!(offsets, [0, 16, 32, 36, 40, 48, 56, 64, 80, 96]);
    assert_eq!(EchoGuide::LAYOUT.size, 104);
    assert!(cuda_kernel::driver::version().unwrap() >= 12_040);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cubin_modules_are_checked_at_load_too() {
    let path = std::env::var("CUDA_KERNEL_TEST_CUBIN")
        .expect("CUDA_KERNEL_TEST_CUBIN names a cubin of kernels/cuda/vector_add.cu (scripts/device-run.sh builds it)");
    let image = std::fs::read(&path).expect("the cubin is readable");
    let ctx = cuda_kernel::driver::context(0).unwrap();
    let stream = ctx.default_stream();
    let module = cuda_kernel::driver::load_image(&ctx, &image).unwrap();
    // No PTX text here: only the driver knows the parameters.
    assert!(matches!(
        wrong::VectorAddNU64::load(&module),
        Err(Error::SignatureMismatch(_))
    ));
    let kernel = VectorAdd::load(&module).unwrap();
    // PTX handed over as bytes without a terminating NUL is loaded as text, not read past its end.
    let from_bytes = cuda_kernel::driver::load_image(&ctx, VECTOR_ADD_PTX.as_bytes()).unwrap();
    VectorAdd::load(&from_bytes).unwrap();
    let a = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(3).unwrap();
    unsafe {
        kernel
            .launch(&stream, LaunchConfig::for_num_elems(3), &a, &a, &mut c, 3)
            .unwrap()
    };
    assert_eq!(stream.clone_dtoh(&c).unwrap(), [2.0, 4.0, 6.0]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn derived_structs_arrive_field_by_field() {
    use kernels::params::{BIG_PARAMS_LEN, BigParams, Particle, Tagged};
    let (_ctx, stream, module) = setup(STRUCTS_PTX);
    let echo = EchoParticle::load(&module).unwrap();
    let p = Particle {
        flag: true,
        inner: Tagged {
            tag: 0xa5,
            value: -1234.5678,
        },
        dir: cuda_kernel::Float3::new(1.0, -2.0, 3.25),
        ids: [-7, 300, -30000],
        mass: f16::from_f32(0.125),
    };
    let mut out = stream.alloc_zeros::<u8>(20).unwrap();
    unsafe {
        echo.launch(&stream, one_thread(), -3, p, 0x5a, &mut out)
            .unwrap()
    };
    let b = stream.clone_dtoh(&out).unwrap();
    assert_eq!(b[0..8], (-1234.5678f64).to_le_bytes());
    assert_eq!(b[8..12], 3.25f32.to_le_bytes());
    assert_eq!(b[12..14], (-30000i16).to_le_bytes());
    assert_eq!(b[14], 1);
    assert_eq!(b[15], 0xa5);
    assert_eq!(b[16..18], f16::from_f32(0.125).to_bits().to_le_bytes());
    assert_eq!(b[18], (-3i8) as u8);
    assert_eq!(b[19], 0x5a);

    // 8,000 bytes of parameters.
    let sum_big = SumBig::load(&module).unwrap();
    let mut values = [0.0f32; BIG_PARAMS_LEN];
    for (i, v) in values.iter_mut().enumerate() {
        *v = (i % 7) as f32;
    }
    let mut out = stream.alloc_zeros::<f32>(2).unwrap();
    unsafe {
        sum_big
            .launch(&stream, one_thread(), BigParams { values }, &mut out)
            .unwrap()
    };
    let want: f32 = values.iter().sum();
    assert_eq!(
        stream.clone_dtoh(&out).unwrap(),
        [want, values[BIG_PARAMS_LEN - 1]]
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn module_loads_every_kernel_of_the_block_from_the_build_steps_ptx() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = VectorAddKernels::load(&ctx).unwrap();
    assert_eq!(VectorAddKernels::PTX, VECTOR_ADD_PTX);
    let n = 4097usize;
    let a = stream.clone_htod(&vec![1.5f32; n]).unwrap();
    let b = stream
        .clone_htod(&(0..n).map(|i| i as f32).collect::<Vec<_>>())
        .unwrap();
    let mut c = stream.alloc_zeros::<f32>(n).unwrap();
    let config = cuda_kernel::Config::for_elements(n as u32, 128);
    unsafe {
        kernels
            .vector_add
            .launch(&stream, config, &a, &b, &mut c, n as u32)
            .unwrap()
    };
    kernels
        .empty4
        .launch(&stream, config, &a, &b, &mut c, 0)
        .unwrap();
    let c = stream.clone_dtoh(&c).unwrap();
    assert!(c.iter().enumerate().all(|(i, &x)| x == 1.5 + i as f32));
}

#[kernel]
unsafe extern "C" {
    /// Compiled at run time by NVRTC below.
    fn nvrtc_saxpy(x: *const f32, y: *mut f32, a: f32, n: u32);
    /// Declared as saxpy, defined with a double `a`.
    fn nvrtc_wrong(x: *const f32, y: *mut f32, a: f32, n: u32);
}

#[test]
#[ignore = "needs a CUDA GPU and NVRTC"]
fn nvrtc_compiled_kernels_load_checked_and_launch() {
    const SOURCE: &str = r#"
extern "C" __global__ void nvrtc_saxpy(const float *x, float *y, float a, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void nvrtc_wrong(const float *x, float *y, double a, unsigned int n) {}
"#;
    let ptx = cuda_kernel::nvrtc::compile("saxpy.cu", SOURCE, &["--gpu-architecture=compute_90"])
        .expect("NVRTC compiles");
    let (_ctx, stream, module) = setup(&ptx);
    let saxpy = NvrtcSaxpy::load(&module).unwrap();
    let n = 100_000usize;
    let x = stream.clone_htod(&vec![2.0f32; n]).unwrap();
    let mut y = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let config = cuda_kernel::Config::for_elements(n as u32, 256);
    unsafe {
        saxpy
            .launch(&stream, config, &x, &mut y, 3.0, n as u32)
            .unwrap()
    };
    assert!(stream.clone_dtoh(&y).unwrap().iter().all(|&v| v == 7.0));
    // The load-time check holds for NVRTC's modules too: a double where f32 is declared.
    let wrong = NvrtcWrong::load(&module);
    assert!(
        matches!(wrong, Err(Error::SignatureMismatch(_))),
        "{wrong:?}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn template_reduction_instances_sum_by_type() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = TemplateKernels::load(&ctx).unwrap();
    let (n, block) = (100_000u32, 256u32);
    let blocks = n.div_ceil(block) as usize;
    let config = cuda_kernel::Config::for_elements(n, block);

    let floats: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
    let reduce_f32 = Reduce0::<f32>::load(&kernels.module).unwrap();
    let mut input = stream.clone_htod(&floats).unwrap();
    let mut partial = stream.alloc_zeros::<f32>(blocks).unwrap();
    let shared = config.shared_mem(block * 4);
    unsafe {
        reduce_f32
            .launch(&stream, shared, &mut input, &mut partial, n)
            .unwrap()
    };
    let sums = stream.clone_dtoh(&partial).unwrap();
    for (b, sum) in sums.iter().enumerate() {
        let chunk = &floats[b * block as usize..((b + 1) * block as usize).min(n as usize)];
        assert_eq!(*sum, chunk.iter().sum::<f32>(), "block {b}");
    }

    let ints: Vec<i32> = (0..n as i32).map(|i| i % 1000 - 500).collect();
    let reduce_i32 = Reduce0::<i32>::load(&kernels.module).unwrap();
    let mut input = stream.clone_htod(&ints).unwrap();
    let mut partial = stream.alloc_zeros::<i32>(blocks).unwrap();
    unsafe {
        reduce_i32
            .launch(&stream, shared, &mut input, &mut partial, n)
            .unwrap()
    };
    let total: i64 = stream
        .clone_dtoh(&partial)
        .unwrap()
        .iter()
        .map(|&s| s as i64)
        .sum();
    assert_eq!(total, ints.iter().map(|&i| i as i64).sum::<i64>());

    let doubles: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let reduce_f64 = Reduce0::<f64>::load(&kernels.module).unwrap();
    let mut input = stream.clone_htod(&doubles).unwrap();
    let mut partial = stream.alloc_zeros::<f64>(blocks).unwrap();
    let shared = config.shared_mem(block * 8);
    unsafe {
        reduce_f64
            .launch(&stream, shared, &mut input, &mut partial, n)
            .unwrap()
    };
    let total: f64 = stream.clone_dtoh(&partial).unwrap().iter().sum();
    assert_eq!(total, (n as f64 - 1.0) * n as f64 / 2.0);
    // No instance over u8: the load says which symbol it looked for.
    let missing = Reduce0::<u8>::load(&kernels.module).unwrap_err();
    assert!(matches!(missing, Error::KernelNotFound { .. }), "{missing}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn tile_matmul_instances_square_a_matrix_passed_twice() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = TemplateKernels::load(&ctx).unwrap();
    let w = 128usize;
    let a_host: Vec<f32> = (0..w * w).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let mut expected = vec![0f32; w * w];
    for r in 0..w {
        for c in 0..w {
            expected[r * w + c] = (0..w).map(|k| a_host[r * w + k] * a_host[k * w + c]).sum();
        }
    }
    let a = stream.clone_htod(&a_host).unwrap();
    for block in [16u32, 32] {
        let mut c = stream.alloc_zeros::<f32>(w * w).unwrap();
        let grid = (w as u32 / block, w as u32 / block, 1);
        let config = cuda_kernel::Config::new(grid, (block, block, 1));
        // A * A: the read-only pointers take the same buffer twice.
        unsafe {
            match block {
                16 => MatrixMulCUDA::<16>::load(&kernels.module)
                    .unwrap()
                    .launch(&stream, config, &mut c, &a, &a, w as i32, w as i32),
                _ => MatrixMulCUDA::<32>::load(&kernels.module)
                    .unwrap()
                    .launch(&stream, config, &mut c, &a, &a, w as i32, w as i32),
            }
            .unwrap()
        };
        let got = stream.clone_dtoh(&c).unwrap();
        for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
            assert!(
                (g - e).abs() <= 1e-3 * e.abs().max(1.0),
                "BLOCK {block}, element {i}: {g} vs {e}"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dtype_family_members_with_optional_pointers() {
    use cuda_kernel::Null;
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let kernels = TemplateKernels::load(&ctx).unwrap();
    let n = 1000usize;
    let config = cuda_kernel::Config::for_elements(n as u32, 128);

    // f32, contiguous (info NULL), from inp.
    let affine = Affine::<f32>::load(&kernels.module).unwrap();
    let x = stream
        .clone_htod(&(0..n).map(|i| i as f32).collect::<Vec<_>>())
        .unwrap();
    let mut y = stream.alloc_zeros::<f32>(n).unwrap();
    unsafe {
        affine
            .launch(&stream, config, n as u64, 1, &Null, &x, &mut y, 2.0, 0.5)
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    assert!(
        got.iter()
            .enumerate()
            .all(|(i, &v)| v == i as f32 * 2.0 + 0.5)
    );

    // f32 in place: inp NULL, out read and written.
    unsafe {
        affine
            .launch(
                &stream, config, n as u64, 1, &Null, &Null, &mut y, 0.5, -0.25,
            )
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    assert!(
        got.iter()
            .enumerate()
            .all(|(i, &v)| v == (i as f32 * 2.0 + 0.5) * 0.5 - 0.25)
    );

    // f16 through a transposing stride: a 10 x 100 input read column-major.
    let affine_f16 = Affine::<f16>::load(&kernels.module).unwrap();
    let input: Vec<f16> = (0..n).map(|i| f16::from_f32((i % 50) as f32)).collect();
    let x = stream.clone_htod(&input).unwrap();
    let info = stream.clone_htod(&[100u64, 10, 1, 100]).unwrap(); // dims (100, 10), strides (1, 100)
    let mut y = stream.alloc_zeros::<f16>(n).unwrap();
    let (mul, add) = (f16::from_f32(2.0), f16::from_f32(1.0));
    unsafe {
        affine_f16
            .launch(&stream, config, n as u64, 2, &info, &x, &mut y, mul, add)
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    for (i, value) in got.iter().enumerate() {
        let (r, c) = (i / 10, i % 10);
        let want = input[r + c * 100].to_f32() * 2.0 + 1.0;
        assert_eq!(value.to_f32(), want, "element {i}");
    }

    // bf16 and u32 members.
    let affine_bf16 = Affine::<bf16>::load(&kernels.module).unwrap();
    let x = stream.clone_htod(&vec![bf16::from_f32(3.0); n]).unwrap();
    let mut y = stream.alloc_zeros::<bf16>(n).unwrap();
    let (mul, add) = (bf16::from_f32(0.5), bf16::from_f32(0.25));
    unsafe {
        affine_bf16
            .launch(&stream, config, n as u64, 1, &Null, &x, &mut y, mul, add)
            .unwrap()
    };
    assert!(
        stream
            .clone_dtoh(&y)
            .unwrap()
            .iter()
            .all(|v| v.to_f32() == 1.75)
    );
    let affine_u32 = Affine::<u32>::load(&kernels.module).unwrap();
    let x = stream
        .clone_htod(&(0..n as u32).collect::<Vec<_>>())
        .unwrap();
    let mut y = stream.alloc_zeros::<u32>(n).unwrap();
    unsafe {
        affine_u32
            .launch(&stream, config, n as u64, 1, &Null, &x, &mut y, 3, 7)
            .unwrap()
    };
    assert!(
        stream
            .clone_dtoh(&y)
            .unwrap()
            .iter()
            .enumerate()
            .all(|(i, &v)| v == i as u32 * 3 + 7)
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_globals_are_written_read_and_seen_by_kernels() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.default_stream();
    let fir = FirKernels::load(&ctx).unwrap();
    let taps: [f32; 16] = std::array::from_fn(|k| (k as f32 + 1.0) / 8.0);
    fir.coeffs.write(&stream, &taps).unwrap();
    fir.offset
        .write(&stream, &Float4::new(0.5, 0.0, 0.0, 0.0))
        .unwrap();
    fir.calls.write(&stream, &0).unwrap();
    assert_eq!(fir.coeffs.read(&stream).unwrap(), taps);

    let n = 10_000usize;
    let x_host: Vec<f32> = (0..n + 15).map(|i| (i % 11) as f32).collect();
    let x = stream.clone_htod(&x_host).unwrap();
    let mut y = stream.alloc_zeros::<f32>(n).unwrap();
    let config = cuda_kernel::Config::for_elements(n as u32, 256);
    unsafe {
        fir.fir16
            .launch(&stream, config, &x, &mut y, n as u32)
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    for (i, value) in got.iter().enumerate() {
        let want = 0.5 + (0..16).map(|k| taps[k] * x_host[i + k]).sum::<f32>();
        assert!(
            (value - want).abs() <= 1e-4 * want.abs(),
            "element {i}: {value} vs {want}"
        );
    }
    assert_eq!(fir.calls.read(&stream).unwrap(), n as u32);
    // A second launch counts on, and the stand-alone handle sees the same variable.
    unsafe {
        fir.fir16
            .launch(&stream, config, &x, &mut y, n as u32)
            .unwrap()
    };
    let calls = Calls::load(&fir.module, &stream).unwrap();
    assert_eq!(calls.read(&stream).unwrap(), 2 * n as u32);
    // A module without the variable says so.
    let other = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX).unwrap();
    let missing = Coeffs::load(&other, &stream).unwrap_err();
    assert!(matches!(missing, Error::GlobalNotFound { .. }), "{missing}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn low_precision_parameters_and_buffers_arrive_bit_exactly() {
    use cuda_kernel::low_precision::*;
    let (_ctx, stream, module) = setup(LOW_PRECISION_PTX);
    let echo = EchoLowPrecision::load(&module).unwrap();
    let mut out = stream.alloc_zeros::<u8>(20).unwrap();
    let (a, b, c) = (
        F8E4M3::from_f32(-1.75),
        F8E5M2::from_f32(3.0),
        E8M0::from_bits(0x7f),
    );
    let d = Fp8x2E4M3::from([F8E4M3::from_f32(0.5), F8E4M3::from_f32(-448.0)]);
    let e = Fp8x4E5M2::from_bits(0x8c7b_3a19);
    let (f, g, h) = (
        Fp6E2M3::from_bits(0x2d),
        Fp6E3M2::from_bits(0x13),
        Fp6x4E2M3::from_bits(0x0102_3f3e),
    );
    let (i, j, k) = (
        F4E2M1::from_bits(0x0b),
        F4E2M1x2::from_bits(0xa5),
        Fp4x4E2M1::from_bits(0xf1e2),
    );
    unsafe {
        echo.launch(
            &stream,
            one_thread(),
            a,
            b,
            c,
            d,
            e,
            f,
            g,
            h,
            i,
            j,
            k,
            &mut out,
        )
        .unwrap()
    };
    let got = stream.clone_dtoh(&out).unwrap();
    let mut want = vec![0u8; 20];
    want[..7].copy_from_slice(&[a.to_bits(), b.to_bits(), 0x7f, 0x2d, 0x13, 0x0b, 0xa5]);
    want[8..10].copy_from_slice(&d.bits.to_le_bytes());
    want[10..12].copy_from_slice(&0xf1e2u16.to_le_bytes());
    want[12..16].copy_from_slice(&0x8c7b_3a19u32.to_le_bytes());
    want[16..20].copy_from_slice(&0x0102_3f3eu32.to_le_bytes());
    assert_eq!(got, want);

    // An FP8 buffer from cudarc (CudaSlice<F8E4M3>) through a kernel and back.
    let scale = ScaleFp8::load(&module).unwrap();
    let values: Vec<F8E4M3> = [-2.0f32, -0.5, 0.0, 0.25, 1.0, 3.5, 12.0, 96.0]
        .iter()
        .map(|&v| F8E4M3::from_f32(v))
        .collect();
    let x = stream.clone_htod(&values).unwrap();
    let mut y = stream.alloc_zeros::<F8E4M3>(values.len()).unwrap();
    let config = cuda_kernel::Config::for_elements(values.len() as u32, 32);
    unsafe {
        scale
            .launch(&stream, config, &x, &mut y, 2.0, values.len() as u32)
            .unwrap()
    };
    let got = stream.clone_dtoh(&y).unwrap();
    for (v, g) in values.iter().zip(&got) {
        assert_eq!(
            g.to_bits(),
            F8E4M3::from_f32(v.to_f32() * 2.0).to_bits(),
            "{}",
            v.to_f32()
        );
    }
}
