//! Every raw driver call the crate makes, one safe-signatured wrapper each, as cudarc's
//! `driver/result.rs` keeps them: the rest of the crate calls these and never `sys::cu*`.
//! Each wrapper turns a failure into [`Error::Driver`] naming the call.

use std::ffi::{CStr, c_void};
use std::sync::OnceLock;

use cudarc::driver::{CudaContext, DriverError, sys};

use crate::Error;
use crate::driver::attribute::RawAttribute;

/// `result` as `Ok`, or the driver's error named after `call`.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn check(call: &'static str, result: sys::CUresult) -> Result<(), Error> {
    match result {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        code => Err(Error::Driver {
            call,
            source: DriverError(code),
        }),
    }
}

/// The calling thread's current context (`cuCtxGetCurrent`), null where none is.
#[inline]
pub(crate) fn current_context() -> Result<sys::CUcontext, Error> {
    let mut current = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the library is present (checked by the caller).
    check("cuCtxGetCurrent", unsafe {
        sys::cuCtxGetCurrent(&mut current)
    })?;
    Ok(current)
}

/// `cuCtxSetCurrent`: makes `ctx` (or, null, no context) current on the calling thread.
pub(crate) fn set_current_context(ctx: sys::CUcontext) -> Result<(), Error> {
    // SAFETY: a context handle the caller holds alive, or null.
    check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(ctx) })
}

/// A context made current for a call and given back after it, as the Programming Guide's
/// "Library Context Management" (§3.3.1, Figure 20) asks of a library: every launch, load,
/// plan and global access holds one while it (and cudarc under it) calls the driver.
///
/// Entering costs one `cuCtxGetCurrent` when `ctx` is current already (the common case). When
/// the caller has another context current, `ctx` is pushed (`cuCtxPushCurrent`) and popped
/// when the guard drops, so the caller's comes back. A thread with no current context is given
/// `ctx` and keeps it, as cudarc's own calls do (nothing of the caller's is displaced), so that
/// its later launches are the common case.
#[must_use = "the context is current only while the guard lives"]
#[derive(Debug)]
pub struct Entered {
    pushed: bool,
}

impl Entered {
    /// Nothing made current, nothing to give back: a launch whose stream names its context
    /// (see [`launch::enter`](crate::launch::enter)).
    pub(crate) const NOTHING: Entered = Entered { pushed: false };
}

/// Makes `ctx` current until the returned guard drops (see [`Entered`]).
#[inline]
pub(crate) fn enter(ctx: &CudaContext) -> Result<Entered, Error> {
    let current = current_context()?;
    let ours = ctx.cu_ctx();
    if current == ours {
        return Ok(Entered { pushed: false });
    }
    enter_other(current, ours)
}

#[cold]
fn enter_other(current: sys::CUcontext, ours: sys::CUcontext) -> Result<Entered, Error> {
    if current.is_null() {
        set_current_context(ours)?;
        return Ok(Entered { pushed: false });
    }
    // SAFETY: a context the caller's CudaContext keeps alive.
    check("cuCtxPushCurrent", unsafe {
        sys::cuCtxPushCurrent_v2(ours)
    })?;
    Ok(Entered { pushed: true })
}

impl Drop for Entered {
    #[inline]
    fn drop(&mut self) {
        if self.pushed {
            let mut popped = std::ptr::null_mut();
            // SAFETY: pops the context `enter` pushed on this thread; a failure leaves the
            // stack as it was, and there is no one to report it to here.
            let _ = unsafe { sys::cuCtxPopCurrent_v2(&mut popped) };
        }
    }
}

/// `cuDriverGetVersion`.
pub(crate) fn driver_version() -> Result<i32, Error> {
    let mut version = 0;
    // SAFETY: the library is present (checked by the caller); a valid out-pointer.
    check("cuDriverGetVersion", unsafe {
        sys::cuDriverGetVersion(&mut version)
    })?;
    Ok(version)
}

/// `cuInit(0)`, which may be called any number of times.
pub(crate) fn init() -> Result<(), Error> {
    // SAFETY: the library is present (checked by the caller).
    check("cuInit", unsafe { sys::cuInit(0) })
}

