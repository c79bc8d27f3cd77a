use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(x: *mut Vec<f32>);
}

fn main() {}
