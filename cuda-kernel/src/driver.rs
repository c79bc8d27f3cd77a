//! Reaching the CUDA driver without panicking: presence, version, contexts and modules.

use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaContext, CudaModule, sys};

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
fn is_binary_image(image: &[u8]) -> bool {
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
