//! Declaring and packing: what a parameter is ([`KernelParam`](crate::KernelParam)), where it
//! goes ([`ParamLayout`](crate::ParamLayout)), what a pointer argument may be
//! ([`DeviceArg`](crate::DeviceArg)), the buffer a launch sends, and the [`Kernel`](crate::Kernel)
//! trait a generated launcher implements.

pub(crate) mod args;
pub(crate) mod buffer;
pub(crate) mod cuda_declaration;
pub(crate) mod device_arg;
pub mod ffi;
pub mod low_precision;
pub(crate) mod plan_handles;
pub(crate) mod symbol;
pub(crate) mod tensor_map;
pub mod vector;
