use cuda_kernel::kernel;

#[kernel]
unsafe extern "system" {
    pub fn k(n: u32);
}

fn main() {}
