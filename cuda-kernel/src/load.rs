//! Loading: modules from PTX text or compiled images, and declared kernels from modules, with
//! each declaration checked against the driver's view of its kernel.

use std::ffi::CString;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, sys};

use crate::driver::require;
use crate::{Error, ParamLayout, SignatureMismatch};

/// First driver version with `cuFuncGetParamInfo` and `cuKernelGetParamInfo` (CUDA 12.4).
pub(crate) const PARAM_INFO_DRIVER: i32 = 12_040;

/// Looks up the kernel `name` in `module` and checks its parameters against `layout`.
///
/// The check asks the driver for each parameter's offset and size (`cuFuncGetParamInfo`) and
/// returns [`Error::SignatureMismatch`] on any difference, including a different parameter
/// count. It works the same for modules loaded from PTX, cubin or fatbin. Drivers older than
/// CUDA 12.4 lack the call: there the check is skipped and the declaration is trusted.
pub fn load_function(
    module: &Arc<CudaModule>,
    name: &str,
    layout: &ParamLayout,
) -> Result<CudaFunction, Error> {
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
    if crate::driver::version()? >= PARAM_INFO_DRIVER {
        if let Some(param_info) = func_get_param_info() {
            let handle = function.cu_function();
            check_signature("cuFuncGetParamInfo", name, layout, |index, offset, size| {
                // SAFETY: the function handle is alive (held by `function`); the out-pointers
                // are valid; `param_info` is the driver's own cuFuncGetParamInfo.
                unsafe { param_info(handle, index, offset, size) }
            })?;
        }
    }
    Ok(function)
}

/// `cuFuncGetParamInfo`'s signature.
type FuncGetParamInfo =
    unsafe extern "C" fn(sys::CUfunction, usize, *mut usize, *mut usize) -> sys::CUresult;

/// The driver's `cuFuncGetParamInfo` (CUDA 12.4+), asked of the driver itself rather than of
/// cudarc's bindings, which follow the CUDA version the user's crate picked. Looked up once.
fn func_get_param_info() -> Option<FuncGetParamInfo> {
    static ENTRY: OnceLock<Option<FuncGetParamInfo>> = OnceLock::new();
    *ENTRY.get_or_init(|| {
        crate::driver::entry_point("cuFuncGetParamInfo", PARAM_INFO_DRIVER)
            // SAFETY: the driver's entry point of this name and version has this signature.
            .map(|pfn| unsafe {
                std::mem::transmute::<*mut std::ffi::c_void, FuncGetParamInfo>(pfn)
            })
    })
}

/// Compares `layout` with the offsets and sizes the driver reports for `function`.
/// `param_info(index, &mut offset, &mut size)` is the driver's answer for one parameter
/// (`cuFuncGetParamInfo` of a function, `cuKernelGetParamInfo` of a library's kernel).
pub(crate) fn check_signature(
    call: &'static str,
    name: &str,
    layout: &ParamLayout,
    mut param_info: impl FnMut(usize, &mut usize, &mut usize) -> sys::CUresult,
) -> Result<(), Error> {
    let mut loaded = Vec::with_capacity(layout.params.len());
    // One index past the declared count as well: a function with more parameters answers it.
    for index in 0..=layout.params.len() {
        let (mut offset, mut size) = (0usize, 0usize);
        match param_info(index, &mut offset, &mut size) {
            sys::CUresult::CUDA_SUCCESS => loaded.push((offset, size)),
            // Past the last parameter.
            sys::CUresult::CUDA_ERROR_INVALID_VALUE => break,
            code => {
                return Err(Error::Driver {
                    call,
                    source: cudarc::driver::DriverError(code),
                });
            }
        }
    }
    let matches = loaded.len() == layout.params.len()
        && layout
            .params
            .iter()
            .zip(&loaded)
            .all(|(p, &(offset, size))| (p.offset, p.size) == (offset, size));
    if matches {
        Ok(())
    } else {
        Err(Error::SignatureMismatch(Box::new(SignatureMismatch {
            kernel: name.into(),
            declared: *layout,
            loaded,
        })))
    }
}

/// Loads PTX text (for example a kernels crate's `include_str!` of a `.ptx` file) as a module.
///
/// Returns [`Error::InvalidPtx`] for text containing a NUL byte (which the driver cannot take)
/// and the driver's error, typically `CUDA_ERROR_INVALID_PTX` or
/// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` (PTX newer than the driver), otherwise.
///
/// ```no_run
/// # const VECTOR_ADD_PTX: &str = "";
/// // PTX from nvcc, for example include_str!("../ptx/vector_add.ptx")
/// let ctx = cuda_kernel::driver::context(0)?;
/// let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
/// # Ok::<(), cuda_kernel::Error>(())
/// ```
pub fn load_ptx(ctx: &Arc<CudaContext>, ptx: &str) -> Result<Arc<CudaModule>, Error> {
    require()?;
    if ptx.contains('\0') {
        return Err(Error::InvalidPtx("the text contains a NUL byte"));
    }
    ctx.load_module(cudarc::nvrtc::Ptx::from_src(ptx))
        .map_err(Error::driver("cuModuleLoadData"))
}

/// Loads a compiled module image: a cubin or a fatbin (as nvcc writes them), or PTX text as bytes.
///
/// `#[kernel]` launchers loaded from such a module are checked against the driver's view of
/// the kernels exactly as for PTX text (see [`load_ptx`]). The driver reads PTX up to a NUL
/// byte, so bytes that are neither an ELF cubin nor a fatbin are taken as PTX text and loaded
/// through [`load_ptx`] (which terminates them); bytes that are not UTF-8 either are
/// [`Error::InvalidPtx`], never handed to the driver to read past their end.
///
/// ```no_run
/// let ctx = cuda_kernel::driver::context(0)?;
/// let cubin = std::fs::read("vector_add.cubin").expect("nvcc -cubin output");
/// let module = cuda_kernel::driver::load_image(&ctx, &cubin)?;
/// # Ok::<(), cuda_kernel::Error>(())
/// ```
pub fn load_image(ctx: &Arc<CudaContext>, image: &[u8]) -> Result<Arc<CudaModule>, Error> {
    require()?;
    if is_binary_image(image) {
        return ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(image.to_vec()))
            .map_err(Error::driver("cuModuleLoadData"));
    }
    match std::str::from_utf8(image) {
        Ok(text) => load_ptx(ctx, text.trim_end_matches('\0')),
        Err(_) => Err(Error::InvalidPtx(
            "the image is neither a cubin, a fatbin, nor PTX text",
        )),
    }
}

/// Whether `image` starts as an ELF cubin or a fatbin does; the driver finds their sizes in
/// their headers.
pub(crate) fn is_binary_image(image: &[u8]) -> bool {
    const ELF: &[u8] = b"\x7fELF";
    const FATBIN: [u8; 4] = 0xBA55_ED50u32.to_le_bytes();
    image.starts_with(ELF) || image.starts_with(&FATBIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cubins_and_fatbins_reach_the_driver_as_binaries() {
        assert!(is_binary_image(b"\x7fELF\x02\x01\x01"));
        assert!(is_binary_image(&[0x50, 0xed, 0x55, 0xba, 1, 0]));
        assert!(!is_binary_image(b".version 9.0\n.target sm_90"));
        assert!(!is_binary_image(b""));
    }
}
