use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(stream: u32, x: *mut f32);
}

fn main() {}
