// strided_sum<T, unsigned int BLOCK_SIZE> declared with an `int` value and fill_tagged<size_t N,
// long OFFSET, char TAG> with `u32` for `size_t`: nvcc mangles the value's type into the
// instance's symbol (`Lj128E`, `Lm32E`), so no instance matches either declaration.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn strided_sum<T, const BLOCK_SIZE: i32>(x: *const T, out: *mut T, n: u32);

    #[kernel(cpp)]
    fn fill_tagged<const N: u32, const OFFSET: cuda_kernel::ffi::c_long, const TAG: cuda_kernel::ffi::c_char>(
        x: *mut f32,
    );
}

fn main() {}
