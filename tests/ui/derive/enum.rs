#[derive(Clone, Copy, cuda_kernel::KernelParam)]
#[repr(C)]
pub enum Mode {
    Fast,
    Exact,
}

fn main() {}
