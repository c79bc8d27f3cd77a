use cuda_kernel::{Config, kernel};

// Checked at compile time against my-kernels' PTX, in its OUT_DIR.
#[kernel(ptx = "$DEP_MY_KERNELS_PTX_DIR/affine.ptx")]
unsafe extern "C" {
    #[kernel(name = "affine_{T}")]
    fn affine<T>(numel: usize, x: *const T, y: *mut T, mul: T, add: T);
}

fn main() -> Result<(), cuda_kernel::Error> {
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.default_stream();
    let module = cuda_kernel::driver::load_ptx(&ctx, my_kernels::AFFINE)?;
    let affine = Affine::<i64>::load(&module)?;
    let x = stream.clone_htod(&[1i64, 2, 3])?;
    let mut y = stream.alloc_zeros::<i64>(3)?;
    unsafe { affine.launch(&stream, Config::for_elements(3, 32), 3, &x, &mut y, 10, 1)? };
    assert_eq!(stream.clone_dtoh(&y)?, [11, 21, 31]);
    println!("app: affine_i64 from my-kernels' PTX: ok");
    Ok(())
}
