// Declarations that differ from every instance of their template: each mistake is reported at
// the parameter, with what the PTX's instance has there and the Rust to write.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    // float *A is not const in C++; int wA is signed.
    #[kernel(cpp)]
    fn matrixMulCUDA<const BLOCK_SIZE: i32>(c: *mut f32, a: *const f32, b: *mut f32, w_a: u32, w_b: i32);

    // reduce0<T>(T*, T*, unsigned int) with its second pointer left out.
    #[kernel(cpp)]
    fn reduce0<T>(g_idata: *mut T, n: u32);
}

fn main() {}
