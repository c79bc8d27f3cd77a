//! Modules from PTX text or compiled images (cubin, fatbin), and what this crate read of each
//! image when it loaded it: the parameter counts (for drivers that cannot say them) and the
//! entries nvcc named in its internal namespace.

use std::sync::{Arc, Mutex, Weak};

use cudarc::driver::{CudaContext, CudaModule, sys};

use crate::Error;
use crate::driver::image::Image;
use crate::driver::params::ParamCounts;
use crate::driver::{require, result};

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
pub(crate) fn remembered_count(module: &Arc<CudaModule>, kernel: &str) -> Option<usize> {
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
    // The same kernel, or behind separate compilation's `__nv_static_` prefix (a `static`
    // kernel under `-rdc=true`, whose symbol the declaration derives without it).
    fn find<'a>(names: impl IntoIterator<Item = &'a str>, masked: &str) -> Option<String> {
        let behind_prefix = format!("{}{masked}", cuda_kernel_syntax::itanium::NV_STATIC);
        names
            .into_iter()
            .find(|n| {
                let n = cuda_kernel_syntax::itanium::without_internal_parts(n);
                n == masked || n == behind_prefix
            })
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
