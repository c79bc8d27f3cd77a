#[derive(Clone, Copy, cuda_kernel::KernelParam)]
pub struct Params {
    pub scale: f32,
    pub count: u32,
}

fn main() {}
