// `module = Unary` beside `fn unary`: both would be `Unary`.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx", module = pub Affine)]
unsafe extern "C" {
    #[kernel(name = "affine_{T}")]
    fn affine<T>(numel: usize, num_dims: usize, info: *const usize, inp: *const T, out: *mut T, mul: T, add: T);
}

fn main() {}
