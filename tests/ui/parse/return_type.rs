use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn sum(x: *const f32, n: u32) -> f32;
}

fn main() {}
