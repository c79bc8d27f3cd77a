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

/// *Where it lives:* `#[kernel]` is defined in `cuda-kernel-macros` and re-exported as
/// `cuda_kernel::kernel`, whose page is its manual; depend on `cuda-kernel` and write
/// `use cuda_kernel::kernel;`.
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::kernel(args.into(), input.into()).into()
}

/// *Where it lives:* `#[derive(KernelParam)]` is defined in `cuda-kernel-macros` and
/// re-exported as `cuda_kernel::KernelParam`, whose page documents it; depend on `cuda-kernel`
/// and write `use cuda_kernel::KernelParam;`.
#[proc_macro_derive(KernelParam, attributes(kernel_param))]
pub fn derive_kernel_param(input: TokenStream) -> TokenStream {
    derive::kernel_param(input.into()).into()
}