/// Whether the thread has a live current context (`cuCtxGetCurrent`, `cuCtxGetDevice`, which
/// fails for a destroyed one).
pub(crate) fn has_live_context() -> bool {
    let mut current = std::ptr::null_mut();
    let mut device = 0;
    // SAFETY: valid out-pointers.
    let has_current = unsafe { sys::cuCtxGetCurrent(&mut current) };
    has_current == sys::CUresult::CUDA_SUCCESS
        && !current.is_null()
        // SAFETY: a valid out-pointer.
        && unsafe { sys::cuCtxGetDevice(&mut device) } == sys::CUresult::CUDA_SUCCESS
}

/// A newer driver entry point, typed `F` (a `extern "C" fn` pointer), looked up once through
/// `cuGetProcAddress` as of CUDA `version` and kept in `cell`; `None` where the driver lacks
/// it. Newer calls are reached this way rather than through cudarc's bindings, which follow the
/// CUDA version feature the user's crate picked for cudarc and may predate them.
///
/// # Safety
/// `F` must be the signature of the driver's entry point `name` as of `version`.
unsafe fn entry_point<F: Copy>(
    cell: &'static OnceLock<Option<F>>,
    name: &CStr,
    version: i32,
) -> Option<F> {
    const { assert!(size_of::<F>() == size_of::<*mut c_void>()) };
    *cell.get_or_init(|| {
        // Asked of an older driver, the lookup fails (`CUDA_ERROR_INVALID_VALUE`), a call that
        // compute-sanitizer would report as the user's error: the version decides first.
        if crate::driver::version().map_or(true, |driver| driver < version) {
            return None;
        }
        let mut pfn = std::ptr::null_mut();
        let mut status = sys::CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS;
        // SAFETY: the library is present; the name is a C string, the out-pointers valid.
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
        // SAFETY: the caller vouches that `F` is this entry point's signature; sizes checked.
        found.then(|| unsafe { std::mem::transmute_copy::<*mut c_void, F>(&pfn) })
    })
}

/// `cuEventCreate` of an event without timing (the cheapest to record and query), in the
/// current context.
pub(crate) fn event_create() -> Result<sys::CUevent, Error> {
    let mut event = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the caller made a context current.
    check("cuEventCreate", unsafe {
        sys::cuEventCreate(
            &mut event,
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as std::ffi::c_uint,
        )
    })?;
    Ok(event)
}

/// `cuEventRecord` of `event` on `stream`.
pub(crate) fn event_record(event: sys::CUevent, stream: sys::CUstream) -> Result<(), Error> {
    // SAFETY: an event and a stream the caller holds alive, of one context.
    check("cuEventRecord", unsafe {
        sys::cuEventRecord(event, stream)
    })
}

/// `cuEventQuery`: the driver's answer as it is (`CUDA_SUCCESS` once the work before the
/// event is done, `CUDA_ERROR_NOT_READY` before, the context's error after a fault).
pub(crate) fn event_query(event: sys::CUevent) -> sys::CUresult {
    // SAFETY: an event the caller holds alive.
    unsafe { sys::cuEventQuery(event) }
}

/// `cuEventDestroy`; a failure (of a context already lost) leaves nothing to do.
pub(crate) fn event_destroy(event: sys::CUevent) {
    // SAFETY: an event the caller owns and no longer uses.
    let _ = unsafe { sys::cuEventDestroy_v2(event) };
}

/// The driver's callback of a stream: `(stream, status, data)`.
pub(crate) type StreamCallback = unsafe extern "C" fn(sys::CUstream, sys::CUresult, *mut c_void);

