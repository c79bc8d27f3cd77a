// reduce0<T>(T*, T*, unsigned int) declared with a 64-bit count: no instance in the PTX has it.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u64);
}

fn main() {}
