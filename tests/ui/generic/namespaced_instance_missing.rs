// A template in a namespace: loading an instance the .cu lacks is a compile-time error listing
// every instance there is, each as C++ spells it.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/namespaces.ptx")]
unsafe extern "C" {
    #[kernel(cpp, namespace = "ns")]
    fn scale<const B: i32>(x: *mut f32, a: f32, n: u32);
}

fn load(module: &Arc<CudaModule>) {
    let _ = Scale::<128>::load(module); // instantiated: fine
    let _ = Scale::<64>::load(module);
}

fn main() {}
