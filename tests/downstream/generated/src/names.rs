//! C++ names that are not Rust's (cuda/names.cu): every kernel declared, under names rustc
//! takes, by the rule of `Build::generate_declarations`.

include!(concat!(env!("OUT_DIR"), "/cuda-kernel/names.rs"));
