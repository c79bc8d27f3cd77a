use cuda_kernel::{Double4_32a, KernelParam, kernel};

/// 256 bytes, but aligned to 32 where the kernel's struct is aligned to 64.
#[derive(Clone, Copy, KernelParam)]
#[repr(C, align(32))]
pub struct Block32 {
    pub words: [u64; 32],
}

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/tma.ptx")]
unsafe extern "C" {
    pub fn aligned_echo(
        a: u8,
        #[kernel(grid_constant)] b: Block32,
        d: Double4_32a,
        t: u16,
        out: *mut u8,
    );
}

fn main() {}
