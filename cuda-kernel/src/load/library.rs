//! Loading once for every GPU of the process: a library (`cuLibraryLoadData`, CUDA 12.0+) whose
//! kernels a typed launcher launches on a stream of any device, each device's function looked up
//! on its first launch there and cached.

use std::ffi::{CStr, CString};
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaFunction, CudaStream, sys};

use crate::driver::cache::PerDevice;
use crate::driver::image::Image;
use crate::driver::params::ParamCounts;
use crate::driver::result;
use crate::load::check::{check_signature, unplaced};
use crate::{Error, ParamLayout};

/// A module loaded once for the whole process, not into one context (`cuLibraryLoadData`).
///
/// A launcher loaded from it with the generated `load_library` launches on a stream of any GPU;
/// its declaration is checked once, against the library (`cuKernelGetParamInfo`).
///
/// ```no_run
/// use cuda_kernel::{Config, Library, kernel};
///
/// #[kernel]
/// unsafe extern "C" {
///     fn scale(x: *mut f32, a: f32, n: u32);
/// }
///
/// # fn main() -> Result<(), cuda_kernel::Error> {
/// # const PTX: &str = "";
/// let library = Library::load_ptx(PTX)?; // once, for every GPU
/// let scale = Scale::load_library(&library)?; // checked once
/// for ordinal in 0..cuda_kernel::driver::device_count()? {
///     let stream = cuda_kernel::driver::context(ordinal)?.default_stream();
///     let mut x = stream.clone_htod(&[1.0f32; 256])?;
///     unsafe { scale.launch(&stream, Config::for_elements(256, 256), &mut x, 2.0, 256)? };
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Library {
    raw: sys::CUlibrary,
    /// The PTX text, NUL-terminated, kept to ask the JIT for its log if it refuses the PTX
    /// later: the driver loads libraries lazily, compiling on first use of a kernel.
    ptx: Option<std::ffi::CString>,
    /// Each kernel's parameter count as the image says it, so that the load check asks for no
    /// parameter past the last on drivers without `cuFuncGetParamCount`.
    counts: ParamCounts,
}

// SAFETY: a library handle is process-wide and the driver's calls on it are thread-safe.
unsafe impl Send for Library {}
// SAFETY: as above.
unsafe impl Sync for Library {}

impl Library {
    /// Loads PTX text (as `driver::load_ptx` does) for every device of the process.
    pub fn load_ptx(ptx: &str) -> Result<Arc<Library>, Error> {
        Library::load(Image::ptx(ptx)?)
    }

    /// Loads a cubin or fatbin (or PTX text as bytes), as `driver::load_image` does.
    pub fn load_image(image: &[u8]) -> Result<Arc<Library>, Error> {
        Library::load(Image::bytes(image)?)
    }

    fn load(image: Image<'_>) -> Result<Arc<Library>, Error> {
        crate::driver::require()?;
        result::init()?;
        let raw =
            result::library_load(image.as_ptr()).map_err(|e| with_jit_log(e, image.as_ptr()))?;
        // The parameter counts, for drivers that cannot say them (see `driver::params`).
        let counts = ParamCounts::needed(&image).unwrap_or_default();
        let ptx = match image {
            Image::Ptx(text) => Some(text),
            Image::Binary(_) => None,
        };
        Ok(Arc::new(Library { raw, ptx, counts }))
    }
}

impl Library {
    /// A JIT failure surfacing at a lookup (the driver compiles lazily) as [`Error::Jit`], with
    /// what the JIT says of the kept PTX; other errors as they are.
    fn jit_error(&self, error: Error) -> Error {
        match &self.ptx {
            Some(ptx) => with_jit_log(error, ptx.as_ptr().cast()),
            None => error,
        }
    }
}

/// A driver error with which the JIT refused `image` as [`Error::Jit`], with what the JIT says
/// of it (loading it as a module, in some live context); other errors as they are.
fn with_jit_log(error: Error, image: *const std::ffi::c_void) -> Error {
    match error {
        Error::Driver { call, source } if crate::driver::module::is_jit_error(source.0) => {
            let log = current_context()
                .map(|()| result::jit_log(image))
                .unwrap_or_default();
            Error::Jit {
                call,
                file: None,
                source,
                log,
            }
        }
        other => other,
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the library is this value's own; kernels hold an Arc to it, so none is alive.
        unsafe { result::library_unload(self.raw) };
    }
}

