use cuda_kernel::kernel;

#[kernel(ptx = "a.ptx", ptx = "b.ptx")]
unsafe extern "C" {
    pub fn k(n: u32);
}

fn main() {}
