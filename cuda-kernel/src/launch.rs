//! Launching a declared kernel with one packed parameter buffer.

use std::ffi::c_void;

use cudarc::driver::{CudaStream, sys};

use crate::library::Loaded;

use crate::buffer::{buffer_extra, extra_or_null};
use crate::config::{Config, DEFAULT_SHARED_MEMORY_LIMIT, DeviceLimits, shared_memory_limit};
use crate::{Error, ParamLayout, ParamSlot};

/// Launches `function` (its function for `stream`'s device) on `stream` with the packed `params` of a signature laid out as `layout`.
///
/// Checks `config` against the device first ([`Error::InvalidConfig`]). A plain launch goes
/// through `cuLaunchKernel` with the buffer as `CU_LAUNCH_PARAM_BUFFER_POINTER`; one with
/// clusters or a priority through `cuLaunchKernelEx` with the same buffer; a cooperative one
/// through `cuLaunchKernelEx` with `kernelParams` pointing into the buffer at each parameter's
/// offset (the driver does not take a buffer for cooperative launches).
///
/// # Safety
/// `params` must be the packed parameters of `function`, laid out as `layout`, and every device
/// address in it must stay valid until the kernel has run.
#[inline]
pub unsafe fn launch_packed(
    function: &Loaded,
    stream: &CudaStream,
    config: &Config,
    layout: &ParamLayout,
    params: &mut [u8],
) -> Result<(), Error> {
    stream
        .context()
        .bind_to_thread()
        .map_err(Error::driver("cuCtxSetCurrent"))?;
    let limits = DeviceLimits::of(stream)?;
    let function = function.cu_function(stream)?;
    config.check(&limits)?;
    if config.shared_mem_bytes > DEFAULT_SHARED_MEMORY_LIMIT {
        check_shared_memory(function, config.shared_mem_bytes, &limits)?;
    }
    if params.len() > limits.max_param_bytes {
        return Err(Error::ParamsTooLarge {
            size: params.len(),
            limit: limits.max_param_bytes,
        });
    }
    let mut size = params.len();
    let mut extra = buffer_extra(params, &mut size);
    let extra_ptr = extra_or_null(&mut extra, params);
    if !config.is_extended() {
        let (gx, gy, gz) = config.grid;
        let (bx, by, bz) = config.block;
        // SAFETY: the handles are alive; `extra` points at the packed buffer and its size, both
        // alive for the call, which copies them; the caller vouches for the contents.
        return unsafe {
            sys::cuLaunchKernel(
                function,
                gx,
                gy,
                gz,
                bx,
                by,
                bz,
                config.shared_mem_bytes,
                stream.cu_stream(),
                std::ptr::null_mut(),
                extra_ptr,
            )
        }
        .result()
        .map_err(Error::driver("cuLaunchKernel"));
    }
    // SAFETY: as above; for cooperative launches `kernel_params` points into `params`.
    unsafe { launch_extended(function, stream, config, layout, params, extra_ptr) }
}

/// `cuLaunchKernelEx` with the attributes of `config`.
#[cold]
unsafe fn launch_extended(
    function: sys::CUfunction,
    stream: &CudaStream,
    config: &Config,
    layout: &ParamLayout,
    params: &mut [u8],
    extra: *mut *mut c_void,
) -> Result<(), Error> {
    let mut attrs = config.launch_attributes();
    let attrs = attrs.as_mut();
    let launch = sys::CUlaunchConfig {
        gridDimX: config.grid.0,
        gridDimY: config.grid.1,
        gridDimZ: config.grid.2,
        blockDimX: config.block.0,
        blockDimY: config.block.1,
        blockDimZ: config.block.2,
        sharedMemBytes: config.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as u32,
    };
    let result = if config.cooperative {
        // Cooperative launches refuse `extra`: one pointer per parameter, into the buffer; on
        // the stack for up to 32 parameters.
        let base = params.as_mut_ptr();
        // SAFETY: every slot lies inside the buffer packed for this layout.
        let pointer = |p: &ParamSlot| unsafe { base.add(p.offset) }.cast::<c_void>();
        let mut on_stack = [std::ptr::null_mut(); 32];
        let mut on_heap = Vec::new();
        let pointers: &mut [*mut c_void] = if layout.params.len() <= on_stack.len() {
            for (slot, p) in on_stack.iter_mut().zip(layout.params) {
                *slot = pointer(p);
            }
            &mut on_stack[..layout.params.len()]
        } else {
            on_heap.extend(layout.params.iter().map(pointer));
            &mut on_heap
        };
        let kernel_params = if pointers.is_empty() {
            std::ptr::null_mut()
        } else {
            pointers.as_mut_ptr()
        };
        // SAFETY: the pointers point into `params`, alive for the call.
        unsafe { sys::cuLaunchKernelEx(&launch, function, kernel_params, std::ptr::null_mut()) }
    } else {
        // SAFETY: `extra` describes `params`, alive for the call.
        unsafe { sys::cuLaunchKernelEx(&launch, function, std::ptr::null_mut(), extra) }
    };
    result.result().map_err(Error::driver("cuLaunchKernelEx"))
}

/// Above the default 48 KiB, dynamic shared memory needs the kernel's own limit raised.
#[cold]
pub(crate) fn check_shared_memory(
    function: sys::CUfunction,
    bytes: u32,
    limits: &DeviceLimits,
) -> Result<(), Error> {
    let kernel_limit = shared_memory_limit(function)?;
    if bytes > kernel_limit {
        return Err(Error::SharedMemoryLimit {
            bytes,
            kernel_limit,
            device_max: limits.max_shared_memory_optin,
        });
    }
    Ok(())
}
