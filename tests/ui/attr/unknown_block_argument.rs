use cuda_kernel::kernel;

#[kernel(arch = "sm_90")]
unsafe extern "C" {
    pub fn k(n: u32);
}

fn main() {}