/// `cuStreamAddCallback`: `callback(stream, status, data)` runs on a thread of the driver's
/// once the stream's work queued before it is done, `status` the stream's error if it failed.
/// Looked up through `cuGetProcAddress`, so that a driver without it is an
/// [`Error::Unsupported`] rather than cudarc's panic.
///
/// # Safety
/// `callback` must make no driver call and must own `data` (the driver calls it exactly once
/// when this returns `Ok`).
pub(crate) unsafe fn stream_add_callback(
    stream: sys::CUstream,
    callback: StreamCallback,
    data: *mut c_void,
) -> Result<(), Error> {
    type AddCallback = unsafe extern "C" fn(
        sys::CUstream,
        Option<StreamCallback>,
        *mut c_void,
        std::ffi::c_uint,
    ) -> sys::CUresult;
    static ENTRY: OnceLock<Option<AddCallback>> = OnceLock::new();
    // SAFETY: the signature of cuStreamAddCallback since CUDA 5.0.
    let entry = unsafe { entry_point(&ENTRY, c"cuStreamAddCallback", 10_000) };
    let Some(add) = entry else {
        return Err(Error::Unsupported(
            "this CUDA driver has no cuStreamAddCallback, which completions as futures need",
        ));
    };
    // SAFETY: a stream the caller holds alive; the caller's callback and data.
    check("cuStreamAddCallback", unsafe {
        add(stream, Some(callback), data, 0)
    })
}

/// First driver version with `cuFuncGetParamInfo` and `cuKernelGetParamInfo` (CUDA 12.4).
pub(crate) const PARAM_INFO_DRIVER: i32 = 12_040;

type GetParamInfo<H> = unsafe extern "C" fn(H, usize, *mut usize, *mut usize) -> sys::CUresult;

/// `cuFuncGetParamInfo` (CUDA 12.4+) of parameter `index`: `Some((offset, size))`, `None` past
/// the last parameter, and `Err` for the driver's other answers; `Ok(None)` too where the
/// driver lacks the call (the caller checks [`PARAM_INFO_DRIVER`] first).
pub(crate) fn func_param_info(
    function: sys::CUfunction,
    index: usize,
) -> Result<Option<(usize, usize)>, Error> {
    static ENTRY: OnceLock<Option<GetParamInfo<sys::CUfunction>>> = OnceLock::new();
    // SAFETY: the signature of cuFuncGetParamInfo as of CUDA 12.4.
    let entry = unsafe { entry_point(&ENTRY, c"cuFuncGetParamInfo", PARAM_INFO_DRIVER) };
    param_info("cuFuncGetParamInfo", entry, function, index)
}

/// `cuKernelGetParamInfo` (CUDA 12.4+), as [`func_param_info`]; needs a current context.
pub(crate) fn kernel_param_info(
    kernel: sys::CUkernel,
    index: usize,
) -> Result<Option<(usize, usize)>, Error> {
    static ENTRY: OnceLock<Option<GetParamInfo<sys::CUkernel>>> = OnceLock::new();
    // SAFETY: the signature of cuKernelGetParamInfo as of CUDA 12.4.
    let entry = unsafe { entry_point(&ENTRY, c"cuKernelGetParamInfo", PARAM_INFO_DRIVER) };
    param_info("cuKernelGetParamInfo", entry, kernel, index)
}

fn param_info<H>(
    call: &'static str,
    entry: Option<GetParamInfo<H>>,
    handle: H,
    index: usize,
) -> Result<Option<(usize, usize)>, Error> {
    let Some(entry) = entry else { return Ok(None) };
    let (mut offset, mut size) = (0usize, 0usize);
    // SAFETY: the caller's handle is alive; valid out-pointers.
    match unsafe { entry(handle, index, &mut offset, &mut size) } {
        sys::CUresult::CUDA_SUCCESS => Ok(Some((offset, size))),
        // Past the last parameter.
        sys::CUresult::CUDA_ERROR_INVALID_VALUE => Ok(None),
        code => check(call, code).map(|()| None),
    }
}

type GetParamCount = unsafe extern "C" fn(sys::CUfunction, *mut usize) -> sys::CUresult;

/// `cuFuncGetParamCount`, where the driver has it (CUDA 13.2 and newer).
fn param_count_entry() -> Option<GetParamCount> {
    static ENTRY: OnceLock<Option<GetParamCount>> = OnceLock::new();
    // SAFETY: the signature of cuFuncGetParamCount as of CUDA 13.2.
    unsafe { entry_point(&ENTRY, c"cuFuncGetParamCount", 13_020) }
}

/// Whether the driver can say how many parameters a function takes ([`func_param_count`]).
pub(crate) fn has_param_count() -> bool {
    param_count_entry().is_some()
}

