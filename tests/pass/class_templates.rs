// Templates over CUDA's class types (__half, __nv_bfloat16, FP8), over a struct in a C++
// namespace and over values of bool, char and an enum: every instance is found in the PTX at
// compile time, loading one names it at the call, and its symbol at load time is nvcc's.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::ffi::{c_char, size_t};
use cuda_kernel::half::{bf16, f16};
use cuda_kernel::low_precision::F8E4M3;
use cuda_kernel::{KernelParam, kernel};

#[derive(Clone, Copy, KernelParam)]
#[kernel_param(cuda_name = "geo::Pair")]
#[repr(C)]
struct Pair {
    a: i32,
    b: f32,
}

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/class_templates.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    fn scale_kernel<T>(out: *mut T, input: *const T, s: f32, n: size_t, stride: isize);

    #[kernel(cpp)]
    fn cast_kernel<In, Out>(out: *mut Out, input: *const In, n: i32);

    #[kernel(cpp)]
    fn combine<
        P,
        const SCALE: bool,
        const TAG: c_char,
        #[kernel(enum = "geo::Mode")] const MODE: i32,
    >(
        p: P,
        out: *mut f32,
        n: u32,
    );
}

// Loading each instance for types named at the call compiles: the compile-time check found it.
#[allow(dead_code)]
fn load(module: &Arc<CudaModule>) {
    let _ = ScaleKernel::<f32>::load(module);
    let _ = ScaleKernel::<f16>::load(module);
    let _ = ScaleKernel::<bf16>::load(module);
    let _ = CastKernel::<f32, bf16>::load(module);
    let _ = CastKernel::<f16, f32>::load(module);
    let _ = CastKernel::<F8E4M3, f32>::load(module);
}

fn main() {
    // nvcc 13.0's symbols (kernels/ptx/class_templates.ptx).
    assert_eq!(
        ScaleKernel::<f16>::symbol(),
        "_Z12scale_kernelI6__halfEvPT_PKS1_fml"
    );
    assert_eq!(
        ScaleKernel::<bf16>::symbol(),
        "_Z12scale_kernelI13__nv_bfloat16EvPT_PKS1_fml"
    );
    assert_eq!(
        CastKernel::<F8E4M3, f32>::symbol(),
        "_Z11cast_kernelI13__nv_fp8_e4m3fEvPT0_PKT_i"
    );
    assert_eq!(
        Combine::<Pair, true, 97, 1>::symbol(),
        "_Z7combineIN3geo4PairELb1ELc97ELNS0_4ModeE1EEvT_Pfj"
    );
    assert_eq!(
        Combine::<Pair, false, 98, 2>::symbol(),
        "_Z7combineIN3geo4PairELb0ELc98ELNS0_4ModeE2EEvT_Pfj"
    );
    assert!(Pair::CUDA_DECLARATION.starts_with("namespace geo {\nstruct Pair {"));
}
