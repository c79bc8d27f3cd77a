//! Loading a declared kernel and launching it with one packed parameter buffer.

use std::ffi::{CString, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule, CudaStream, sys};

use crate::config::{Config, DEFAULT_SHARED_MEMORY_LIMIT, DeviceLimits, shared_memory_limit};

use crate::{Error, KernelParam, ParamLayout, ParamSlot, SignatureMismatch};

/// First driver version with `cuFuncGetParamInfo` (CUDA 12.4).
const PARAM_INFO_DRIVER: i32 = 12_040;

/// Looks up the kernel `name` in `module` and checks its parameters against `layout`.
///
/// The check asks the driver for each parameter's offset and size (`cuFuncGetParamInfo`) and
/// returns [`Error::SignatureMismatch`] on any difference, including a different parameter
/// count. It works the same for modules loaded from PTX, cubin or fatbin. Drivers older than
/// CUDA 12.4 lack the call: there the check is skipped and the declaration is trusted.
pub fn load_function(
    module: &Arc<CudaModule>,
    name: &str,
    layout: &ParamLayout,
) -> Result<CudaFunction, Error> {
    crate::driver::require()?;
    // cudarc's load_function panics on an interior NUL; no entry can have one anyway.
    if CString::new(name).is_err() {
        return Err(Error::KernelNotFound {
            kernel: name.into(),
        });
    }
    let function = module.load_function(name).map_err(|e| match e.0 {
        sys::CUresult::CUDA_ERROR_NOT_FOUND => Error::KernelNotFound {
            kernel: name.into(),
        },
        _ => Error::Driver {
            call: "cuModuleGetFunction",
            source: e,
        },
    })?;
    if crate::driver::version()? >= PARAM_INFO_DRIVER {
        check_signature(&function, name, layout)?;
    }
    Ok(function)
}

/// Compares `layout` with the offsets and sizes the driver reports for `function`.
fn check_signature(function: &CudaFunction, name: &str, layout: &ParamLayout) -> Result<(), Error> {
    let mut loaded = Vec::with_capacity(layout.params.len());
    // One index past the declared count as well: a function with more parameters answers it.
    for index in 0..=layout.params.len() {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: the function handle is alive (held by `function`); the out-pointers are valid.
        // Only reached on drivers of CUDA 12.4 or newer, which export the symbol.
        let result = unsafe {
            sys::cuFuncGetParamInfo(function.cu_function(), index, &mut offset, &mut size)
        };
        match result {
            sys::CUresult::CUDA_SUCCESS => loaded.push((offset, size)),
            // Past the last parameter.
            sys::CUresult::CUDA_ERROR_INVALID_VALUE => break,
            code => {
                return Err(Error::Driver {
                    call: "cuFuncGetParamInfo",
                    source: cudarc::driver::DriverError(code),
                });
            }
        }
    }
    let matches = loaded.len() == layout.params.len()
        && layout
            .params
            .iter()
            .zip(&loaded)
            .all(|(p, &(offset, size))| (p.offset, p.size) == (offset, size));
    if matches {
        Ok(())
    } else {
        Err(Error::SignatureMismatch(Box::new(SignatureMismatch {
            kernel: name.into(),
            declared: *layout,
            loaded,
        })))
    }
}

/// The packed parameters of one launch, as passed to `cuLaunchKernel` through
/// `CU_LAUNCH_PARAM_BUFFER_POINTER`.
///
/// `N` is the signature's [`ParamLayout::size`], so the buffer lives on the stack. It starts
/// zeroed: padding between parameters reaches the device as zeros. A generated `pack` returns
/// one:
///
/// ```
/// #[cuda_kernel::kernel]
/// unsafe extern "C" {
///     fn scale(x: *mut f32, a: f32, n: u32);
/// }
/// let buf = Scale::pack(0x7f00_0000_1000, 2.0, 3);
/// assert_eq!(buf.bytes()[..8], 0x7f00_0000_1000u64.to_le_bytes());
/// assert_eq!(buf.bytes()[8..12], 2.0f32.to_le_bytes());
/// assert_eq!(buf.bytes()[12..], 3u32.to_le_bytes());
/// ```
#[repr(C, align(16))]
pub struct ParamBuffer<const N: usize>([u8; N]);

impl<const N: usize> ParamBuffer<N> {
    /// A zeroed buffer.
    #[inline(always)]
    pub const fn new() -> Self {
        ParamBuffer([0; N])
    }

    /// Writes `value` into `slot`, which must lie inside the buffer (it panics otherwise, as
    /// slicing does; generated code only passes slots of its own layout).
    #[inline(always)]
    pub fn put<T: KernelParam>(&mut self, slot: &ParamSlot, value: &T) {
        value.write(&mut self.0[slot.offset..slot.offset + T::SIZE]);
    }

