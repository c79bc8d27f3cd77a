// A C++ kernel declared in another namespace than the one it is in: the error names the
// namespace it is in.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/namespaces.ptx")]
unsafe extern "C" {
    #[kernel(cpp, namespace = "ns::outer")]
    fn plain(x: *mut f32);
}

fn main() {}