/// A function handle, as the driver gives it for one device's context.
#[derive(Clone, Copy, Debug)]
struct Function(sys::CUfunction);
// SAFETY: function handles are plain driver handles, usable from any thread.
unsafe impl Send for Function {}
// SAFETY: as above.
unsafe impl Sync for Function {}

/// A kernel of a [`Library`], with the function of each device it was launched on.
#[derive(Debug)]
pub struct LibraryKernel {
    kernel: sys::CUkernel,
    compiled_cluster: Option<(u32, u32, u32)>,
    /// The layout the driver placed the parameters in, for a signature with a parameter aligned
    /// above 16 bytes ([`ParamLayout::placed`]).
    placed: Option<ParamLayout>,
    functions: PerDevice<Function>,
    _library: Arc<Library>,
}

// SAFETY: the kernel handle is process-wide; the cache is OnceLocks.
unsafe impl Send for LibraryKernel {}
// SAFETY: as above.
unsafe impl Sync for LibraryKernel {}

impl LibraryKernel {
    /// Looks up the kernel `name` in `library` and checks its parameters against `layout`
    /// (`cuKernelGetParamInfo`, CUDA 12.4+ drivers): what a launcher's
    /// [`Kernel::load_library`](crate::Kernel::load_library) does.
    pub fn load(library: &Arc<Library>, name: &str, layout: &ParamLayout) -> Result<Self, Error> {
        crate::driver::require()?;
        let not_found = || Error::KernelNotFound {
            kernel: name.to_string(),
        };
        let c_name = CString::new(name).map_err(|_| not_found())?;
        let kernel = result::library_get_kernel(library.raw, &c_name)
            .map_err(|e| library.jit_error(e))?
            .ok_or_else(not_found)?;
        // The queries need a current context, of any device (the library spans them all).
        current_context()?;
        // The compiled cluster shape, from the kernel's function in the current context (the
        // same on every device: it is the code's).
        let function = result::kernel_get_function(kernel).map_err(|e| library.jit_error(e))?;
        let compiled_cluster = result::compiled_cluster(function);
        let placed = if result::has_param_info()? {
            // The count from the kernel's function in the current context (a library's kernel
            // has no count query of its own).
            let count = if result::has_param_count() {
                result::func_param_count(function)?
            } else {
                library.counts.get(name)
            };
            check_signature(name, layout, count, |index| {
                result::kernel_param_info(kernel, index).map_err(|e| library.jit_error(e))
            })?
        } else {
            unplaced(name, layout)?;
            None
        };
        Ok(LibraryKernel {
            kernel,
            compiled_cluster,
            placed,
            functions: PerDevice::new(),
            _library: Arc::clone(library),
        })
    }

    /// The kernel's function on `stream`'s device: looked up on the first launch there
    /// (`cuKernelGetFunction`), then read without a lock.
    pub fn function(&self, stream: &CudaStream) -> Result<sys::CUfunction, Error> {
        let ctx = stream.context();
        self.functions
            .get_or_try_init(ctx.ordinal(), || {
                let _entered = result::enter(ctx)?;
                let function = result::kernel_get_function(self.kernel)
                    .map_err(|e| self._library.jit_error(e))?;
                if let Some(placed) = &self.placed {
                    same_placement(function, placed, ctx.ordinal())?;
                }
                Ok(Function(function))
            })
            .map(|f| f.0)
    }
}

/// A library's kernel whose layout the GPU places (a parameter aligned above 16 bytes) launches
/// on a device only where that device's function places its parameters as the load found:
/// GPUs of another architecture may not.
#[cold]
fn same_placement(
    function: sys::CUfunction,
    placed: &ParamLayout,
    ordinal: usize,
) -> Result<(), Error> {
    for (index, param) in placed.params.iter().enumerate() {
        let here = result::func_param_info(function, index)?;
        if here != Some((param.offset, param.size)) {
            let (offset, _) = here.unwrap_or_default();
            return Err(Error::PlacedElsewhere {
                param: param.name,
                ordinal,
                offset,
                loaded: param.offset,
            });
        }
    }
    Ok(())
}

/// Makes a live context current on this thread: the one that is, or else device 0's primary
/// context, retained for the rest of the process (released, it would stay current on the
/// thread, destroyed, and fail the next query).
fn current_context() -> Result<(), Error> {
    if result::has_live_context() {
        return Ok(());
    }
    static QUERY_CONTEXT: OnceLock<Arc<cudarc::driver::CudaContext>> = OnceLock::new();
    let ctx = match QUERY_CONTEXT.get() {
        Some(ctx) => ctx,
        None => {
            let ctx = crate::driver::context(0)?;
            QUERY_CONTEXT.get_or_init(|| ctx)
        }
    };
    // No context was current: this one is given to the thread and stays (see `Entered`).
    std::mem::forget(result::enter(ctx)?);
    Ok(())
}

