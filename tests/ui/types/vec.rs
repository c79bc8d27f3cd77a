use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(x: Vec<f32>, n: u32);
}

fn main() {}
