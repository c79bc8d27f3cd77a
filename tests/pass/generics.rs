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
    run_time::check();
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

/// A struct of the user's own named like a kernel's launcher: `rename` names the launcher.
#[allow(dead_code)]
struct Unary;

mod run_time {
    use cuda_kernel::kernel;
    use cuda_kernel::low_precision::F8E4M3;

    #[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/templates.ptx", module = pub Kernels, names(F8E4M3 = "f8_e4m3"))]
    unsafe extern "C" {
        /// Named at run time: `{op}` is no generic parameter (`affine_f32` is op "affine").
        #[kernel(name = "{op}_{T}", rename = UnaryKernel)]
        pub fn unary<T>(
            numel: usize,
            num_dims: usize,
            info: *const usize,
            inp: *const T,
            out: *mut T,
            mul: T,
            add: T,
        );

        /// One kernel named at run time, without type parameters: `affine_f32` is its (more
        /// specific pattern), not `unary`'s.
        #[kernel(name = "{op}_f32")]
        pub fn any_f32(numel: usize, num_dims: usize, info: *const usize, inp: *const f32, out: *mut f32, mul: f32, add: f32);
    }

    /// Without a PTX to check against: a family whose FP8 member is `affine_f8_e4m3` (the
    /// block's `names`), and whose f16 member is named by the fn's own.
    #[kernel(names(F8E4M3 = "f8_e4m3"))]
    unsafe extern "C" {
        #[kernel(name = "affine_{T}", names(cuda_kernel::half::f16 = "half"))]
        pub fn affine<T>(numel: usize, num_dims: usize, info: *const usize, inp: *const T, out: *mut T, mul: T, add: T);
    }

    #[allow(dead_code)]
    fn generic<T: cuda_kernel::KernelParam + 'static>(kernels: &Kernels, op: &str) -> Result<(), cuda_kernel::Error> {
        let _: &UnaryKernel<T> = kernels.unary::<T>(op)?;
        let _ = kernels.launchers.get::<Affine<T>>()?;
        let _: &AnyF32 = kernels.any_f32(op)?;
        let _ = UnaryKernel::<f64>::load(&kernels.module, op)?;
        let _ = <UnaryKernel<T> as cuda_kernel::Kernel>::load_named(&kernels.module, op)?;
        Ok(())
    }

    pub fn check() {
        use cuda_kernel::Kernel;
        assert_eq!(UnaryKernel::<f32>::symbol_named("affine"), "affine_f32");
        assert_eq!(<UnaryKernel<f32> as Kernel>::symbol(), "{op}_f32");
        assert_eq!(<UnaryKernel<F8E4M3> as Kernel>::symbol_named("cast"), "cast_f8_e4m3");
        assert_eq!(<UnaryKernel<f32> as Kernel>::RUN_TIME_NAME, Some("op"));
        assert_eq!(Affine::<cuda_kernel::half::f16>::symbol(), "affine_half");
        assert_eq!(Affine::<F8E4M3>::symbol(), "affine_f8_e4m3");
        assert_eq!(AnyF32::symbol_named("affine"), "affine_f32");
    }
}
