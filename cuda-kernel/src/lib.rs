//! Typed CUDA kernel launches.
//!
//! Declare a kernel's C signature once, as an `extern "C"` block under [`#[kernel]`](kernel),
//! and launch it through a generated type whose `launch` method the Rust compiler checks. The
//! arguments are packed into one buffer exactly as the device lays out the parameters (see
//! [`ParamLayout`]) and passed to `cuLaunchKernel` through `CU_LAUNCH_PARAM_BUFFER_POINTER`.
//!
//! # The recommended route
//!
//! A `.cu` file in your crate, compiled by the build step of
//! [`cuda-kernel-build`](https://docs.rs/cuda-kernel-build), and a `#[kernel]` block naming the
//! PTX it writes. `Cargo.toml` has `cuda-kernel` as a dependency and `cuda-kernel-build` as a
//! build dependency (the README says where to get them, and how to get nvcc for the first
//! build). `cuda/scale.cu`:
//!
//! ```cuda
//! extern "C" __global__ void scale(float *x, float a, unsigned int n)
//! {
//!     unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < n) x[i] *= a;
//! }
//! ```
//!
//! `build.rs`:
//!
//! ```rust,ignore
//! fn main() {
//!     cuda_kernel_build::Build::new()
//!         .file("cuda/scale.cu")        // nvcc -> $OUT_DIR/scale.ptx
//!         .declarations("src/main.rs")  // where the #[kernel] blocks are
//!         .committed_ptx("ptx")         // kept for machines without nvcc
//!         .compile();
//! }
//! ```
//!
//! `src/main.rs`:
//!
//! ```rust,ignore
//! use cuda_kernel::{Config, kernel};
//!
//! #[kernel(ptx = "$OUT_DIR/scale.ptx", module = Kernels)]
//! unsafe extern "C" {
//!     fn scale(x: *mut f32, a: f32, n: u32);
//! }
//!
//! fn main() -> Result<(), cuda_kernel::Error> {
//!     let ctx = cuda_kernel::driver::context(0)?; // without a GPU: the one line of the error
//!     let stream = ctx.default_stream();
//!     let kernels = Kernels::load(&ctx)?; // PTX embedded at compile time, every kernel checked
//!     let mut x = stream.clone_htod(&vec![1.0f32; 1000])?;
//!     // SAFETY: scale touches indices below n of a buffer of n floats.
//!     unsafe { kernels.scale.launch(&stream, Config::for_elements(1000, 256), &mut x, 2.0, 1000)? };
//!     assert!(stream.clone_dtoh(&x)?.iter().all(|&v| v == 2.0));
//!     Ok(())
//! }
//! ```
//!
//! Each part checks the others: nvcc compiles the `.cu` against a header declaring `scale` as
//! the Rust declaration does, so a definition taking other C types fails to compile; `#[kernel]`
//! reads the PTX at compile time (the kernel is there, with that many parameters of those
//! sizes); [`Config`] is checked against the device before the launch; and loading compares
//! the declaration with the parameters the driver reports ([`Error::SignatureMismatch`]). The
//! first build with nvcc writes `ptx/scale.ptx`: commit it, and machines without nvcc (docs.rs,
//! CI) build from it. [`#[kernel]`](kernel)'s page is the manual.
//!
//! # PTX from elsewhere
//!
//! PTX that another tool made, or NVRTC at run time ([`nvrtc`]), loads into a module, from
//! which each launcher loads:
//!
//! ```no_run
//! use cuda_kernel::{Config, kernel};
//!
//! #[kernel]
//! unsafe extern "C" {
//!     /// c[i] = a[i] + b[i] for i < n
//!     pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # const VECTOR_ADD_PTX: &str = "";
//! // PTX from nvcc, for example include_str!("../ptx/vector_add.ptx")
//! let ctx = cuda_kernel::driver::context(0)?;
//! let stream = ctx.default_stream();
//! let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
//! let kernel = VectorAdd::load(&module)?;
//!
//! let n = 1 << 20;
//! let a = stream.clone_htod(&vec![1.0f32; n])?;
//! let b = stream.clone_htod(&vec![2.0f32; n])?;
//! let mut c = stream.alloc_zeros::<f32>(n)?;
//! // SAFETY: vector_add reads a and b and writes c at indices below n, all of length n.
//! unsafe { kernel.launch(&stream, Config::for_elements(n as u32, 256), &a, &b, &mut c, n as u32)? };
//! assert!(stream.clone_dtoh(&c)?.iter().all(|&x| x == 3.0));
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

#[cfg(not(target_endian = "little"))]
compile_error!("cuda-kernel packs parameters for little-endian GPUs from a little-endian host");

// What a launch calls is `#[inline(always)]` in an optimized build only (`cfg_attr`): in a
// debug build such a function is compiled into every codegen unit of the crate that launches
// (rustc makes a local copy per unit so that LLVM can inline it), where `#[inline]` makes one
// shared copy; a backend generic over its dtypes compiled 488 copies fewer (docs/BENCHMARKS.md).
// `tests/layers.rs` keeps every `#[inline(always)]` of this crate so.

