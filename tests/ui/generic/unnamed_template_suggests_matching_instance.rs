// An undecorated `reduce0` with double pointers: the instance taking them, reduce0<double>, is
// suggested, not the first instance in the file (reduce0<float>).
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    fn reduce0(g_idata: *mut f64, g_odata: *mut f64, n: u32);
}

fn main() {}
