//! The backend's kernels, declared from their CUDA sources by the build step
//! (`Build::generate_declarations`): one module per `.cu` file, each kernel declared as the
//! file defines it, the ops of a file chosen by name at run time through the families the
//! build script names (`u{op}_{T}`: `uexp_f32`, `usqrt_bf16`, ...), and every declaration
//! checked at compile time against the PTX it launches from. `build.rs` says which families;
//! `ptx/*.rs` holds the generated text for machines without nvcc.
//!
//! [`checked`] declares the same kernels by hand with contracts, beside the generated ones.

/// `unary.cu`: `unary` (`u{op}_{T}`) and `powf` (`upowf_{T}`).
pub mod unary {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/unary.rs"));
}

/// `binary.cu`: `binary` (`b{op}_{T}`) and `cmp` (`{op}_{T}`).
pub mod binary {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/binary.rs"));
}

/// `cast.cu`: `cast` (`cast_{T}_{U}`, found by the build step).
pub mod cast {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/cast.rs"));
}

/// `reduce.cu`: `reduce` (`fast_{op}_{T}`).
pub mod reduce {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/reduce.rs"));
}

/// `where_index.cu`: `where_cond` (`where_{I}_{T}`) and `index_select` (`is_{I}_{T}`).
pub mod where_index {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/where_index.rs"));
}

pub mod checked;

pub use binary::{Binary, Cmp, Kernels as BinaryKernels};
pub use cast::{Cast, Kernels as CastKernels};
pub use reduce::{Kernels as ReduceKernels, Reduce};
pub use unary::{Kernels as UnaryKernels, Powf, Unary};
pub use where_index::{IndexSelect, Kernels as SelectKernels, WhereCond};
