use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/tests/ui/ptx/fixtures/malformed.ptx")]
unsafe extern "C" {
    pub fn broken(a: u32, b: u32);
}

fn main() {}
