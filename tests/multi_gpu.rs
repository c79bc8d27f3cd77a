//! Load once, launch on every GPU: a library's typed launchers on each device's stream, checked
//! against each device's limits, from threads at once. Ignored without a GPU; on one GPU the
//! tests run on that one, on a machine of several on all of them.

use std::sync::Arc;

use cuda_kernel::{Config, Error, Library, kernel};
use kernels::*;

fn devices() -> usize {
    cuda_kernel::driver::device_count().expect("a CUDA driver")
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn one_library_launcher_launches_on_every_gpu() {
    let library = Library::load_ptx(MULTI_GPU_PTX).unwrap();
    let fill = FillF32::load_library(&library).unwrap();
    let saxpy = SaxpyN::load_library(&library).unwrap();
    let dot = DotPartial::load_library(&library).unwrap();
    assert!(
        fill.function().is_none(),
        "library launchers have no single function"
    );
    let n = 1_000_003usize;
    let count = devices();
    assert!(count >= 1);
    for ordinal in 0..count {
        let ctx = cuda_kernel::driver::context(ordinal).unwrap();
        let stream = ctx.new_stream().unwrap();
        let mut x = stream.alloc_zeros::<f32>(n).unwrap();
        let mut y = stream.alloc_zeros::<f32>(n).unwrap();
        let mut sum = stream.alloc_zeros::<f64>(1).unwrap();
        let config = Config::new((264, 1, 1), (256, 1, 1));
        unsafe {
            fill.launch(&stream, config, &mut x, 1.0 + ordinal as f32, n)
                .unwrap();
            fill.launch(&stream, config, &mut y, 2.0, n).unwrap();
            saxpy.launch(&stream, config, &x, &mut y, 3.0, n).unwrap();
            dot.launch(&stream, config, &x, &y, &mut sum, n).unwrap();
        }
        let xv = 1.0 + ordinal as f64;
        let want = n as f64 * xv * (3.0 * xv + 2.0);
        assert_eq!(
            stream.clone_dtoh(&sum).unwrap()[0],
            want,
            "device {ordinal}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn library_declarations_are_checked_once_and_limits_per_device() {
    #[kernel]
    unsafe extern "C" {
        /// saxpy_n with a 32-bit count: the library says otherwise.
        fn saxpy_n(x: *const f32, y: *mut f32, a: f32, n: u32);
    }
    let library = Library::load_ptx(MULTI_GPU_PTX).unwrap();
    let wrong = SaxpyN::load_library(&library).unwrap_err();
    assert!(matches!(wrong, Error::SignatureMismatch(_)), "{wrong}");
    let missing = kernels::VectorAdd::load_library(&library).unwrap_err();
    assert!(matches!(missing, Error::KernelNotFound { .. }), "{missing}");

    let fill = kernels::FillF32::load_library(&library).unwrap();
    for ordinal in 0..devices() {
        let stream = cuda_kernel::driver::context(ordinal)
            .unwrap()
            .new_stream()
            .unwrap();
        let mut x = stream.alloc_zeros::<f32>(16).unwrap();
        let too_wide = Config::new((1, 1, 1), (2048, 1, 1));
        let refused = unsafe { fill.launch(&stream, too_wide, &mut x, 1.0, 16) }.unwrap_err();
        assert!(
            refused.to_string().contains("at most 1024"),
            "device {ordinal}: {refused}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn threads_launch_one_library_launcher_on_all_gpus_at_once() {
    let library = Library::load_ptx(MULTI_GPU_PTX).unwrap();
    let saxpy = Arc::new(SaxpyN::load_library(&library).unwrap());
    let fill = Arc::new(FillF32::load_library(&library).unwrap());
    let count = devices();
    let handles: Vec<_> = (0..4 * count)
        .map(|t| {
            let (saxpy, fill) = (Arc::clone(&saxpy), Arc::clone(&fill));
            std::thread::spawn(move || {
                let ctx = cuda_kernel::driver::context(t % count).unwrap();
                let stream = ctx.new_stream().unwrap();
                let n = 65_536usize;
                let mut x = stream.alloc_zeros::<f32>(n).unwrap();
                let mut y = stream.alloc_zeros::<f32>(n).unwrap();
                let config = Config::for_elements(n as u32, 256);
                unsafe { fill.launch(&stream, config, &mut x, 1.0, n) }.unwrap();
                for _ in 0..500 {
                    unsafe { saxpy.launch(&stream, config, &x, &mut y, 0.5, n) }.unwrap();
                }
                assert!(
                    stream.clone_dtoh(&y).unwrap().iter().all(|&v| v == 250.0),
                    "thread {t}"
                );
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
