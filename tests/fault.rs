//! The verify mode against a kernel that faults. A test binary of its own: a fault spoils the
//! context for every later launch of the process. Ignored without a GPU.
//!
//! Under compute-sanitizer (`compute-sanitizer --tool memcheck .../fault --ignored`) memcheck
//! names the same kernel as the error: `Invalid __global__ write of size 4 ... at write_far`.

use cuda_kernel::cudarc::driver::sys::CUresult;
use cuda_kernel::{Config, diagnostics};
use kernels::{ChainStep, PLANS_PTX, WriteFar};

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_that_faults_is_named_with_its_line_by_the_verify_mode() {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.new_stream().unwrap();
    let module = cuda_kernel::driver::load_ptx(&ctx, PLANS_PTX).unwrap();
    let (step, write_far) = (
        ChainStep::load(&module).unwrap(),
        WriteFar::load(&module).unwrap(),
    );
    let x = stream.clone_htod(&[1.0f32; 16]).unwrap();
    let mut y = stream.alloc_zeros::<f32>(16).unwrap();
    let config = Config::new((1, 1, 1), (16, 1, 1));
    diagnostics::set_verify(true);
    assert!(diagnostics::verify_enabled());
    // A kernel that stays inside its memory: launched, verified, and Ok.
    unsafe { step.launch(&stream, config, &x, &mut y, 16) }.unwrap();
    assert_eq!(stream.clone_dtoh(&y).unwrap(), [2.0; 16]);
    // One that writes 4 TiB past it: the launch is queued fine, the kernel faults, and the
    // verify mode's synchronization reports it from this call.
    let line = line!() + 1;
    let err = unsafe { write_far.launch(&stream, config, &mut y) }.unwrap_err();
    let text = err.to_string();
    eprintln!("{text}");
    let launch = err.launch().expect("an Error::Launch");
    assert!(launch.failed_on_device(), "{text}");
    assert_eq!(launch.kernel(), "write_far");
    assert_eq!(
        (launch.location().file(), launch.location().line()),
        ("tests/fault.rs", line)
    );
    // CUDA_ERROR_ILLEGAL_ADDRESS alone; under compute-sanitizer the launch is stopped with
    // CUDA_ERROR_LAUNCH_FAILED.
    assert!(
        matches!(
            err.driver_code(),
            Some(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS | CUresult::CUDA_ERROR_LAUNCH_FAILED)
        ),
        "{text}"
    );
    assert!(
        text.starts_with("`write_far`, launched at tests/fault.rs:"),
        "{text}"
    );
    assert!(text.contains("cuStreamSynchronize failed"), "{text}");
    assert!(
        text.contains("\n  p = 0x") && text.ends_with("(16 elements)"),
        "{text}"
    );
    // The context is spoilt: nothing of it is dropped (cudarc's frees would fail too).
    std::mem::forget((x, y, step, write_far, module, stream, ctx));
}
