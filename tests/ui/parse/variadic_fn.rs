use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn printf_like(n: u32, ...);
}

fn main() {}
