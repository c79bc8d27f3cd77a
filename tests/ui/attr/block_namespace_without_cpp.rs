// A block's `namespace` qualifies the derived symbols of its C++ kernels: in a block of
// extern "C" kernels only, it is an error on the namespace.
use cuda_kernel::kernel;

#[kernel(namespace = "ns")]
unsafe extern "C" {
    fn plain(x: *mut f32);
    #[kernel(name = "other")]
    fn named(x: *mut f32);
}

fn main() {}
