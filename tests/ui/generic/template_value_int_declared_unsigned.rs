// cuda-samples' matrixMulCUDA<int BLOCK_SIZE> declared with a `u32` value: nvcc writes an
// `int` argument without a cast (`matrixMulCUDA<16>`), and the error still names the type to
// declare.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn matrixMulCUDA<const BLOCK_SIZE: u32>(c: *mut f32, a: *mut f32, b: *mut f32, w_a: i32, w_b: i32);
}

fn main() {}
