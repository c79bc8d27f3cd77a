use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/cxx_fixtures.ptx")]
unsafe extern "C" {
    pub fn saxpy(x: *const f32, y: *mut f32, a: f32, n: i32);
}

fn main() {}
