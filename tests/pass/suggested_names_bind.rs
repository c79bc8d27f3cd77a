// The C++ names the errors suggest binding by (`#[kernel(name = "...")]`, as the demangled
// entry writes it) bind the entries they name.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(name = "reduce0<double>(double*, double*, unsigned int)")]
    fn reduce0(g_idata: *mut f64, g_odata: *mut f64, n: u32);
}

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/cxx_fixtures.ptx")]
unsafe extern "C" {
    #[kernel(name = "saxpy(float const*, float*, float, int)")]
    fn saxpy(x: *const f32, y: *mut f32, a: f32, n: i32);
}

fn main() {
    assert_eq!(Reduce0::NAME, "_Z7reduce0IdEvPT_S1_j");
    assert_eq!(Saxpy::NAME, "_Z5saxpyPKfPffi");
}
