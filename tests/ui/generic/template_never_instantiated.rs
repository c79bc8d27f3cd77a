// A template the .cu defines but never instantiates has no entry in the PTX: the error says
// which explicit instantiation to add.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/vector_add.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn scale<T>(x: *mut T, a: T, n: cuda_kernel::ffi::size_t);
}

fn main() {}
