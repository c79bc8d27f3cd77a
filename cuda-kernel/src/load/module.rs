//! Loading: modules from PTX text or compiled images, and declared kernels from modules, with
//! each declaration checked against the driver's view of its kernel.

use std::ffi::CString;
use std::sync::{Arc, Mutex, Weak};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, sys};

use crate::driver::image::Image;
use crate::driver::params::ParamCounts;
use crate::driver::{require, result};
use crate::{Error, ParamLayout, SignatureMismatch};

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

/// Where the driver cannot report parameter offsets: fine for a fixed layout (the declaration
/// is trusted), [`Error::UnplacedParam`] for one with a parameter only the driver can place.
pub(crate) fn unplaced(name: &str, layout: &ParamLayout) -> Result<(), Error> {
    match layout.params.get(layout.fixed) {
        None => Ok(()),
        Some(param) => Err(Error::UnplacedParam {
            kernel: name.into(),
            param: param.name,
            align: param.align,
        }),
    }
}

/// Compares `layout` with the offsets and sizes the driver reports for a kernel:
/// `param_info(index)` is its answer for one parameter, `None` past the last
/// (`cuFuncGetParamInfo` of a function, `cuKernelGetParamInfo` of a library's kernel). With
/// the function's parameter `count` known (`cuFuncGetParamCount`), no index past it is asked;
/// without it, one index past the declared count is, which a function with more parameters
/// answers.
///
/// Returns the layout the function places its parameters in where `layout` is not
/// [fixed](ParamLayout::is_fixed): the driver's offsets ([`ParamLayout::placed`]).
pub(crate) fn check_signature(
    name: &str,
    layout: &ParamLayout,
    count: Option<usize>,
    mut param_info: impl FnMut(usize) -> Result<Option<(usize, usize)>, Error>,
) -> Result<Option<ParamLayout>, Error> {
    let asked = match count {
        Some(count) => count.min(layout.params.len() + 1),
        None => layout.params.len() + 1,
    };
    let mut loaded = Vec::with_capacity(asked);
    for index in 0..asked {
        match param_info(index)? {
            Some(param) => loaded.push(param),
            None => break,
        }
    }
    if layout.misfit(&loaded).is_none() {
        Ok(if layout.is_fixed() {
            None
        } else {
            layout.placed(&loaded)
        })
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
    load(ctx, Image::ptx(ptx)?)
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
    load(ctx, Image::bytes(image)?)
}

/// [`load_ptx`] naming the file the PTX came from in a JIT error: what a block's module type
/// calls.
#[doc(hidden)]
pub fn load_ptx_file(
    ctx: &Arc<CudaContext>,
    ptx: &str,
    file: &'static str,
) -> Result<Arc<CudaModule>, Error> {
    require()?;
    let image = Image::ptx(ptx)?;
    load(ctx, image).map_err(|e| match e {
        Error::Jit {
            call, source, log, ..
        } => Error::Jit {
            call,
            file: Some(file),
            source,
            log,
        },
        other => other,
    })
}

fn load(ctx: &Arc<CudaContext>, image: Image<'_>) -> Result<Arc<CudaModule>, Error> {
    // cudarc makes `ctx` current to load; the caller's context is given back after.
    let _entered = result::enter(ctx)?;
    // cudarc takes the image by value; a copy stays here for the JIT's log on failure.
    let copy = match &image {
        Image::Ptx(text) => Image::Ptx(text.clone()),
        Image::Binary(bytes) => Image::Binary(bytes),
    };
    // The parameter counts, for drivers that cannot say them (see `driver::params`).
    let counts = ParamCounts::needed(&copy);
    // The entries of `static` device functions' instances, which loading finds by name.
    let internal = ParamCounts::internal_names(&copy);
    let module = ctx.load_module(image.into_cudarc()).map_err(|source| {
        if is_jit_error(source.0) {
            Error::Jit {
                call: "cuModuleLoadData",
                file: None,
                source,
                log: result::jit_log(copy.as_ptr()),
            }
        } else {
            Error::Driver {
                call: "cuModuleLoadData",
                source,
            }
        }
    })?;
    if counts.is_some() || !internal.is_empty() {
        let mut all = IMAGES
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        all.retain(|(weak, _)| weak.strong_count() > 0);
        all.push((Arc::downgrade(&module), Remembered { counts, internal }));
    }
    Ok(module)
}

/// What this crate read of a module's image when it loaded it.
struct Remembered {
    /// The parameter counts, for drivers that cannot say them (`driver::params`).
    counts: Option<ParamCounts>,
    /// The entries nvcc named in its internal namespace: a `static` device function's instance
    /// is found among them whatever the nvcc run that made the module named it.
    internal: Vec<String>,
}

/// What was read of the images of the modules this crate loaded, while they live: a module
/// loaded elsewhere (cudarc's `load_module`) has nothing here, and its load check asks the
/// driver one parameter past the declared ones.
static IMAGES: Mutex<Vec<(Weak<CudaModule>, Remembered)>> = Mutex::new(Vec::new());

/// `read` of what was remembered of `module`'s image, where this crate loaded it.
fn remembered<R>(module: &Arc<CudaModule>, read: impl FnOnce(&Remembered) -> R) -> Option<R> {
    let all = IMAGES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // A live weak pointer to the same allocation is the same module (the allocation cannot be
    // reused while the weak pointer exists).
    all.iter()
        .find(|(weak, _)| std::ptr::eq(weak.as_ptr(), Arc::as_ptr(module)))
        .map(|(_, remembered)| read(remembered))
}

/// The parameter count of `kernel` in `module`, where this crate loaded it and read its image.
fn remembered_count(module: &Arc<CudaModule>, kernel: &str) -> Option<usize> {
    remembered(module, |r| r.counts.as_ref()?.get(kernel)).flatten()
}

/// The entry that is `masked` once nvcc's run-dependent internal names are masked
/// ([`without_internal_parts`](cuda_kernel_syntax::itanium::without_internal_parts)): among
/// the entries of `module` where this crate loaded it, else among `members` (the PTX the
/// declaration was checked against: a module loaded elsewhere, or a library).
pub(crate) fn internal_entry(
    module: Option<&Arc<CudaModule>>,
    masked: &str,
    members: &[&str],
) -> Option<String> {
    fn find<'a>(names: impl IntoIterator<Item = &'a str>, masked: &str) -> Option<String> {
        names
            .into_iter()
            .find(|n| cuda_kernel_syntax::itanium::without_internal_parts(n) == masked)
            .map(str::to_string)
    }
    match module
        .and_then(|m| remembered(m, |r| find(r.internal.iter().map(String::as_str), masked)))
    {
        Some(entry) => entry,
        None => find(members.iter().copied(), masked),
    }
}

