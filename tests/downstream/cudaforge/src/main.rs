use cuda_kernel::{Config, kernel};

// cudaforge writes $OUT_DIR/scale.ptx: checked at compile time.
#[kernel(ptx = "$OUT_DIR/scale.ptx", module = Kernels)]
unsafe extern "C" {
    fn scale(x: *mut f32, a: f32, n: u32);
}

fn main() -> Result<(), cuda_kernel::Error> {
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.default_stream();
    let kernels = Kernels::load(&ctx)?;
    let mut x = stream.clone_htod(&[1.0f32; 1000])?;
    unsafe { kernels.scale.launch(&stream, Config::for_elements(1000, 256), &mut x, 2.0, 1000)? };
    assert!(stream.clone_dtoh(&x)?.iter().all(|&v| v == 2.0));
    println!("on-cudaforge: ok");
    Ok(())
}
