use cuda_kernel::kernel;

// The CUDA sample's C++ kernel is `vectorAdd`: declared in Rust's spelling, `#[kernel(cpp)]`
// derives `_Z10vector_addPKfS0_Pfi`, which the PTX does not have.
#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/cuda_samples.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: i32);
}

fn main() {}
