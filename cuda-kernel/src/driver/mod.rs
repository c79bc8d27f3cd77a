//! Reaching the CUDA driver without panicking: whether it is present, its version, a device's
//! context, and modules loaded from PTX or a cubin. Each returns [`Error::NoDriver`] on a
//! machine without the driver instead of panicking as cudarc would.
//!
//! ```no_run
//! let ctx = cuda_kernel::driver::context(0)?; // Error::NoDriver without a CUDA driver
//! println!("CUDA driver {}", cuda_kernel::driver::version()?);
//! # Ok::<(), cuda_kernel::Error>(())
//! ```

// Inside the crate, also the one room for driver calls (`result`), the per-device cache and
// the module-image checks.

use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaContext;

use crate::Error;

pub(crate) mod attribute;
pub(crate) mod cache;
pub(crate) mod image;
pub(crate) mod module;
pub(crate) mod params;
pub(crate) mod result;

/// Returns [`Error::NoDriver`] unless the driver library can be loaded.
pub fn require() -> Result<(), Error> {
    if is_present() {
        Ok(())
    } else {
        Err(Error::NoDriver)
    }
}

/// The CUDA version the installed driver supports, as `1000 * major + 10 * minor`
/// (`13000` for CUDA 13.0), like `cuDriverGetVersion`.
///
/// ```no_run
/// let version = cuda_kernel::driver::version()?;
/// println!("driver supports CUDA {}.{}", version / 1000, version % 1000 / 10);
/// # Ok::<(), cuda_kernel::Error>(())
/// ```
#[inline]
pub fn version() -> Result<i32, Error> {
    static VERSION: OnceLock<i32> = OnceLock::new();
    match VERSION.get() {
        Some(version) => Ok(*version),
        None => ask_version(&VERSION),
    }
}

/// [`version`]'s first call: the driver asked, and the answer kept.
#[cold]
#[inline(never)]
fn ask_version(cache: &OnceLock<i32>) -> Result<i32, Error> {
    require()?;
    let version = result::driver_version()?;
    Ok(*cache.get_or_init(|| version))
}

/// The number of CUDA devices, or [`Error::NoDriver`] without a driver.
///
/// ```no_run
/// for ordinal in 0..cuda_kernel::driver::device_count()? {
///     let ctx = cuda_kernel::driver::context(ordinal)?;
/// }
/// # Ok::<(), cuda_kernel::Error>(())
/// ```
pub fn device_count() -> Result<usize, Error> {
    require()?;
    CudaContext::device_count()
        .map(|n| n.max(0) as usize)
        .map_err(Error::driver("cuDeviceGetCount"))
}

/// Opens a context on GPU `ordinal`, or says why it cannot.
///
/// Unlike `CudaContext::new`, which panics when the driver library is missing, this returns
/// [`Error::NoDriver`]; without a GPU it returns the driver's `CUDA_ERROR_NO_DEVICE`.
///
/// ```no_run
/// let ctx = cuda_kernel::driver::context(0)?;
/// let stream = ctx.default_stream();
/// # Ok::<(), cuda_kernel::Error>(())
/// ```
pub fn context(ordinal: usize) -> Result<Arc<CudaContext>, Error> {
    require()?;
    result::init()?;
    // cudarc makes the new context current; a caller's own context is given back.
    let before = result::current_context()?;
    let ctx = CudaContext::new(ordinal).map_err(Error::driver("cuDevicePrimaryCtxRetain"))?;
    if !before.is_null() && before != ctx.cu_ctx() {
        result::set_current_context(before)?;
    }
    Ok(ctx)
}

pub use crate::presence::is_present;
pub(crate) use crate::presence::library_present;
#[doc(inline)]
pub use module::{load_image, load_ptx};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_driver_every_entry_point_says_so() {
        if is_present() {
            return; // covered by the GPU tests
        }
        assert!(matches!(require(), Err(Error::NoDriver)));
        assert!(matches!(version(), Err(Error::NoDriver)));
        assert!(matches!(context(0), Err(Error::NoDriver)));
    }
}
