// A launcher named as the trait #[kernel] gives a generic launcher's instances in the PTX
// (`ReduceInPtx` of `Reduce`): one error at the second kernel's name, not a clash of items.
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u32);

    #[kernel(name = "affine_f32")]
    fn reduce0_in_ptx(
        numel: usize,
        num_dims: usize,
        info: *const usize,
        inp: *const f32,
        out: *mut f32,
        mul: f32,
        add: f32,
    );
}

fn main() {}
