#[derive(Clone, Copy, cuda_kernel::KernelParam)]
#[repr(C, packed)]
pub struct Params {
    pub tag: u8,
    pub scale: f64,
}

fn main() {}
