// A template instance the Rust code loads but the .cu never instantiates: with the PTX known,
// loading it for a type named at the call is a compile-time error naming the explicit
// instantiation to add, not a failed load on the GPU.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u32);
}

fn load(module: &Arc<CudaModule>) {
    let _ = Reduce0::<f32>::load(module); // instantiated: fine
    let _ = Reduce0::<u8>::load(module);
}

fn main() {}
