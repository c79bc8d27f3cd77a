// `__constant__ float coeffs[16]` declared with 8 elements, and a variable the PTX lacks.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/globals.ptx")]
unsafe extern "C" {
    static coeffs: [f32; 8];
    static missing: u32;
}

fn main() {}
