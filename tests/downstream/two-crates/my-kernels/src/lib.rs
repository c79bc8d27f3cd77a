//! The PTX this crate's build script compiled, for the crate that launches it.

/// `cuda/affine.cu` as PTX.
pub const AFFINE: &str = include_str!(concat!(env!("OUT_DIR"), "/affine.ptx"));
