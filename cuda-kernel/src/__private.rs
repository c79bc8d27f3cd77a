//! What `#[kernel]` and `#[derive(KernelParam)]` expand to refers to; not public API.

pub use crate::__layout as layout;
pub use crate::declare::args::{
    In, InUntyped, LaunchArg, LaunchArgs, Out, OutUntyped, Pack, Params, Tma, Val, Value, val,
};
pub use crate::declare::buffer::put;
pub use crate::declare::cuda_declaration::{
    ConstText, DECLARATION_CAPACITY, FieldDims, struct_declaration,
};
pub use crate::declare::symbol::{FamilySymbol, family_name, family_name_with, template_arg};
pub use crate::driver::module::{load_ptx, load_ptx_file};
pub use crate::driver::result::Entered;
pub use crate::graph::plan::{PlanKernel, PlanMut, PlanRef};
pub use crate::launch::observe::{Site, observing, refused};
pub use crate::launch::{contract, contract_holds, enter, launch, launch_packed, pack};
pub use crate::load::kernel::{Family, KernelInfo, SymbolOf};
pub use crate::load::module::{load_function, load_loaded};
pub use crate::param::layout::{struct_align, struct_size};
pub use crate::{
    AddressFree, Attributed, CType, Completion, Config, DeviceArg, DeviceArgMut, DeviceArgUntyped,
    DeviceArgUntypedMut, DeviceGlobal, Error, ExactLength, IntoConfig, Kernel, KernelCache,
    KernelParam, Library, Loaded, ParamBuffer, ParamBytes, ParamLayout, ParamSlot, RawTensorMap,
    Result, TensorMapArg,
};
pub use ::core;
pub use ::core::marker::PhantomData;
pub use ::core::panic::Location;
pub use ::cuda_kernel_syntax::itanium::{self, CppType, TemplateArg};
pub use ::cudarc;
pub use ::cudarc::driver::sys::CUdeviceptr;
pub use ::cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
pub use ::std::borrow::Cow;
pub use ::std::sync::Arc;

/// Whether `ty`'s named type (under its pointers) is `name`: the compile-time assertion of a
/// `cpp` kernel's struct parameter whose C++ name the PTX gives.
pub const fn same_name(ty: CType, name: &str) -> bool {
    let (a, b) = (ty.name.as_bytes(), name.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
