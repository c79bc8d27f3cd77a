// Two blocks in two modules (two files, in a crate) declare a kernel of the same name, each with
// its PTX and module type: nothing clashes.
mod first {
    #[cuda_kernel::kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/vector_add.ptx", module = pub Kernels)]
    unsafe extern "C" {
        pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
    }
}

mod second {
    #[cuda_kernel::kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/vector_add.ptx", module = pub Kernels)]
    unsafe extern "C" {
        pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
        pub fn empty4(a: *const f32, b: *const f32, c: *mut f32, n: u32);
    }
}

fn main() {
    assert_eq!(first::VectorAdd::NAME, second::VectorAdd::NAME);
    assert_eq!(first::Kernels::PTX, second::Kernels::PTX);
}
