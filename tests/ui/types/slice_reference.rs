use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn sum(x: &[f32], n: u32);
}

fn main() {}
