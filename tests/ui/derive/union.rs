#[derive(Clone, Copy, cuda_kernel::KernelParam)]
#[repr(C)]
pub union Bits {
    pub f: f32,
    pub u: u32,
}

fn main() {}
