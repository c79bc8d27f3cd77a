// `namespace` qualifies a C++ kernel's derived symbol: without `cpp` it is an error on the
// namespace.
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    #[kernel(namespace = "ns")]
    fn plain(x: *mut f32);
}

fn main() {}
