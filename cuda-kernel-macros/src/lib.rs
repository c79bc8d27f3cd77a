//! Procedural macros of cuda-kernel. Use them through the `cuda-kernel` crate, which re-exports
//! them and documents them.

//!
//! The front end (declaration model, parsing, checks, PTX reading, C++ names) is
//! `cuda-kernel-syntax`, shared with the runtime and the build step; this crate expands.

mod code;
mod contract;
mod derive;
mod expand;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Declares CUDA kernels by their C signatures and generates a typed launcher for each.
///
/// See the `cuda-kernel` crate's documentation of `kernel`, which is the manual.
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::kernel(args.into(), input.into()).into()
}

/// Makes a `#[repr(C)]` struct a kernel parameter type.
///
/// See the `cuda-kernel` crate's documentation of `KernelParam`.
#[proc_macro_derive(KernelParam, attributes(kernel_param))]
pub fn derive_kernel_param(input: TokenStream) -> TokenStream {
    derive::kernel_param(input.into()).into()
}
