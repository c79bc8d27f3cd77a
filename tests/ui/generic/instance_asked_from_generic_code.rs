// A template's launcher asked for a type parameter of generic code: the error says what generic
// code writes (the bound, which tests/pass/generic_code_bounds_on_instances.rs shows compiles),
// not an instance to add for the letter `T`.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u32);
}

fn load<T: cuda_kernel::KernelParam>(module: &Arc<CudaModule>) {
    let _ = Reduce0::<T>::load(module);
}

fn main() {}
