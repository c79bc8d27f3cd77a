use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn k(name: String);
}

fn main() {}
