//! Typed CUDA kernel launches.
//!
//! Declare a kernel's C signature once, as an `extern "C"` block under [`#[kernel]`](kernel),
//! and launch it through a generated type whose `launch` method the Rust compiler checks:
//!
//! ```no_run
//! use cuda_kernel::kernel;
//! use cuda_kernel::cudarc::driver::LaunchConfig;
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
//! unsafe { kernel.launch(&stream, LaunchConfig::for_num_elems(n as u32), &a, &b, &mut c, n as u32)? };
//! assert!(stream.clone_dtoh(&c)?.iter().all(|&x| x == 3.0));
//! # Ok(())
//! # }
//! ```
//!
//! The arguments are packed into one buffer exactly as the device lays out the parameters (see
//! [`ParamLayout`]) and passed to `cuLaunchKernel` through `CU_LAUNCH_PARAM_BUFFER_POINTER`.
//! Loading compares the declaration with the parameters the driver reports for the kernel and
//! refuses a mismatch ([`Error::SignatureMismatch`]).

#![warn(missing_docs)]

#[cfg(not(target_endian = "little"))]
compile_error!("cuda-kernel packs parameters for little-endian GPUs from a little-endian host");

// The rooms, along the path of a launch: declare and pack, load, launch, graphs and plans; the
// driver's room holds every raw driver call.
mod declare;
pub mod diagnostics;
pub mod driver;
mod error;
pub mod graph;
mod launch;
mod load;

#[doc(hidden)]
pub mod __private;

/// What generated code glob-imports: the runtime under a short name, once per module however
/// many `#[kernel]` blocks it holds (identical glob imports do not clash). Not public API.
#[doc(hidden)]
pub mod __prelude {
    pub use crate::__private as __ck;
}

#[doc = include_str!("kernel_param.md")]
pub use cuda_kernel_macros::KernelParam;
#[doc = include_str!("kernel.md")]
pub use cuda_kernel_macros::kernel;

pub use declare::buffer::{ParamBuffer, ParamBytes};
pub use declare::cuda_declaration::{cuda_header, write_cuda_header};
pub use declare::device_arg::{
    DeviceArg, DeviceArgMut, DeviceArgUntyped, DeviceArgUntypedMut, DeviceMemory, ExactLength, Null,
};
pub use declare::kernel::Kernel;
pub use declare::layout::{
    MAX_ALIGN, MAX_PARAM_BYTES, MAX_PARAM_BYTES_LEGACY, MAX_STATIC_ALIGN, ParamLayout, ParamSlot,
};
pub use declare::param::{AddressFree, CType, KernelParam};
pub use declare::tensor_map::{
    Im2col, Interleave, L2Promotion, OobFill, RawTensorMap, Swizzle, TensorMap, TensorMapArg,
    TensorMapElement, TensorMapMut, TensorMapShape, Tiled,
};
#[doc(no_inline)]
pub use declare::vector::*;
pub use declare::{ffi, low_precision, vector};
pub use error::{Error, LaunchError, SignatureMismatch};
pub use graph::plan::{self, Plan, PlanMut, PlanNode, PlanRef, PlanTensorMap};
pub use launch::completion::{Completion, HostCopy, Wakeup, copy_to_host, copy_to_vec};
pub use launch::config::{
    Config, DEFAULT_SHARED_MEMORY_LIMIT, DeviceLimits, occupancy_block_size,
    raise_shared_memory_limit,
};
pub use load::cache::KernelCache;
pub use load::global::DeviceGlobal;
pub use load::library::{Library, LibraryKernel, Loaded};
pub use load::{nvrtc, ptx};

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