/// Codes with which the JIT refuses an image, whose log says why.
pub(crate) fn is_jit_error(code: sys::CUresult) -> bool {
    use sys::CUresult::*;
    matches!(
        code,
        CUDA_ERROR_INVALID_PTX
            | CUDA_ERROR_UNSUPPORTED_PTX_VERSION
            | CUDA_ERROR_INVALID_IMAGE
            | CUDA_ERROR_NO_BINARY_FOR_GPU
            | CUDA_ERROR_JIT_COMPILER_NOT_FOUND
            | CUDA_ERROR_JIT_COMPILATION_DISABLED
            | CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY
    )
}

#[cfg(test)]
mod signature_tests {
    use super::*;
    use crate::{ParamLayout, ParamSlot};

    const LAYOUT: ParamLayout = ParamLayout::from_slots(&ParamLayout::place([
        ParamSlot::of::<u64>("x"),
        ParamSlot::of::<f32>("a"),
        ParamSlot::of::<u32>("n"),
    ]));

    /// The check against a driver whose function takes `params`, and how many times it was
    /// asked past them (which the real driver answers with `CUDA_ERROR_INVALID_VALUE`).
    fn check(
        params: &[(usize, usize)],
        count: Option<usize>,
    ) -> (Result<Option<ParamLayout>, Error>, usize) {
        let mut past = 0;
        let result = check_signature("k", &LAYOUT, count, |index| {
            Ok(match params.get(index) {
                Some(&p) => Some(p),
                None => {
                    past += 1;
                    None
                }
            })
        });
        (result, past)
    }

    #[test]
    fn with_the_count_known_no_parameter_past_the_last_is_asked() {
        let params = [(0, 8), (8, 4), (12, 4)];
        let (result, past) = check(&params, Some(3));
        assert!(result.is_ok());
        assert_eq!(past, 0);
        // Without the count, one index past the declared ones is asked.
        let (result, past) = check(&params, None);
        assert!(result.is_ok());
        assert_eq!(past, 1);
    }

    #[test]
    fn a_different_count_is_a_mismatch_either_way() {
        let more = [(0, 8), (8, 4), (12, 4), (16, 8)];
        let mismatch =
            |r: Result<Option<ParamLayout>, Error>| matches!(r, Err(Error::SignatureMismatch(_)));
        assert!(mismatch(check(&more, Some(4)).0));
        assert!(mismatch(check(&more, None).0));
        let (result, past) = check(&more[..2], Some(2));
        assert!(mismatch(result));
        assert_eq!(past, 0);
    }
}