// The rooms, along the path of a launch: declare and pack, load, launch, graphs and plans; the
// driver's room holds every raw driver call.
mod config;
mod declare;
pub mod diagnostics;
pub mod driver;
mod error;
pub mod graph;
mod launch;
mod load;
mod param;
mod presence;

#[doc(hidden)]
pub mod __private;

/// What generated code glob-imports: the runtime under a short name, once per module however
/// many `#[kernel]` blocks it holds (identical glob imports do not clash). Not public API.
#[doc(hidden)]
pub mod __prelude {
    pub use crate::__private as __ck;
    // The runtime's names the launcher's text writes most, each as one identifier: a path
    // `__ck::Kernel` is four tokens for the compiler to lex, parse, resolve and lower (200
    // declarations: 2% of their build).
    pub use crate::__private::{
        Arc as __ck_Arc, CUdeviceptr as __ck_CUdeviceptr, CudaFunction as __ck_CudaFunction,
        CudaModule as __ck_CudaModule, CudaStream as __ck_CudaStream, DeviceArg as __ck_DeviceArg,
        DeviceArgMut as __ck_DeviceArgMut, DeviceArgUntyped as __ck_DeviceArgUntyped,
        DeviceArgUntypedMut as __ck_DeviceArgUntypedMut, ExactLength as __ck_ExactLength,
        In as __ck_In, InUntyped as __ck_InUntyped, IntoConfig as __ck_IntoConfig,
        Kernel as __ck_Kernel, LaunchArg as __ck_LaunchArg, Library as __ck_Library,
        Out as __ck_Out, OutUntyped as __ck_OutUntyped, ParamBytes as __ck_ParamBytes,
        ParamLayout as __ck_ParamLayout, RawTensorMap as __ck_RawTensorMap, Result as __ck_Result,
        TensorMapArg as __ck_TensorMapArg, Tma as __ck_Tma, Val as __ck_Val,
        contract as __ck_contract, core as __ck_core, launch as __ck_launch, layout as __ck_layout,
        pack as __ck_pack, val as __ck_val,
    };
}

#[doc = include_str!("kernel_param.md")]
pub use cuda_kernel_macros::KernelParam;
#[doc = include_str!("kernel.md")]
pub use cuda_kernel_macros::kernel;

pub use config::{
    AttributeLimits, Attributes, Config, DEFAULT_SHARED_MEMORY_LIMIT, DeviceLimits, MemSyncDomain,
    MemSyncDomainMap, occupancy_block_size, raise_shared_memory_limit,
};
pub use declare::buffer::{ParamBuffer, ParamBytes};
pub use declare::cuda_declaration::{cuda_header, write_cuda_header};
pub use declare::device_arg::{
    DeviceArg, DeviceArgMut, DeviceArgUntyped, DeviceArgUntypedMut, DeviceMemory, ExactLength, Null,
};
pub use declare::tensor_map::{
    Im2col, Interleave, L2Promotion, OobFill, RawTensorMap, Swizzle, TensorMap, TensorMapArg,
    TensorMapElement, TensorMapMut, TensorMapShape, Tiled,
};
#[doc(no_inline)]
pub use declare::vector::*;
pub use declare::{ffi, low_precision, vector};
pub use error::{Error, LaunchError, SignatureMismatch};
pub use graph::plan::{self, Plan, PlanMut, PlanNode, PlanRef, PlanTensorMap};
pub use launch::attributes::{
    AccessProperty, Attributed, IntoConfig, L2Window, ProgrammaticEvent, reset_persisting_l2,
    set_persisting_l2,
};
pub use launch::completion::{Completion, HostCopy, Wakeup, copy_to_host, copy_to_vec};
pub use load::cache::KernelCache;
pub use load::global::DeviceGlobal;
pub use load::kernel::Kernel;
pub use load::library::{Library, LibraryKernel, Loaded};
pub use load::{nvrtc, ptx};
pub use param::layout::{
    MAX_ALIGN, MAX_PARAM_BYTES, MAX_PARAM_BYTES_LEGACY, MAX_STATIC_ALIGN, ParamLayout, ParamSlot,
};
pub use param::{AddressFree, CType, KernelParam};

/// `Result` with this crate's [`Error`]: what loading and launching return.
///
/// ```
/// fn grid(n: u32) -> cuda_kernel::Result<cuda_kernel::Config> {
///     Ok(cuda_kernel::Config::for_elements(n, 256))
/// }
/// assert_eq!(grid(1000).unwrap().grid, (4, 1, 1));
/// ```
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// The CUDA bindings cuda-kernel builds on (driver API, dynamic loading).
pub use cudarc;
/// Half-precision floats: `half::f16` is CUDA's `__half`, `half::bf16` its `__nv_bfloat16`.
pub use half;
