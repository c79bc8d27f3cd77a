//! Typed launches in CUDA graphs: capture them once, update a captured launch's arguments with
//! the same typed signature, replay.
//!
//! A graph replays a whole sequence of launches with one driver call, which costs far less per
//! kernel than launching each. Typed launches are captured like any launch, between cudarc's
//! `CudaStream::begin_capture` and `end_capture`; each captured kernel node keeps the packed
//! parameter buffer as it was at capture time. To change the arguments of one node before a
//! replay, find the nodes of its kernel with [`kernel_nodes`] and call the generated
//! `set_graph_node`, which takes the same typed arguments as `launch`:
//!
//! ```no_run
//! use cuda_kernel::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
//! use cuda_kernel::{Config, kernel};
//!
//! #[kernel]
//! unsafe extern "C" {
//!     fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # const VECTOR_ADD_PTX: &str = "";
//! let ctx = cuda_kernel::driver::context(0)?;
//! // Captured launches must not record cudarc's events (see below).
//! unsafe { ctx.disable_event_tracking() };
//! let stream = ctx.new_stream()?;
//! let add = VectorAdd::load(&cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?)?;
//! let n = 1024u32;
//! let (a, b) = (stream.clone_htod(&[1.0f32; 1024])?, stream.clone_htod(&[2.0f32; 1024])?);
//! let mut c = stream.alloc_zeros::<f32>(1024)?;
//! let config = Config::for_elements(n, 256);
//!
//! // Capture: c = a + b, then c = c + b.
//! stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
//! unsafe {
//!     add.launch(&stream, config, &a, &b, &mut c, n)?;
//!     add.launch(&stream, config, &a, &b, &mut c, n)?;
//! }
//! let flags = CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
//! let graph = stream.end_capture(flags)?.expect("a graph was captured");
//!
//! // Update: the first node now adds b to b, over the first half only.
//! let function = add.function().expect("loaded from a module");
//! let nodes = cuda_kernel::graph::kernel_nodes(&graph, function)?;
//! unsafe { add.set_graph_node(&graph, nodes[0], &stream, config, &b, &b, &mut c, n / 2)? };
//!
//! // Replay, as often as needed.
//! graph.launch()?;
//! stream.synchronize()?;
//! # Ok(()) }
//! ```
//!
//! The graph keeps device addresses, not borrows: every buffer a captured or updated launch
//! names must outlive every replay (`set_graph_node` is `unsafe` for that reason). With
//! cudarc's multi-stream event tracking on, each launch also waits on and records cudarc's
//! events on the capturing stream, and those become nodes of the graph; the project's graph
//! tests and benchmarks capture with tracking disabled, after a synchronization. Nodes
//! captured with clusters, cooperative launches or priorities keep those attributes: updating
//! one with such a [`Config`] is [`Error::Unsupported`].

use cudarc::driver::{CudaFunction, CudaGraph, CudaStream, sys};

use crate::buffer::{buffer_extra, extra_or_null};
use crate::library::Loaded;
use crate::{Config, Error};

/// A kernel node of a CUDA graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelNode(sys::CUgraphNode);

impl KernelNode {
    /// The driver's handle.
    pub fn cu_graph_node(&self) -> sys::CUgraphNode {
        self.0
    }
}

/// The kernel nodes of `graph` that launch `function`, in the graph's node order (for a
/// captured stream, the order of the launches).
///
/// ```no_run
/// # use cuda_kernel::cudarc::driver::{CudaFunction, CudaGraph};
/// # fn f(graph: &CudaGraph, function: &CudaFunction) -> Result<(), cuda_kernel::Error> {
/// // function: a generated launcher's .function()
/// let nodes = cuda_kernel::graph::kernel_nodes(graph, function)?;
/// # Ok(()) }
/// ```
pub fn kernel_nodes(graph: &CudaGraph, function: &CudaFunction) -> Result<Vec<KernelNode>, Error> {
    let mut count = 0usize;
    // SAFETY: the graph is alive; a null array asks for the count.
    unsafe { sys::cuGraphGetNodes(graph.cu_graph(), std::ptr::null_mut(), &mut count) }
        .result()
        .map_err(Error::driver("cuGraphGetNodes"))?;
    let mut nodes = vec![std::ptr::null_mut(); count];
    // SAFETY: `nodes` has room for `count` handles.
    unsafe { sys::cuGraphGetNodes(graph.cu_graph(), nodes.as_mut_ptr(), &mut count) }
        .result()
        .map_err(Error::driver("cuGraphGetNodes"))?;
    nodes.truncate(count);
    let mut kernels = Vec::new();
    for node in nodes {
        let mut kind = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
        // SAFETY: the node belongs to the live graph.
        unsafe { sys::cuGraphNodeGetType(node, &mut kind) }
            .result()
            .map_err(Error::driver("cuGraphNodeGetType"))?;
        if kind != sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL {
            continue;
        }
        // SAFETY: a kernel node; the parameters are plain data, zero is a valid start.
        let mut params: sys::CUDA_KERNEL_NODE_PARAMS = unsafe { std::mem::zeroed() };
        unsafe { sys::cuGraphKernelNodeGetParams_v2(node, &mut params) }
            .result()
            .map_err(Error::driver("cuGraphKernelNodeGetParams"))?;
        if params.func == function.cu_function() {
            kernels.push(KernelNode(node));
        }
    }
    Ok(kernels)
}

/// Sets the configuration and packed arguments of `node` in the instantiated `graph` (with
/// `function`'s function for `stream`'s device)
/// (`cuGraphExecKernelNodeSetParams`); the next replay uses them. A generated
/// `set_graph_node` packs typed arguments and calls this.
///
/// # Safety
/// `params` must be the packed parameters of `function`, and `node` a node of `graph` that
/// launches `function`; every device address in `params` must stay valid while the graph can
/// be replayed.
pub unsafe fn set_kernel_node(
    graph: &CudaGraph,
    node: KernelNode,
    function: &Loaded,
    stream: &CudaStream,
    config: &Config,
    params: &mut [u8],
) -> Result<(), Error> {
    let function = function.cu_function(stream)?;
    if config.is_extended() {
        return Err(Error::Unsupported(
            "graph kernel nodes keep the attributes they were captured with: set only grid, block and shared memory",
        ));
    }
    let mut size = params.len();
    let mut extra = buffer_extra(params, &mut size);
    // SAFETY: plain data; every field the driver reads is set below, the rest zero.
    let mut node_params: sys::CUDA_KERNEL_NODE_PARAMS = unsafe { std::mem::zeroed() };
    node_params.func = function;
    (
        node_params.gridDimX,
        node_params.gridDimY,
        node_params.gridDimZ,
    ) = config.grid;
    (
        node_params.blockDimX,
        node_params.blockDimY,
        node_params.blockDimZ,
    ) = config.block;
    node_params.sharedMemBytes = config.shared_mem_bytes;
    node_params.extra = extra_or_null(&mut extra, params);
    // SAFETY: the graph and node are alive; the driver copies the buffer during the call.
    unsafe { sys::cuGraphExecKernelNodeSetParams_v2(graph.cu_graph_exec(), node.0, &node_params) }
        .result()
        .map_err(Error::driver("cuGraphExecKernelNodeSetParams"))
}
