//! The same source as the cuda-12080 crate, built against cudarc's CUDA 13.0 bindings.
include!("../../cudarc-12080/src/lib.rs");
