// Generic code loads a template's instance for its type parameter where the parameter is
// bounded by the instances' trait; the callers' types are checked against the PTX.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::{KernelParam, kernel};

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u32);
}

fn load<T: KernelParam>(module: &Arc<CudaModule>) -> Result<Reduce0<T>, cuda_kernel::Error>
where
    Reduce0<T>: Reduce0InPtx<T>, // implemented for f32, i32 and f64, the PTX's instances
{
    Reduce0::<T>::load(module)
}

#[allow(dead_code)]
fn callers(module: &Arc<CudaModule>) {
    let _ = load::<f32>(module);
    let _ = load::<f64>(module);
}

fn main() {}
