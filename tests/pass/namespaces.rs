// Kernels in C++ namespaces: plain ones, templates over values and types, nested namespaces
// and one name in two namespaces, each found in the PTX at compile time, with nvcc's symbols.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::half::f16;
use cuda_kernel::{Kernel, KernelParam, kernel};

/// `ns::shapes::Interval`, a struct of a nested namespace.
#[derive(Clone, Copy, KernelParam)]
#[kernel_param(cuda_name = "ns::shapes::Interval")]
#[repr(C)]
struct Interval {
    lo: f32,
    hi: f32,
    n: u32,
}

// The namespace once for the block; a kernel of a nested one names its own.
#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/namespaces.ptx", cpp, namespace = "ns")]
unsafe extern "C" {
    fn scale<const B: i32>(x: *mut f32, a: f32, n: u32);

    fn plain(x: *mut f32);

    // Found in the PTX by its struct's C++ name, `ns::shapes::Interval`.
    fn spread(iv: Interval, offset: *const Interval, out: *mut f32);

    #[kernel(namespace = "ns::inner")]
    fn fill<T>(x: *mut T, v: T, n: u32);
}

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/namespaces.ptx")]
unsafe extern "C" {
    #[kernel(cpp, namespace = "other", rename = OtherPlain)]
    fn plain(x: *mut f32);
}

// Loading each instance for arguments named at the call compiles: the check found it.
#[allow(dead_code)]
fn load(module: &Arc<CudaModule>) {
    let _ = Scale::<128>::load(module);
    let _ = Fill::<f32>::load(module);
    let _ = Fill::<f16>::load(module);
}

fn main() {
    // nvcc 13.0's symbols (kernels/ptx/namespaces.ptx).
    assert_eq!(Scale::<128>::symbol(), "_ZN2ns5scaleILi128EEEvPffj");
    assert_eq!(Plain::NAME, "_ZN2ns5plainEPf");
    assert_eq!(OtherPlain::NAME, "_ZN5other5plainEPf");
    assert_eq!(Fill::<f16>::symbol(), "_ZN2ns5inner4fillI6__halfEEvPT_S3_j");
    // The PTX's symbol, and the one derived at load from the struct's CUDA name.
    let spread = "_ZN2ns6spreadENS_6shapes8IntervalEPKS1_Pf";
    assert_eq!(Spread::NAME, spread);
    assert_eq!(<Spread as Kernel>::symbol(), spread);
}
