use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(weights: [f32; 4]);
}

fn main() {}
