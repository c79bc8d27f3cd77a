//! The raw baselines the launch benchmarks (`launch_overhead`, `launch_path`) measure the typed
//! launcher against: `empty4` launched straight through `cuLaunchKernel`, one block of 32
//! threads, with its parameters by `kernelParams` or packed in one buffer as the typed launcher
//! passes them. One home, so that both examples compare against the same launch.

use std::ffi::c_void;

use cuda_kernel::cudarc::driver::{CudaStream, sys};

type Error = Box<dyn std::error::Error>;

/// `empty4(a, b, c, n)` on `on`, each parameter pointed to (`kernelParams`).
pub fn empty4(
    function: sys::CUfunction,
    on: &CudaStream,
    pointers: [sys::CUdeviceptr; 3],
    n: u32,
) -> Result<(), Error> {
    let [pa, pb, pc] = pointers;
    let mut values: [*mut c_void; 4] = [
        (&raw const pa).cast_mut().cast(),
        (&raw const pb).cast_mut().cast(),
        (&raw const pc).cast_mut().cast(),
        (&raw const n).cast_mut().cast(),
    ];
    // SAFETY: empty4's four parameters, each pointed to, alive for the call.
    unsafe { launch(function, on, values.as_mut_ptr(), std::ptr::null_mut()) }
}

/// The same launch with its parameters packed in one buffer at their offsets (0, 8, 16, 24),
/// passed as `CU_LAUNCH_PARAM_BUFFER_POINTER`.
pub fn empty4_packed(
    function: sys::CUfunction,
    on: &CudaStream,
    pointers: [sys::CUdeviceptr; 3],
    n: u32,
) -> Result<(), Error> {
    let mut buffer = [0u8; 28];
    for (i, pointer) in pointers.iter().enumerate() {
        buffer[i * 8..i * 8 + 8].copy_from_slice(&pointer.to_le_bytes());
    }
    buffer[24..28].copy_from_slice(&n.to_le_bytes());
    let mut size = buffer.len();
    let mut extra = [
        sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
        buffer.as_mut_ptr().cast(),
        sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize as *mut c_void,
        (&raw mut size).cast(),
        sys::CU_LAUNCH_PARAM_END_AS_INT as usize as *mut c_void,
    ];
    // SAFETY: the buffer and its size, alive for the call, hold empty4's parameters.
    unsafe { launch(function, on, std::ptr::null_mut(), extra.as_mut_ptr()) }
}

/// `cuLaunchKernel` of one block of 32 threads.
///
/// # Safety
/// `params` or `extra` must describe `function`'s parameters, alive for the call.
unsafe fn launch(
    function: sys::CUfunction,
    on: &CudaStream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Result<(), Error> {
    // SAFETY: the caller's.
    unsafe {
        sys::cuLaunchKernel(
            function,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            on.cu_stream(),
            params,
            extra,
        )
    }
    .result()?;
    Ok(())
}
