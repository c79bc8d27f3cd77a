//! Reaching the CUDA driver without panicking: presence, version, contexts and modules.

use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaContext, sys};

use crate::Error;

/// Whether the CUDA driver library can be loaded on this machine.
///
/// cudarc panics on its first call when `libcuda` is missing; everything in this crate that
/// reaches the driver checks this first and returns [`Error::NoDriver`] instead. The answer is
/// looked up once and cached.
///
/// ```
/// if !cuda_kernel::driver::is_present() {
///     eprintln!("no CUDA driver: skipping the GPU part");
/// }
/// ```
pub fn is_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: loading the driver library runs its initialisers, which is what every CUDA program
    // does on its first driver call.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

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
pub fn version() -> Result<i32, Error> {
    require()?;
    let mut version = 0;
    // SAFETY: the library is present and `version` is a valid out-pointer.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(Error::driver("cuDriverGetVersion"))?;
    Ok(version)
}

/// The driver's entry point `name` as of CUDA `version` (`cuGetProcAddress`), or `None` where
/// the driver lacks it. Newer calls are reached this way rather than through cudarc's bindings,
/// which follow the CUDA version feature the user's crate picked for cudarc and may predate them.
pub(crate) fn entry_point(name: &str, version: i32) -> Option<*mut std::ffi::c_void> {
    if !is_present() {
        return None;
    }
    let name = std::ffi::CString::new(name).ok()?;
    let mut pfn = std::ptr::null_mut();
    let mut status = sys::CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS;
    // SAFETY: the driver library is present; the name is a C string and the out-pointers are
    // valid.
    let result = unsafe {
        sys::cuGetProcAddress_v2(
            name.as_ptr(),
            &mut pfn,
            version,
            sys::CUdriverProcAddress_flags::CU_GET_PROC_ADDRESS_DEFAULT as u64,
            &mut status,
        )
    };
    let found = result == sys::CUresult::CUDA_SUCCESS
        && status == sys::CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS
        && !pfn.is_null();
    found.then_some(pfn)
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
    CudaContext::new(ordinal).map_err(Error::driver("cuCtxCreate"))
}

#[doc(inline)]
pub use crate::load::{load_image, load_ptx};

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
