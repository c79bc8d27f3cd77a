//! Loading on a real GPU: declarations checked against modules from PTX, cubins, NVRTC and
//! the build step, driver errors, device globals. Ignored without a GPU.

mod support;

use cuda_kernel::cudarc::driver::LaunchConfig;
use cuda_kernel::{Error, Float4, kernel};
use kernels::*;
use support::setup;

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
                text.contains("parameter 4 `n` is declared at offset 24 with 8 bytes"),
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
        e.root().to_string(),
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
    // Every test-kernel block has its module type: each loads and checks all its kernels.
    EchoKernels::load(&ctx).unwrap();
    CxxKernels::load(&ctx).unwrap();
    LaunchFeatureKernels::load(&ctx).unwrap();
    StructKernels::load(&ctx).unwrap();
    TemplateKernels::load(&ctx).unwrap();
    FirKernels::from_module(&FirKernels::load(&ctx).unwrap().module, &stream).unwrap();
    LowPrecisionKernels::load(&ctx).unwrap();
    PlanKernels::load(&ctx).unwrap();
    MultiGpuKernels::load(&ctx).unwrap();
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
