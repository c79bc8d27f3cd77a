use cuda_kernel::kernel;

// `k_bin<op_add, float, int>` takes floats: declared over doubles, the type is the mistake.
#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/cpp_names.ptx")]
unsafe extern "C" {
    #[kernel(name = "k_bin<op_add, float, int>")]
    pub fn k_bin_add(a: *const f64, dst: *mut f32, n: i32, extra: i32);
}

fn main() {}
