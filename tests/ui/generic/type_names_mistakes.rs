// `names(...)`: a name that cannot be part of a symbol, a type named twice; and a family whose
// members the names given do not match.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(name = "affine_{T}", names(f32 = "f 32"))]
    fn affine_a<T>(numel: usize, num_dims: usize, info: *const usize, inp: *const T, out: *mut T, mul: T, add: T);

    #[kernel(name = "affine_{T}", names(f32 = "float", f32 = "single"))]
    fn affine_b<T>(numel: usize, num_dims: usize, info: *const usize, inp: *const T, out: *mut T, mul: T, add: T);

    #[kernel(name = "affine_x{T}", names(f32 = "f32"))]
    fn affine_c<T>(numel: usize, num_dims: usize, info: *const usize, inp: *const T, out: *mut T, mul: T, add: T);
}

fn main() {}
