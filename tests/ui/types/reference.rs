use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(n: &mut u32);
}

fn main() {}
