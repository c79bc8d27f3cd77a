// candle's port asked for members its PTX lacks (`affine_i16` here): with the PTX known, loading
// one for a type named at the call is a compile-time error listing the members there are.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(name = "affine_{T}")]
    fn affine<T>(
        numel: usize,
        num_dims: usize,
        info: *const usize,
        inp: *const T,
        out: *mut T,
        mul: T,
        add: T,
    );
}

fn load(module: &Arc<CudaModule>) {
    let _ = Affine::<f32>::load(module); // a member: fine
    let _ = Affine::<i16>::load(module);
}

fn main() {}
