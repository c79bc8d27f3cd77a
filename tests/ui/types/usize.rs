use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(x: *mut f32, n: usize);
}

fn main() {}
