use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(n: u32);
    type Opaque;
}

fn main() {}
