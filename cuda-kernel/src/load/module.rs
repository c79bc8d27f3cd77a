//! Loading declared kernels from modules, each declaration checked against the driver's view
//! of its kernel. (Modules themselves load in the driver's room, `driver::module`.)

use std::ffi::CString;
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule, sys};

use crate::driver::module::remembered_count;
use crate::driver::{require, result};
use crate::load::check::{check_signature, unplaced};
use crate::{Error, ParamLayout};

/// Looks up the kernel `name` in `module` and checks its parameters against `layout`: what a
/// launcher's [`Kernel::load`](crate::Kernel::load) does.
///
/// The check asks the driver for each parameter's offset and size (`cuFuncGetParamInfo`) and
/// returns [`Error::SignatureMismatch`] on any difference, including a different parameter
/// count. It works the same for modules loaded from PTX, cubin or fatbin. Drivers older than
/// CUDA 12.4 lack the call: there the check is skipped and the declaration is trusted.
///
/// It makes no failing driver call (which compute-sanitizer would report) where the parameter
/// count is known: from the driver (`cuFuncGetParamCount`, CUDA 13.2+), or from the image of a
/// module this crate loaded (PTX, a cubin, a fatbin's uncompressed cubins or PTX). Otherwise
/// it asks for one parameter past the declared ones, which the driver refuses unless the
/// kernel takes more.
pub fn load_function(
    module: &Arc<CudaModule>,
    name: &str,
    layout: &ParamLayout,
) -> Result<CudaFunction, Error> {
    load_placed(module, name, layout).map(|(function, _)| function)
}

/// [`load_function`], with the layout the function places its parameters in where `layout`
/// is not [fixed](ParamLayout::is_fixed) (a parameter aligned above 16 bytes): the driver's
/// offsets, which every launch of it uses. A driver that cannot report them (older than CUDA
/// 12.4) is [`Error::UnplacedParam`].
pub(crate) fn load_placed(
    module: &Arc<CudaModule>,
    name: &str,
    layout: &ParamLayout,
) -> Result<(CudaFunction, Option<ParamLayout>), Error> {
    require()?;
    // cudarc's load_function panics on an interior NUL; no entry can have one anyway.
    if CString::new(name).is_err() {
        return Err(Error::KernelNotFound {
            kernel: name.into(),
        });
    }
    let function = module.load_function(name).map_err(|e| match e.0 {
        sys::CUresult::CUDA_ERROR_NOT_FOUND => Error::KernelNotFound {
            kernel: name.into(),
        },
        _ => Error::Driver {
            call: "cuModuleGetFunction",
            source: e,
        },
    })?;
    if !result::has_param_info()? {
        return unplaced(name, layout).map(|()| (function, None));
    }
    let handle = function.cu_function();
    let count = match result::func_param_count(handle)? {
        Some(count) => Some(count),
        None => remembered_count(module, name),
    };
    let placed = check_signature(name, layout, count, |index| {
        result::func_param_info(handle, index)
    })?;
    Ok((function, placed))
}

/// The kernel `name` of `module` as a launcher holds it: checked against `layout`, with the
/// driver's offsets where the GPU places a parameter ([`load_placed`]). What tests of run-time
/// signatures load through.
#[doc(hidden)]
pub fn load_loaded(
    module: &Arc<CudaModule>,
    name: &str,
    layout: &ParamLayout,
) -> Result<crate::Loaded, Error> {
    let (function, placed) = load_placed(module, name, layout)?;
    Ok(crate::Loaded::module(function, name).with_layout(placed))
}
