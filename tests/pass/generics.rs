// Generic declarations: C++ template instances named by their arguments, a family of extern "C"
// kernels named by a pattern, both checked against the PTX at compile time.
use cuda_kernel::ffi::size_t;
use cuda_kernel::half::{bf16, f16};
use cuda_kernel::kernel;

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u32);

    #[kernel(cpp)]
    fn matrixMulCUDA<const BLOCK_SIZE: i32>(
        c: *mut f32,
        #[kernel(read_only)] a: *mut f32,
        #[kernel(read_only)] b: *mut f32,
        w_a: i32,
        w_b: i32,
    );

    #[kernel(name = "affine_{T}")]
    fn affine<T>(
        numel: size_t,
        num_dims: size_t,
        info: *const size_t,
        inp: *const T,
        out: *mut T,
        mul: T,
        add: T,
    );
}

fn main() {
    assert_eq!(Reduce0::<f32>::symbol(), "_Z7reduce0IfEvPT_S1_j");
    assert_eq!(Reduce0::<i32>::symbol(), "_Z7reduce0IiEvPT_S1_j");
    assert_eq!(Reduce0::<f64>::LAYOUT.size, 20);
    assert_eq!(MatrixMulCUDA::<32>::symbol(), "_Z13matrixMulCUDAILi32EEvPfS0_S0_ii");
    assert_eq!(Affine::<f16>::symbol(), "affine_f16");
    assert_eq!(Affine::<bf16>::symbol(), "affine_bf16");
    assert_eq!(Affine::<u32>::symbol(), "affine_u32");
    // numel, num_dims, info, inp, out: 40 bytes; then two 2-byte halves.
    assert_eq!(Affine::<f16>::LAYOUT.size, 44);
    assert_eq!(Affine::<f64>::LAYOUT.size, 56);
    let packed = Affine::<f32>::pack(4, 1, 0, 0x1000, 0x2000, 2.0, 0.5);
    assert_eq!(packed.bytes()[40..44], 2.0f32.to_le_bytes());
}
