//! The same source as the cuda-12080 crate, against cudarc with `static-linking`.
include!("../../cudarc-12080/src/lib.rs");
