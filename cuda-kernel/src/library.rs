//! Loading once for every GPU of the process: a library (`cuLibraryLoadData`, CUDA 12.0+) whose
//! kernels a typed launcher launches on a stream of any device, each device's function looked up
//! on its first launch there and cached.

use std::ffi::{CString, c_void};
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaFunction, CudaStream, sys};

use crate::load::{PARAM_INFO_DRIVER, check_signature, is_binary_image};
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
}

// SAFETY: a library handle is process-wide and the driver's calls on it are thread-safe.
unsafe impl Send for Library {}
// SAFETY: as above.
unsafe impl Sync for Library {}

impl Library {
    /// Loads PTX text (as `driver::load_ptx` does) for every device of the process.
    pub fn load_ptx(ptx: &str) -> Result<Arc<Library>, Error> {
        if ptx.contains('\0') {
            return Err(Error::InvalidPtx("the text contains a NUL byte"));
        }
        let text =
            CString::new(ptx).map_err(|_| Error::InvalidPtx("the text contains a NUL byte"))?;
        Library::load_raw(text.as_ptr().cast())
    }

    /// Loads a cubin or fatbin (or PTX text as bytes), as `driver::load_image` does.
    pub fn load_image(image: &[u8]) -> Result<Arc<Library>, Error> {
        if is_binary_image(image) {
            return Library::load_raw(image.as_ptr().cast());
        }
        match std::str::from_utf8(image) {
            Ok(text) => Library::load_ptx(text.trim_end_matches('\0')),
            Err(_) => Err(Error::InvalidPtx(
                "the image is neither a cubin, a fatbin, nor PTX text",
            )),
        }
    }

    fn load_raw(code: *const c_void) -> Result<Arc<Library>, Error> {
        crate::driver::require()?;
        // SAFETY: the driver library is present; cuInit may be called any number of times.
        unsafe { sys::cuInit(0) }
            .result()
            .map_err(Error::driver("cuInit"))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: `code` is a NUL-terminated text or a binary image whose header gives its size;
        // no options.
        unsafe {
            sys::cuLibraryLoadData(
                &mut raw,
                code,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            )
        }
        .result()
        .map_err(Error::driver("cuLibraryLoadData"))?;
        Ok(Arc::new(Library { raw }))
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the library is this value's own; kernels hold an Arc to it, so none is alive.
        unsafe { sys::cuLibraryUnload(self.raw) };
    }
}

/// Devices whose functions a library kernel caches; others are looked up on each launch.
const CACHED_DEVICES: usize = 64;

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
    functions: [OnceLock<Function>; CACHED_DEVICES],
    _library: Arc<Library>,
}

// SAFETY: the kernel handle is process-wide; the cache is OnceLocks.
unsafe impl Send for LibraryKernel {}
// SAFETY: as above.
unsafe impl Sync for LibraryKernel {}

type KernelGetParamInfo =
    unsafe extern "C" fn(sys::CUkernel, usize, *mut usize, *mut usize) -> sys::CUresult;

impl LibraryKernel {
    /// Looks up the kernel `name` in `library` and checks its parameters against `layout`
    /// (`cuKernelGetParamInfo`, CUDA 12.4+ drivers).
    pub fn load(library: &Arc<Library>, name: &str, layout: &ParamLayout) -> Result<Self, Error> {
        crate::driver::require()?;
        let not_found = || Error::KernelNotFound {
            kernel: name.to_string(),
        };
        let c_name = CString::new(name).map_err(|_| not_found())?;
        let mut kernel = std::ptr::null_mut();
        // SAFETY: the library is alive; the name is a C string.
        match unsafe { sys::cuLibraryGetKernel(&mut kernel, library.raw, c_name.as_ptr()) } {
            sys::CUresult::CUDA_SUCCESS => {}
            sys::CUresult::CUDA_ERROR_NOT_FOUND => return Err(not_found()),
            code => {
                return Err(Error::Driver {
                    call: "cuLibraryGetKernel",
                    source: cudarc::driver::DriverError(code),
                });
            }
        }
        static ENTRY: OnceLock<Option<KernelGetParamInfo>> = OnceLock::new();
        let param_info = *ENTRY.get_or_init(|| {
            crate::driver::entry_point("cuKernelGetParamInfo", PARAM_INFO_DRIVER)
                // SAFETY: the driver's entry point of this name and version has this signature.
                .map(|pfn| unsafe { std::mem::transmute::<*mut c_void, KernelGetParamInfo>(pfn) })
        });
        if let Some(param_info) = param_info {
            // The query needs a current context, of any device (the library spans them all).
            current_context()?;
            check_signature(
                "cuKernelGetParamInfo",
                name,
                layout,
                |index, offset, size| {
                    // SAFETY: the kernel handle is alive with its library; valid out-pointers.
                    unsafe { param_info(kernel, index, offset, size) }
                },
            )?;
        }
        Ok(LibraryKernel {
            kernel,
            functions: [const { OnceLock::new() }; CACHED_DEVICES],
            _library: Arc::clone(library),
        })
    }

    /// The kernel's function on `stream`'s device: looked up on the first launch there
    /// (`cuKernelGetFunction`), then read without a lock.
    pub fn function(&self, stream: &CudaStream) -> Result<sys::CUfunction, Error> {
        let ordinal = stream.context().ordinal();
        if let Some(function) = self.functions.get(ordinal).and_then(OnceLock::get) {
            return Ok(function.0);
        }
        stream
            .context()
            .bind_to_thread()
            .map_err(Error::driver("cuCtxSetCurrent"))?;
        let mut function = std::ptr::null_mut();
        // SAFETY: the kernel is alive; the stream's context is current.
        unsafe { sys::cuKernelGetFunction(&mut function, self.kernel) }
            .result()
            .map_err(Error::driver("cuKernelGetFunction"))?;
        if let Some(slot) = self.functions.get(ordinal) {
            let _ = slot.set(Function(function));
        }
        Ok(function)
    }
}

/// Makes a live context current on this thread: the one that is, or else device 0's primary
/// context, retained for the rest of the process (released, it would stay current on the
/// thread, destroyed, and fail the next query).
fn current_context() -> Result<(), Error> {
    let mut current = std::ptr::null_mut();
    let mut device = 0;
    // SAFETY: valid out-pointers; cuCtxGetDevice fails for no or a destroyed current context.
    let live = unsafe { sys::cuCtxGetCurrent(&mut current) } == sys::CUresult::CUDA_SUCCESS
        && !current.is_null()
        && unsafe { sys::cuCtxGetDevice(&mut device) } == sys::CUresult::CUDA_SUCCESS;
    if live {
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
    ctx.bind_to_thread()
        .map_err(Error::driver("cuCtxSetCurrent"))
}

/// How a launcher reached its kernel: a module of one context, or a library of the process.
#[derive(Debug, Clone)]
pub enum Loaded {
    /// `load(&module)`: the function of one context.
    Module(CudaFunction),
    /// `load_library(&library)`: a kernel for every device.
    Library(Arc<LibraryKernel>),
}

impl Loaded {
    /// The function to launch on `stream`.
    #[inline]
    pub fn cu_function(&self, stream: &CudaStream) -> Result<sys::CUfunction, Error> {
        match self {
            Loaded::Module(function) => Ok(function.cu_function()),
            Loaded::Library(kernel) => kernel.function(stream),
        }
    }

    /// The module's function, for a module-loaded launcher.
    pub fn module_function(&self) -> Option<&CudaFunction> {
        match self {
            Loaded::Module(function) => Some(function),
            Loaded::Library(_) => None,
        }
    }
}
