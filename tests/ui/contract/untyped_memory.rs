// Untyped memory (`void*`) has no length in elements, so no contract can make its launch safe.
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    #[requires(vx.len() >= n)]
    fn dequantize(vx: *const core::ffi::c_void, n: i32);
}

fn main() {}
