use cuda_kernel::kernel;

// saxpy takes `int n` in C++: with u32 the derived symbol is _Z5saxpyPKfPffj, not in the PTX.
#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/cxx_fixtures.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    pub fn saxpy(x: *const f32, y: *mut f32, a: f32, n: u32);
}

fn main() {}
