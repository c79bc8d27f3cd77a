// vector_add(const float*, const float*, float*, unsigned) declared without its second pointer:
// the error names `n`, which sits where the PTX has a pointer.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/vector_add.ptx")]
unsafe extern "C" {
    fn vector_add(a: *const f32, c: *mut f32, n: u32);
}

fn main() {}