/// `cuFuncGetParamCount` (CUDA 13.2+ drivers): how many parameters the function takes, so that
/// the signature check asks for no parameter past the last (which the driver answers with an
/// error that compute-sanitizer reports); `Ok(None)` where the driver lacks the call.
pub(crate) fn func_param_count(function: sys::CUfunction) -> Result<Option<usize>, Error> {
    let Some(entry) = param_count_entry() else {
        return Ok(None);
    };
    let mut count = 0usize;
    // SAFETY: the caller's function is alive; a valid out-pointer.
    check("cuFuncGetParamCount", unsafe {
        entry(function, &mut count)
    })?;
    Ok(Some(count))
}

/// Whether the driver has the parameter queries at all.
pub(crate) fn has_param_info() -> Result<bool, Error> {
    Ok(crate::driver::version()? >= PARAM_INFO_DRIVER)
}

/// `cuLibraryLoadData` of `code`: NUL-terminated PTX text or a cubin or fatbin whose header
/// gives its size (see [`crate::driver::image::Image`]).
pub(crate) fn library_load(code: *const c_void) -> Result<sys::CUlibrary, Error> {
    let mut library = std::ptr::null_mut();
    // SAFETY: the caller's `code` is terminated or self-sized; no options.
    check("cuLibraryLoadData", unsafe {
        sys::cuLibraryLoadData(
            &mut library,
            code,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        )
    })?;
    Ok(library)
}