/// How a launcher reached its kernel (a module of one context, or a library of the process),
/// and the kernel's symbol, which launch errors, the launch log and NVTX ranges name.
///
/// ```no_run
/// # fn f(module: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaModule>) -> Result<(), cuda_kernel::Error> {
/// let function = module.load_function("vector_add")?;
/// let loaded = cuda_kernel::Loaded::module(function, "vector_add");
/// assert_eq!(loaded.name(), "vector_add");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Loaded {
    place: Place,
    /// The layout the function places its parameters in, for a signature with a parameter
    /// aligned above 16 bytes (whose offsets are the GPU's): what every launch packs by.
    layout: Option<ParamLayout>,
    /// The cluster shape the kernel was compiled with (`__cluster_dims__`), which every launch
    /// is checked against.
    compiled_cluster: Option<(u32, u32, u32)>,
    /// The symbol, NUL-terminated for NVTX (cut at an interior NUL, which no entry has).
    name: Arc<CStr>,
}

#[derive(Debug, Clone)]
enum Place {
    /// `load(&module)`: the function of one context.
    Module(CudaFunction),
    /// `load_library(&library)`: a kernel for every device.
    Library(Arc<LibraryKernel>),
}

impl Loaded {
    /// A function of a module, loaded under the symbol `name`.
    pub fn module(function: CudaFunction, name: &str) -> Loaded {
        Loaded {
            compiled_cluster: result::compiled_cluster(function.cu_function()),
            place: Place::Module(function),
            layout: None,
            name: c_name(name),
        }
    }

    /// This function, whose parameters the driver placed as `layout` (the driver's offsets, for
    /// a signature with a parameter aligned above 16 bytes: [`ParamLayout::placed`]).
    pub(crate) fn with_layout(mut self, layout: Option<ParamLayout>) -> Loaded {
        self.layout = layout;
        self
    }

    /// The layout the loaded function places its parameters in, where it is the GPU's to
    /// choose (a parameter aligned above 16 bytes, [`ParamLayout::fixed`]): the offsets the
    /// driver reported at load, which every launch of it packs by. `None` for a signature
    /// whose declared layout holds on every GPU.
    pub fn layout(&self) -> Option<&ParamLayout> {
        self.layout.as_ref()
    }

    /// A kernel of a [`Library`], loaded under the symbol `name`.
    pub fn library(kernel: Arc<LibraryKernel>, name: &str) -> Loaded {
        Loaded {
            compiled_cluster: kernel.compiled_cluster,
            layout: kernel.placed,
            place: Place::Library(kernel),
            name: c_name(name),
        }
    }

    /// The kernel's symbol (its `.entry` name).
    pub fn name(&self) -> &str {
        self.name.to_str().unwrap_or("?")
    }

    /// The thread-block cluster shape the kernel was compiled with (`__cluster_dims__`, PTX
    /// `.reqnctapercluster`), as the driver reports it at load; `None` for a kernel without one.
    /// Every launch is checked against it ([`Error::CompiledCluster`]).
    pub fn compiled_cluster(&self) -> Option<(u32, u32, u32)> {
        self.compiled_cluster
    }

    /// The symbol as a C string.
    #[cfg_attr(not(feature = "nvtx"), allow(dead_code))]
    pub(crate) fn c_name(&self) -> &CStr {
        &self.name
    }

    /// The function to launch on `stream`.
    #[inline]
    pub fn cu_function(&self, stream: &CudaStream) -> Result<sys::CUfunction, Error> {
        match &self.place {
            Place::Module(function) => Ok(function.cu_function()),
            Place::Library(kernel) => kernel.function(stream),
        }
    }

    /// The module's function, for a module-loaded launcher.
    pub fn module_function(&self) -> Option<&CudaFunction> {
        match &self.place {
            Place::Module(function) => Some(function),
            Place::Library(_) => None,
        }
    }
}

/// `name` as a C string, up to its first NUL.
fn c_name(name: &str) -> Arc<CStr> {
    let end = name.find('\0').unwrap_or(name.len());
    let c = CString::new(&name[..end]).unwrap_or_default();
    Arc::from(c.as_c_str())
}
