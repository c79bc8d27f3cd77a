// Pointer parameters as kernels use them: NULL passed typed, a read-only `float *` passed twice,
// a pointer to pointers taking device addresses, and the C types of cuda_kernel::ffi.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream};
use cuda_kernel::ffi::{c_long, size_t};
use cuda_kernel::{Config, Null, kernel};

#[kernel]
unsafe extern "C" {
    fn linear(x: *const f32, bias: *const f32, y: *mut f32, n: size_t);
    #[kernel(cpp)]
    fn square(#[kernel(read_only)] a: *mut f32, #[kernel(read_only)] b: *mut f32, c: *mut f32, n: c_long);
    fn gather(rows: *const *const f32, out: *mut f32, n: u32);
}

#[allow(dead_code)]
fn launches(
    stream: &Arc<CudaStream>,
    k: (&Linear, &Square, &Gather),
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    addresses: &CudaSlice<u64>,
) -> Result<(), cuda_kernel::Error> {
    let config = Config::for_elements(1, 1);
    unsafe {
        k.0.launch(stream, config, x, &Null, y, 1)?;
        k.0.launch(stream, config, x, x, &mut Null, 1)?;
        k.1.launch(stream, config, x, x, y, 1)?; // A*A: one buffer, two shared borrows
        k.2.launch(stream, config, addresses, y, 1)?;
    }
    Ok(())
}

fn main() {
    // square(float*, float*, float*, long): read_only changes the borrow, not the symbol.
    assert_eq!(Square::NAME, "_Z6squarePfS_S_l");
    assert_eq!(Linear::LAYOUT.params[3].size, 8);
}