/// What the JIT says of a module image it refused (Programming Guide §3.3.2): the image loaded
/// once more through `cuModuleLoadDataEx` with the error and info log buffers, its error log
/// (or, empty, its info log), trimmed to the lines that say something. A module that loads this
/// time is unloaded at once. Needs a current context, as any module load.
pub(crate) fn jit_log(image: *const c_void) -> String {
    use sys::CUjit_option::*;
    const LOG: usize = 16 * 1024;
    let mut error_log = vec![0u8; LOG];
    let mut info_log = vec![0u8; LOG];
    let mut options = [
        CU_JIT_ERROR_LOG_BUFFER,
        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_INFO_LOG_BUFFER,
        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values: [*mut c_void; 4] = [
        error_log.as_mut_ptr().cast(),
        LOG as *mut c_void,
        info_log.as_mut_ptr().cast(),
        LOG as *mut c_void,
    ];
    let mut module = std::ptr::null_mut();
    // SAFETY: the caller's image is NUL-terminated or self-sized; each buffer option is given
    // its buffer and that buffer's size, both alive for the call.
    let result = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    if result == sys::CUresult::CUDA_SUCCESS {
        // SAFETY: the module was loaded just now and nothing else has it.
        unsafe { sys::cuModuleUnload(module) };
    }
    let text = |log: &[u8]| {
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        String::from_utf8_lossy(&log[..end]).trim().to_string()
    };
    let log = match text(&error_log) {
        log if log.is_empty() => text(&info_log),
        log => log,
    };
    trim_log(&log)
}

/// The first 30 lines of a JIT log, each at most 300 characters.
fn trim_log(log: &str) -> String {
    let mut out: Vec<String> = log
        .lines()
        .take(30)
        .map(|line| line.chars().take(300).collect())
        .collect();
    let more = log.lines().count().saturating_sub(30);
    if more > 0 {
        out.push(format!("... ({more} more lines)"));
    }
    out.join("\n")
}

/// `cuLibraryUnload`.
///
/// # Safety
/// `library` is the caller's own and nothing uses it after.
pub(crate) unsafe fn library_unload(library: sys::CUlibrary) {
    // SAFETY: the caller's.
    unsafe { sys::cuLibraryUnload(library) };
}

/// `cuLibraryGetKernel`: `Ok(None)` when the library has no kernel `name`.
pub(crate) fn library_get_kernel(
    library: sys::CUlibrary,
    name: &CStr,
) -> Result<Option<sys::CUkernel>, Error> {
    let mut kernel = std::ptr::null_mut();
    // SAFETY: the caller's library is alive; the name is a C string.
    match unsafe { sys::cuLibraryGetKernel(&mut kernel, library, name.as_ptr()) } {
        sys::CUresult::CUDA_ERROR_NOT_FOUND => Ok(None),
        code => check("cuLibraryGetKernel", code).map(|()| Some(kernel)),
    }
}

/// `cuKernelGetFunction`, in the current context.
pub(crate) fn kernel_get_function(kernel: sys::CUkernel) -> Result<sys::CUfunction, Error> {
    let mut function = std::ptr::null_mut();
    // SAFETY: the caller's kernel is alive and a context is current.
    check("cuKernelGetFunction", unsafe {
        sys::cuKernelGetFunction(&mut function, kernel)
    })?;
    Ok(function)
}

/// `cuFuncGetAttribute`.
pub(crate) fn func_attribute(
    function: sys::CUfunction,
    attribute: sys::CUfunction_attribute,
) -> Result<i32, Error> {
    let mut value = 0;
    // SAFETY: the caller's function handle is alive; a valid out-pointer.
    check("cuFuncGetAttribute", unsafe {
        sys::cuFuncGetAttribute(&mut value, attribute, function)
    })?;
    Ok(value)
}

/// `cuFuncSetAttribute`.
pub(crate) fn set_func_attribute(
    function: sys::CUfunction,
    attribute: sys::CUfunction_attribute,
    value: i32,
) -> Result<(), Error> {
    // SAFETY: the caller's function handle is alive.
    check("cuFuncSetAttribute", unsafe {
        sys::cuFuncSetAttribute(function, attribute, value)
    })
}

/// The thread-block cluster shape `function` was compiled with (`__cluster_dims__`, PTX
/// `.reqnctapercluster`), `None` for a kernel without one. A driver that does not know the
/// attributes (before CUDA 11.8) reports none.
pub(crate) fn compiled_cluster(function: sys::CUfunction) -> Option<(u32, u32, u32)> {
    use sys::CUfunction_attribute::{
        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH as DEPTH,
        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT as HEIGHT,
        CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH as WIDTH,
    };
    let dim = |attribute| {
        let mut value = 0;
        // SAFETY: the caller's function handle is alive; a valid out-pointer.
        let code = unsafe { sys::cuFuncGetAttribute(&mut value, attribute, function) };
        (code == sys::CUresult::CUDA_SUCCESS && value > 0).then_some(value as u32)
    };
    Some((dim(WIDTH)?, dim(HEIGHT)?, dim(DEPTH)?))
}

/// `cuLaunchKernel` with the packed buffer `extra` (or null for no parameters).
///
/// # Safety
/// `extra` describes the packed parameters of `function`, alive for the call; every device
/// address in them stays valid until the kernel has run.
#[inline]
pub(crate) unsafe fn launch_kernel(
    function: sys::CUfunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared_mem_bytes: u32,
    stream: sys::CUstream,
    extra: *mut *mut c_void,
) -> Result<(), Error> {
    // SAFETY: the caller's.
    check("cuLaunchKernel", unsafe {
        sys::cuLaunchKernel(
            function,
            grid.0,
            grid.1,
            grid.2,
            block.0,
            block.1,
            block.2,
            shared_mem_bytes,
            stream,
            std::ptr::null_mut(),
            extra,
        )
    })
}

/// `cuLaunchKernelEx` with either `kernel_params` or `extra`; `launch.attrs` points at
/// [`RawAttribute`]s (the driver's layout).
///
/// # Safety
/// As for [`launch_kernel`]; `kernel_params` points at one pointer per parameter.
pub(crate) unsafe fn launch_kernel_ex(
    launch: &sys::CUlaunchConfig,
    function: sys::CUfunction,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Result<(), Error> {
    // SAFETY: the caller's.
    check("cuLaunchKernelEx", unsafe {
        sys::cuLaunchKernelEx(launch, function, kernel_params, extra)
    })
}

/// `cuStreamSynchronize`: waits for the work queued on `stream` (a fault of any of it is the
/// error).
pub(crate) fn stream_synchronize(stream: sys::CUstream) -> Result<(), Error> {
    // SAFETY: a stream handle the caller holds alive.
    check("cuStreamSynchronize", unsafe {
        sys::cuStreamSynchronize(stream)
    })
}

/// `cuMemcpyHtoDAsync` of `bytes` to `dst`.
///
/// # Safety
/// `dst` holds at least `bytes.len()` bytes and is alive.
pub(crate) unsafe fn memcpy_htod_async(
    dst: sys::CUdeviceptr,
    bytes: &[u8],
    stream: sys::CUstream,
) -> Result<(), Error> {
    // SAFETY: the caller's; from pageable memory the driver copies before returning.
    check("cuMemcpyHtoDAsync", unsafe {
        sys::cuMemcpyHtoDAsync_v2(dst, bytes.as_ptr().cast(), bytes.len(), stream)
    })
}

/// `cuMemcpyDtoHAsync` of `out.len()` bytes from `src`; the caller synchronizes before reading.
///
/// # Safety
/// `src` holds at least `out.len()` bytes and is alive.
pub(crate) unsafe fn memcpy_dtoh_async(
    out: &mut [u8],
    src: sys::CUdeviceptr,
    stream: sys::CUstream,
) -> Result<(), Error> {
    // SAFETY: the caller's.
    check("cuMemcpyDtoHAsync", unsafe {
        sys::cuMemcpyDtoHAsync_v2(out.as_mut_ptr().cast(), src, out.len(), stream)
    })
}

/// `cuGraphCreate`, in the current context.
pub(crate) fn graph_create() -> Result<sys::CUgraph, Error> {
    let mut graph = std::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    check("cuGraphCreate", unsafe {
        sys::cuGraphCreate(&mut graph, 0)
    })?;
    Ok(graph)
}

/// `cuGraphDestroy`.
///
/// # Safety
/// The graph is the caller's own and nothing uses it after.
pub(crate) unsafe fn graph_destroy(graph: sys::CUgraph) {
    // SAFETY: the caller's.
    unsafe { sys::cuGraphDestroy(graph) };
}

/// `cuGraphInstantiateWithFlags` with no flags.
pub(crate) fn graph_instantiate(graph: sys::CUgraph) -> Result<sys::CUgraphExec, Error> {
    let mut exec = std::ptr::null_mut();
    // SAFETY: the caller's graph is alive.
    check("cuGraphInstantiate", unsafe {
        sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0)
    })?;
    Ok(exec)
}

/// `cuGraphUpload` of an instantiated graph on `stream`.
pub(crate) fn graph_upload(exec: sys::CUgraphExec, stream: sys::CUstream) -> Result<(), Error> {
    // SAFETY: the caller's executable graph and stream are alive.
    check("cuGraphUpload", unsafe { sys::cuGraphUpload(exec, stream) })
}

/// `cuGraphExecDestroy`.
///
/// # Safety
/// The executable graph is the caller's own; the driver defers destruction of a running one.
pub(crate) unsafe fn graph_exec_destroy(exec: sys::CUgraphExec) {
    // SAFETY: the caller's.
    unsafe { sys::cuGraphExecDestroy(exec) };
}

/// `cuGraphLaunch`.
///
/// # Safety
/// Every device address the graph's nodes hold is valid until it has run.
pub(crate) unsafe fn graph_launch(
    exec: sys::CUgraphExec,
    stream: sys::CUstream,
) -> Result<(), Error> {
    // SAFETY: the caller's.
    check("cuGraphLaunch", unsafe { sys::cuGraphLaunch(exec, stream) })
}

/// `cuGraphAddKernelNode` after `dependencies`.
///
/// # Safety
/// `params` points at live parameters of its function (the driver copies them).
pub(crate) unsafe fn graph_add_kernel_node(
    graph: sys::CUgraph,
    dependencies: &[sys::CUgraphNode],
    params: &sys::CUDA_KERNEL_NODE_PARAMS,
) -> Result<sys::CUgraphNode, Error> {
    let mut node = std::ptr::null_mut();
    // SAFETY: the caller's.
    check("cuGraphAddKernelNode", unsafe {
        sys::cuGraphAddKernelNode_v2(
            &mut node,
            graph,
            dependencies.as_ptr(),
            dependencies.len(),
            params,
        )
    })?;
    Ok(node)
}

/// `cuGraphKernelNodeSetParams` of a graph's node.
///
/// # Safety
/// As for [`graph_add_kernel_node`].
pub(crate) unsafe fn graph_kernel_node_set_params(
    node: sys::CUgraphNode,
    params: &sys::CUDA_KERNEL_NODE_PARAMS,
) -> Result<(), Error> {
    // SAFETY: the caller's.
    check("cuGraphKernelNodeSetParams", unsafe {
        sys::cuGraphKernelNodeSetParams_v2(node, params)
    })
}

/// `cuGraphExecKernelNodeSetParams` of an instantiated graph's node.
///
/// # Safety
/// As for [`graph_add_kernel_node`]; `node` launches the same function.
pub(crate) unsafe fn graph_exec_kernel_node_set_params(
    exec: sys::CUgraphExec,
    node: sys::CUgraphNode,
    params: &sys::CUDA_KERNEL_NODE_PARAMS,
) -> Result<(), Error> {
    // SAFETY: the caller's.
    check("cuGraphExecKernelNodeSetParams", unsafe {
        sys::cuGraphExecKernelNodeSetParams_v2(exec, node, params)
    })
}

type NodeAttribute = unsafe extern "C" fn(sys::CUgraphNode, u32, *mut c_void) -> sys::CUresult;

/// `cuGraphKernelNodeSetAttribute` of one launch attribute, its number passed as the driver
/// reads it (not as cudarc's enum of the chosen CUDA version).
pub(crate) fn graph_kernel_node_set_attribute(
    node: sys::CUgraphNode,
    attribute: &RawAttribute,
) -> Result<(), Error> {
    static ENTRY: OnceLock<Option<NodeAttribute>> = OnceLock::new();
    // SAFETY: the signature of cuGraphKernelNodeSetAttribute since CUDA 11.0 (the value is
    // const; the driver does not write it).
    let entry = unsafe { entry_point(&ENTRY, c"cuGraphKernelNodeSetAttribute", 11_000) };
    let Some(set) = entry else {
        return Err(Error::Unsupported(
            "this CUDA driver has no cuGraphKernelNodeSetAttribute",
        ));
    };
    // SAFETY: the caller's node is alive; the value is the attribute's union.
    check("cuGraphKernelNodeSetAttribute", unsafe {
        set(node, attribute.id, attribute.value_ptr().cast_mut())
    })
}

/// `cuGraphKernelNodeGetAttribute` of the attribute numbered `id`: its value as the driver
/// reports it.
pub(crate) fn graph_kernel_node_get_attribute(
    node: sys::CUgraphNode,
    id: u32,
) -> Result<RawAttribute, Error> {
    static ENTRY: OnceLock<Option<NodeAttribute>> = OnceLock::new();
    // SAFETY: the signature of cuGraphKernelNodeGetAttribute since CUDA 11.0.
    let entry = unsafe { entry_point(&ENTRY, c"cuGraphKernelNodeGetAttribute", 11_000) };
    let Some(get) = entry else {
        return Err(Error::Unsupported(
            "this CUDA driver has no cuGraphKernelNodeGetAttribute",
        ));
    };
    let mut attribute = RawAttribute::empty(id);
    // SAFETY: the caller's node is alive; the value is a whole 64-byte union.
    check("cuGraphKernelNodeGetAttribute", unsafe {
        get(node, id, attribute.value_mut_ptr())
    })?;
    Ok(attribute)
}

/// Whether `stream` is capturing a graph (`cuStreamIsCapturing`).
pub(crate) fn stream_is_capturing(stream: sys::CUstream) -> Result<bool, Error> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: a stream the caller holds alive; a valid out-pointer.
    check("cuStreamIsCapturing", unsafe {
        sys::cuStreamIsCapturing(stream, &mut status)
    })?;
    Ok(status == sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE)
}

