use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(range: (u32, u32));
}

fn main() {}
