//! Device globals (`__constant__` and `__device__` variables) declared in a `#[kernel]` block:
//! found in a loaded module, checked, written and read with their Rust type.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaModule, CudaStream, DevicePtr, DeviceSlice};

use crate::declare::buffer::ParamBytes;
use crate::driver::result;
use crate::{Error, KernelParam};

/// A `__constant__` or `__device__` variable of a loaded module, typed.
///
/// A `static` in a `#[kernel]` block generates a type whose `load` returns one (and a block's
/// `module = Name` type holds one per static). Its size was checked against the PTX at compile
/// time and is checked against the module (`cuModuleGetGlobal`) at load.
///
/// ```no_run
/// use cuda_kernel::kernel;
///
/// #[kernel]
/// unsafe extern "C" {
///     static coeffs: [f32; 16];
///     fn fir16(x: *const f32, y: *mut f32, n: u32);
/// }
///
/// # fn main() -> Result<(), cuda_kernel::Error> {
/// # const PTX: &str = "";
/// let ctx = cuda_kernel::driver::context(0)?;
/// let stream = ctx.default_stream();
/// let module = cuda_kernel::driver::load_ptx(&ctx, PTX)?;
/// let coeffs = Coeffs::load(&module, &stream)?;
/// coeffs.write(&stream, &[1.0 / 16.0; 16])?; // ordered before later launches on `stream`
/// assert_eq!(coeffs.read(&stream)?, [1.0 / 16.0; 16]);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct DeviceGlobal<T> {
    ptr: CUdeviceptr,
    name: &'static str,
    // The variable lives as long as its module.
    _module: Arc<CudaModule>,
    _type: PhantomData<fn() -> T>,
}

impl<T: KernelParam> DeviceGlobal<T> {
    /// Finds the variable `name` in `module` (through cudarc's `get_global`, which takes a
    /// stream of the module's context) and checks that it has `T`'s size: a variable of another
    /// size is [`Error::GlobalMismatch`], a missing one [`Error::GlobalNotFound`].
    pub fn load(
        module: &Arc<CudaModule>,
        stream: &Arc<CudaStream>,
        name: &'static str,
    ) -> Result<Self, Error> {
        crate::driver::require()?;
        let _entered = result::enter(stream.context())?;
        let (ptr, size) = module_global(module, stream, name)?;
        if size != T::SIZE {
            return Err(Error::GlobalMismatch {
                name: name.to_string(),
                declared: T::SIZE,
                loaded: size,
            });
        }
        Ok(DeviceGlobal {
            ptr,
            name,
            _module: Arc::clone(module),
            _type: PhantomData,
        })
    }

    /// The variable's device address.
    pub fn device_ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// The variable's symbol.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Writes `value` into the variable, ordered on `stream`: launches queued on it after this
    /// see the value. The bytes are the device layout `KernelParam` writes.
    pub fn write(&self, stream: &CudaStream, value: &T) -> Result<(), Error> {
        // On the stack up to 256 bytes, as a generic kernel's parameters are.
        let mut bytes = ParamBytes::new(T::SIZE);
        value.write(bytes.bytes_mut());
        let _entered = result::enter(stream.context())?;
        // SAFETY: the variable is T::SIZE bytes (checked at load) and alive with its module.
        unsafe { result::memcpy_htod_async(self.ptr, bytes.bytes(), stream.cu_stream()) }
    }
}

impl<T: KernelParam + bytemuck::Pod> DeviceGlobal<T> {
    /// Reads the variable after the work queued on `stream` so far (waiting for it).
    pub fn read(&self, stream: &CudaStream) -> Result<T, Error> {
        let mut value = T::zeroed();
        let _entered = result::enter(stream.context())?;
        // SAFETY: `value` is T::SIZE writable bytes (Pod: any bytes are a value), the variable
        // is as large; the stream is synchronized before `value` is read.
        unsafe {
            result::memcpy_dtoh_async(
                bytemuck::bytes_of_mut(&mut value),
                self.ptr,
                stream.cu_stream(),
            )
        }?;
        stream
            .synchronize()
            .map_err(Error::driver("cuStreamSynchronize"))?;
        Ok(value)
    }
}

/// `cuModuleGetGlobal`: the variable's address and size.
fn module_global(
    module: &Arc<CudaModule>,
    stream: &Arc<CudaStream>,
    name: &str,
) -> Result<(CUdeviceptr, usize), Error> {
    if name.contains('\0') {
        return Err(Error::GlobalNotFound {
            name: name.to_string(),
        });
    }
    let view = module.get_global(name, stream).map_err(|e| match e.0 {
        sys::CUresult::CUDA_ERROR_NOT_FOUND => Error::GlobalNotFound {
            name: name.to_string(),
        },
        _ => Error::Driver {
            call: "cuModuleGetGlobal",
            source: e,
        },
    })?;
    let size = DeviceSlice::len(&view);
    // The view has no events of its own: the guard does nothing.
    let (ptr, _guard) = DevicePtr::device_ptr(&view, stream);
    Ok((ptr, size))
}