/// `cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)` in the current context.
pub(crate) fn set_persisting_l2_limit(bytes: usize) -> Result<(), Error> {
    // SAFETY: a limit and its value.
    check("cuCtxSetLimit", unsafe {
        sys::cuCtxSetLimit(sys::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE, bytes)
    })
}

/// `cuCtxGetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)` in the current context.
pub(crate) fn persisting_l2_limit() -> Result<usize, Error> {
    let mut bytes = 0usize;
    // SAFETY: a valid out-pointer.
    check("cuCtxGetLimit", unsafe {
        sys::cuCtxGetLimit(&mut bytes, sys::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
    })?;
    Ok(bytes)
}

/// `cuCtxResetPersistingL2Cache` in the current context.
pub(crate) fn reset_persisting_l2() -> Result<(), Error> {
    // SAFETY: no arguments.
    check("cuCtxResetPersistingL2Cache", unsafe {
        sys::cuCtxResetPersistingL2Cache()
    })
}

/// The nodes of `graph` (`cuGraphGetNodes`).
pub(crate) fn graph_nodes(graph: sys::CUgraph) -> Result<Vec<sys::CUgraphNode>, Error> {
    let mut count = 0usize;
    // SAFETY: the caller's graph is alive; a null array asks for the count.
    check("cuGraphGetNodes", unsafe {
        sys::cuGraphGetNodes(graph, std::ptr::null_mut(), &mut count)
    })?;
    let mut nodes = vec![std::ptr::null_mut(); count];
    // SAFETY: `nodes` has room for `count` handles.
    check("cuGraphGetNodes", unsafe {
        sys::cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut count)
    })?;
    nodes.truncate(count);
    Ok(nodes)
}

