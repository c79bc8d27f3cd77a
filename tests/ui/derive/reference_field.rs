#[derive(Clone, Copy, cuda_kernel::KernelParam)]
#[repr(C)]
pub struct Params<'a> {
    pub data: &'a [f32],
    pub count: u32,
}

fn main() {}
