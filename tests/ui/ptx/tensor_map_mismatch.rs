use cuda_kernel::{TensorMap, kernel};

// tma_probe(unsigned a, const __grid_constant__ CUtensorMap m, unsigned char *out): the
// descriptor declared as an address, and an address declared as a descriptor.
#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/tma.ptx")]
unsafe extern "C" {
    pub fn tma_probe(a: u32, m: *const u8, out: TensorMap<u8, 1>);
}

fn main() {}
