use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/cxx_fixtures.ptx")]
unsafe extern "C" {
    #[kernel(name = "_Z5scaleIfEvPT_S0_j")]
    pub fn scale_f32(x: *mut f32, a: u32, n: u32);
}

fn main() {}