/// The function a node launches, or `None` for a node that is not a kernel node
/// (`cuGraphNodeGetType`, `cuGraphKernelNodeGetParams`).
pub(crate) fn graph_node_function(
    node: sys::CUgraphNode,
) -> Result<Option<sys::CUfunction>, Error> {
    let mut kind = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
    // SAFETY: the caller's node belongs to a live graph.
    check("cuGraphNodeGetType", unsafe {
        sys::cuGraphNodeGetType(node, &mut kind)
    })?;
    if kind != sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL {
        return Ok(None);
    }
    // SAFETY: plain data, zero is a valid start; a kernel node.
    let mut params: sys::CUDA_KERNEL_NODE_PARAMS = unsafe { std::mem::zeroed() };
    check("cuGraphKernelNodeGetParams", unsafe {
        sys::cuGraphKernelNodeGetParams_v2(node, &mut params)
    })?;
    Ok(Some(params.func))
}

/// `CUgraphEdgeData` (CUDA 12.3), spelled here so that cudarc's bindings of any CUDA 12 version
/// serve.
#[repr(C)]
struct EdgeData {
    from_port: u8,
    to_port: u8,
    kind: u8,
    reserved: [u8; 5],
}

type AddDependencies = unsafe extern "C" fn(
    sys::CUgraph,
    *const sys::CUgraphNode,
    *const sys::CUgraphNode,
    *const EdgeData,
    usize,
) -> sys::CUresult;

