use cuda_kernel::kernel;

// The PTX's kernel is `vector_add`: a port from C++ naming it as the CUDA sample does.
#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/vector_add.ptx")]
unsafe extern "C" {
    pub fn vectorAdd(a: *const f32, b: *const f32, c: *mut f32, n: u32);
}

fn main() {}
