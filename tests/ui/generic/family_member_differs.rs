// candle's affine_{T} declared with `mul: f32` where every member takes T: the f64, f16, bf16
// members differ in size.
use cuda_kernel::ffi::size_t;
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(name = "affine_{T}")]
    fn affine<T>(
        numel: size_t,
        num_dims: size_t,
        info: *const size_t,
        inp: *const T,
        out: *mut T,
        mul: f32,
        add: T,
    );
}

fn main() {}
