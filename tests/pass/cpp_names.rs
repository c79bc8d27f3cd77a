// Kernels bound by their C++ names: an anonymous namespace's, an overload by its parameter
// list, a value written as C++ writes it.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/cpp_names.ptx")]
unsafe extern "C" {
    #[kernel(name = "(anonymous namespace)::anon_fill")]
    pub fn anon_fill(p: *mut f32, v: f32, n: i32);

    #[kernel(name = "k_bin < op_repeat , float >")]
    pub fn k_bin_repeat(a: *const f32, dst: *mut f32, n: i32);
}

#[kernel(ptx = "$CUDA_KERNEL_REPO/tests/ui/ptx/fixtures/overloads.ptx")]
unsafe extern "C" {
    #[kernel(name = "fill(double*, int)")]
    pub fn fill_f64(x: *mut f64, n: i32);
}

fn main() {
    assert_eq!(FillF64::NAME, "_Z4fillPdi");
}
