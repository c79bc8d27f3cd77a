use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/cxx_fixtures.ptx")]
unsafe extern "C" {
    #[kernel(name = "_Z5scaleIiEvPT_S0_j")]
    pub fn scale_i32(x: *mut i32, a: i32, n: u32);
}

fn main() {}
