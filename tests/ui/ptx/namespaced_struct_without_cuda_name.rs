// A C++ kernel taking a struct of a namespace: the PTX's entry names it `ns::shapes::Interval`;
// a struct whose CUDA name is another is a compile error naming the one to declare.
use cuda_kernel::{KernelParam, kernel};

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
struct Interval {
    lo: f32,
    hi: f32,
    n: u32,
}

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/namespaces.ptx", cpp, namespace = "ns")]
unsafe extern "C" {
    fn spread(iv: Interval, offset: *const Interval, out: *mut f32);
}

fn main() {}
