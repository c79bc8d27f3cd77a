use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/vector_add.ptx")]
unsafe extern "C" {
    pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32);
}

fn main() {}