    /// The packed bytes.
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The packed bytes, for the driver.
    #[inline(always)]
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl<const N: usize> Default for ParamBuffer<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// Launches `function` on `stream` with the packed `params` of a signature laid out as `layout`.
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
    function: &CudaFunction,
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
    config.check(&limits)?;
    if config.shared_mem_bytes > DEFAULT_SHARED_MEMORY_LIMIT {
        check_shared_memory(function, config.shared_mem_bytes)?;
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
                function.cu_function(),
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

/// The `extra` array that passes `params` as one buffer (`CU_LAUNCH_PARAM_BUFFER_POINTER`,
/// `CU_LAUNCH_PARAM_BUFFER_SIZE`, `CU_LAUNCH_PARAM_END`); `size` holds `params.len()` and must
/// outlive every use of the array.
pub(crate) fn buffer_extra(params: &mut [u8], size: &mut usize) -> [*mut c_void; 5] {
    [
        sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
        params.as_mut_ptr().cast::<c_void>(),
        sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize as *mut c_void,
        std::ptr::from_mut(size).cast::<c_void>(),
        sys::CU_LAUNCH_PARAM_END_AS_INT as usize as *mut c_void,
    ]
}

/// The pointer to hand the driver as `extra`: null for a kernel without parameters, for which
/// the driver refuses a buffer (a size of 0 is CUDA_ERROR_INVALID_VALUE).
pub(crate) fn extra_or_null(extra: &mut [*mut c_void; 5], params: &[u8]) -> *mut *mut c_void {
    if params.is_empty() {
        std::ptr::null_mut()
    } else {
        extra.as_mut_ptr()
    }
}

/// `cuLaunchKernelEx` with the attributes of `config`.
#[cold]
unsafe fn launch_extended(
    function: &CudaFunction,
    stream: &CudaStream,
    config: &Config,
    layout: &ParamLayout,
    params: &mut [u8],
    extra: *mut *mut c_void,
) -> Result<(), Error> {
    use sys::CUlaunchAttributeID::*;
    // SAFETY: an all-zero attribute is a valid value of this plain C union.
    let mut attrs: [sys::CUlaunchAttribute; 3] = unsafe { std::mem::zeroed() };
    let mut count = 0;
    if let Some((x, y, z)) = config.cluster {
        attrs[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[count].value.clusterDim.x = x;
        attrs[count].value.clusterDim.y = y;
        attrs[count].value.clusterDim.z = z;
        count += 1;
    }
    if config.cooperative {
        attrs[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attrs[count].value.cooperative = 1;
        count += 1;
    }
    if let Some(priority) = config.priority {
        attrs[count].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        attrs[count].value.priority = priority;
        count += 1;
    }
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
        numAttrs: count as u32,
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
        unsafe {
            sys::cuLaunchKernelEx(
                &launch,
                function.cu_function(),
                kernel_params,
                std::ptr::null_mut(),
            )
        }
    } else {
        // SAFETY: `extra` describes `params`, alive for the call.
        unsafe {
            sys::cuLaunchKernelEx(&launch, function.cu_function(), std::ptr::null_mut(), extra)
        }
    };
    result.result().map_err(Error::driver("cuLaunchKernelEx"))
}

/// Above the default 48 KiB, dynamic shared memory needs the kernel's own limit raised.
#[cold]
fn check_shared_memory(function: &CudaFunction, bytes: u32) -> Result<(), Error> {
    let limit = shared_memory_limit(function)?;
    if bytes > limit {
        return Err(Error::InvalidConfig {
            what: "dynamic shared memory per block (bytes) for this kernel, whose limit raise_shared_memory_limit raises,",
            value: u64::from(bytes),
            limit: Some(u64::from(limit)),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Float4;

    #[test]
    fn buffer_packs_each_value_at_its_slot_and_zeroes_padding() {
        static SLOTS: [ParamSlot; 3] = ParamLayout::place([
            ParamSlot::of::<u8>("c"),
            ParamSlot::of::<Float4>("v"),
            ParamSlot::of::<u16>("s"),
        ]);
        const LAYOUT: ParamLayout = ParamLayout::from_slots(&SLOTS);
        let mut buf = ParamBuffer::<{ LAYOUT.size }>::new();
        buf.put(&LAYOUT.params[0], &0xabu8);
        buf.put(&LAYOUT.params[1], &Float4::new(1.0, 2.0, 3.0, 4.0));
        buf.put(&LAYOUT.params[2], &0x0102u16);
        let b = buf.bytes();
        assert_eq!(b.len(), 34);
        assert_eq!(b[0], 0xab);
        assert!(b[1..16].iter().all(|&x| x == 0), "padding must be zero");
        assert_eq!(b[16..20], 1.0f32.to_le_bytes());
        assert_eq!(b[28..32], 4.0f32.to_le_bytes());
        assert_eq!(b[32..34], [0x02, 0x01]);
    }
}
