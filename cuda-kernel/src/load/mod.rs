//! Loading: modules and process-wide libraries from PTX or compiled images, declared kernels
//! from them with each declaration checked against the driver's view, device globals, run-time
//! compilation and reading PTX.

pub(crate) mod cache;
pub(crate) mod check;
pub(crate) mod global;
pub(crate) mod kernel;
pub(crate) mod library;
pub(crate) mod module;
pub mod nvrtc;
pub mod ptx;
