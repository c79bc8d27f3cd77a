// A kernel named at run time (`{op}_{T}` matches every affine member of the PTX) declared with
// a `u32` where every member takes a size_t: one error naming the members.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(name = "{op}_{T}")]
    fn elementwise<T>(
        numel: u32,
        num_dims: usize,
        info: *const usize,
        inp: *const T,
        out: *mut T,
        mul: T,
        add: T,
    );
}

fn main() {}
