// Ported from an FFI binding: the kernel called as the function it is declared as.
include!("common.rs.in");
use cuda_kernel::cudarc::driver::CudaSlice;

fn add(a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>, n: u32) {
    unsafe { vector_add(a, b, c, n) };
}

fn main() {}
