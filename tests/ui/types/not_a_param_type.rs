use cuda_kernel::kernel;

#[derive(Clone, Copy)]
pub struct Params {
    pub scale: f32,
}

#[kernel]
unsafe extern "C" {
    pub fn k(x: *mut f32, p: Params);
}

fn main() {}