/// A programmatic edge `from -> to` (`cuGraphAddDependencies_v2`, CUDA 12.3+).
pub(crate) fn graph_add_programmatic_edge(
    graph: sys::CUgraph,
    from: sys::CUgraphNode,
    to: sys::CUgraphNode,
) -> Result<(), Error> {
    static ENTRY: OnceLock<Option<AddDependencies>> = OnceLock::new();
    // SAFETY: the signature of cuGraphAddDependencies as of CUDA 12.3.
    let Some(add) = (unsafe { entry_point(&ENTRY, c"cuGraphAddDependencies", 12_030) }) else {
        return Err(Error::Unsupported(
            "programmatic edges in plans need a driver of CUDA 12.3 or newer",
        ));
    };
    // A programmatic edge leaves from the programmatic port: the dependent may start once every
    // block of `from` has triggered (griddepcontrol.launch_dependents) or exited, as on a stream
    // with programmatic serialization allowed.
    let edge = EdgeData {
        from_port: 1, // CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC
        to_port: 0,
        kind: 1, // CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC
        reserved: [0; 5],
    };
    // SAFETY: both nodes belong to the caller's live graph; one edge of valid data.
    check("cuGraphAddDependencies", unsafe {
        add(graph, &from, &to, &edge, 1)
    })
}
