// A C++ template in a namespace, declared without it: the error says where the template is
// and how to declare the namespace, and suggests no instance the PTX already has.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/namespaces.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn scale<const B: i32>(x: *mut f32, a: f32, n: u32);
}

fn main() {}
