// A template over a value: loading an instance the .cu lacks, for values named at the call, is
// a compile-time error listing every instance there is.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn matrixMulCUDA<const BLOCK_SIZE: i32>(c: *mut f32, a: *mut f32, b: *mut f32, w_a: i32, w_b: i32);
}

fn load(module: &Arc<CudaModule>) {
    let _ = MatrixMulCUDA::<32>::load(module); // instantiated: fine
    let _ = MatrixMulCUDA::<64>::load(module);
}

fn main() {}
