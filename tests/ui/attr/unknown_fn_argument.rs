use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    #[kernel(symbol = "_Z1kj")]
    pub fn k(n: u32);
}

fn main() {}
