//! Whether the driver's (or NVRTC's) shared library can be loaded: asked before cudarc's first
//! call, which panics without it. The floor under the error type, which asks it too.

use std::sync::OnceLock;

/// Whether the CUDA driver library can be loaded on this machine.
///
/// cudarc panics on its first call when `libcuda` is missing; everything in this crate that
/// reaches the driver checks this first and returns [`Error::NoDriver`](crate::Error::NoDriver) instead. The answer is
/// looked up once and cached.
///
/// ```
/// if !cuda_kernel::driver::is_present() {
///     eprintln!("no CUDA driver: skipping the GPU part");
/// }
/// ```
pub fn is_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| library_present(&["cuda", "nvcuda"]))
}

/// Whether one of the shared libraries cudarc would load for `names` can be loaded: the
/// names cudarc's loader tries first (`libcuda.so`, `libcuda.so.1`, `libnvrtc.so.13`,
/// `nvrtc64_130_0.dll`, ...), so that a library found here is one cudarc finds too.
///
/// Asked through libloading rather than cudarc's `is_culib_present`, which exists only under
/// cudarc's `dynamic-loading` linkage: under `dynamic-linking` or `static-linking` the process
/// has the library loaded already and the probe finds it.
pub(crate) fn library_present(names: &[&str]) -> bool {
    use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
    let mut candidates = Vec::new();
    for name in names {
        candidates.push(format!("{DLL_PREFIX}{name}{DLL_SUFFIX}"));
        for major in ["1", "13", "12", "11"] {
            candidates.push(format!("{DLL_PREFIX}{name}{DLL_SUFFIX}.{major}"));
        }
        for version in ["130_0", "120_0", "110_0"] {
            candidates.push(format!("{DLL_PREFIX}{name}64_{version}{DLL_SUFFIX}"));
        }
    }
    candidates.iter().any(|candidate| {
        // SAFETY: loading the library runs its initialisers, which is what every CUDA program
        // does on its first call into it; the handle is closed again (the loader keeps the
        // library while cudarc or the process itself holds it).
        unsafe { libloading::Library::new(candidate) }.is_ok()
    })
}
