#[derive(Clone, Copy, cuda_kernel::KernelParam)]
#[repr(C)]
pub struct Nothing {}

fn main() {}
