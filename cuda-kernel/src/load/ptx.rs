//! Reading kernel signatures from PTX: what `#[kernel(ptx = "...")]` does at compile time, for
//! your own tools and tests at run time.
//!
//! [`entries`] lists every `.entry` of a PTX module with the size and alignment of each
//! parameter, as the device lays them out. Use it to see what nvcc made of a kernel, or to check
//! a PTX string you generate or compile at run time before loading it:
//!
//! ```
//! use cuda_kernel::{KernelParam, kernel, ptx};
//!
//! #[kernel]
//! unsafe extern "C" {
//!     fn scale(x: *mut f32, a: f32, n: u32);
//! }
//!
//! // What `nvcc -ptx` writes for `extern "C" __global__ void scale(float*, float, unsigned)`.
//! let text = "
//! .visible .entry scale(
//!     .param .u64 .ptr .align 1 scale_param_0,
//!     .param .f32 scale_param_1,
//!     .param .u32 scale_param_2
//! )
//! { ret; }
//! ";
//! let entries = ptx::entries(text)?;
//! let entry = ptx::find(&entries, Scale::NAME).expect("the PTX has the kernel");
//! assert_eq!(entry.params.len(), Scale::LAYOUT.params.len());
//! for (param, slot) in entry.params.iter().zip(Scale::LAYOUT.params) {
//!     assert_eq!((param.size, param.align), (slot.size, slot.align));
//! }
//! # Ok::<(), ptx::PtxError>(())
//! ```
//!
//! Malformed PTX is a [`PtxError`] naming the line, never a panic. The reader is the one the
//! macro uses (it lives in `cuda-kernel-syntax`, the front end the macro, the runtime and the
//! build step share).

#[doc(inline)]
pub use cuda_kernel_syntax::ptx::{Entry, PtxError, PtxParam, entries, find, mangled_matches};
