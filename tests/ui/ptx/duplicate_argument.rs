use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/a.ptx", ptx = "$CUDA_KERNEL_REPO/b.ptx")]
unsafe extern "C" {
    pub fn k(n: u32);
}

fn main() {}
