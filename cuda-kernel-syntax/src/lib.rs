//! The front end of [cuda-kernel](https://docs.rs/cuda-kernel), shared by its three tools the way
//! cxx shares `syntax/` between its macro and its build-script generator:
//!
//! - `#[kernel]` (`cuda-kernel-macros`) parses a declaration block, checks it, reads its PTX and
//!   expands it;
//! - the runtime (`cuda-kernel`) reads PTX signatures at run time and tests its parameter types
//!   against [`types`];
//! - the build step (`cuda-kernel-build`) reads the same declarations from a crate's sources to
//!   write the C prototypes nvcc checks kernels against.
//!
//! Nothing here depends on `proc_macro`, so every part is unit-tested and usable from a build
//! script. Users of cuda-kernel do not need this crate directly.
//!
//! ```
//! let ptx = ".visible .entry scale(\n .param .u64 scale_param_0,\n .param .f32 scale_param_1\n)\n{\n ret;\n}\n";
//! let entries = cuda_kernel_syntax::ptx::entries(ptx)?;
//! assert_eq!(entries[0].params[1].ty, ".f32");
//! let f32_type = cuda_kernel_syntax::types::primitive("f32").unwrap();
//! assert_eq!(f32_type.size, entries[0].params[1].size);
//! # Ok::<(), cuda_kernel_syntax::ptx::PtxError>(())
//! ```

#![warn(missing_docs)]

pub mod itanium;
pub mod ptx;
pub mod types;

#[cfg(feature = "syn")]
pub mod ast;
#[cfg(feature = "syn")]
pub mod attr;
#[cfg(feature = "syn")]
pub mod check;
#[cfg(feature = "syn")]
pub mod cuda;
#[cfg(feature = "syn")]
pub mod demangle;
#[cfg(feature = "syn")]
pub mod mangle;
#[cfg(feature = "syn")]
pub mod parse;
#[cfg(feature = "syn")]
pub mod ptx_check;
#[cfg(feature = "syn")]
pub mod report;
