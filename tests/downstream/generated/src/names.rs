//! C++ names that are not Rust's (cuda/names.cu): every kernel declared, under names rustc
//! takes, by the rule of `Build::generate_declarations`.

include!(concat!(env!("OUT_DIR"), "/cuda-kernel/names.rs"));

/// A file whose host code calls CUB (cuda/toolkit.cu): its own kernel declared, CUB's counted
/// apart.
pub mod toolkit {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/toolkit.rs"));
}
