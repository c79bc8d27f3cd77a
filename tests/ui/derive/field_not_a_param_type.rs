#[derive(Clone, Copy, cuda_kernel::KernelParam)]
#[repr(C)]
pub struct Params {
    pub scale: f32,
    pub count: char,
}

fn main() {}
