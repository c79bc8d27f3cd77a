// A template whose instances are over CUDA's class types: loading an instance the .cu lacks is
// a compile-time error listing every instance there is, each as the Rust that loads it.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::ffi::size_t;
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/class_templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn scale_kernel<T>(out: *mut T, input: *const T, s: f32, n: size_t, stride: isize);
}

fn load(module: &Arc<CudaModule>) {
    let _ = ScaleKernel::<cuda_kernel::half::bf16>::load(module); // instantiated: fine
    let _ = ScaleKernel::<f64>::load(module);
}

fn main() {}
