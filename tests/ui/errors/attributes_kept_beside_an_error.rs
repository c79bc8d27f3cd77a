use cuda_kernel::kernel;

// A fn with its own attributes in a block with a mistake: the mistake is the one error, not
// the attributes left on nothing.
#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/vector_add.ptx")]
unsafe extern "C" {
    #[allow(non_snake_case)]
    #[cfg(not(any()))]
    pub fn vectorAdd(a: *const f32, b: *const f32, c: *mut f32, n: u32);
}

fn main() {}
