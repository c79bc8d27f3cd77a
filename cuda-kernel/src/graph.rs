//! Typed launches inside CUDA graphs: finding a graph's kernel nodes and setting a node's
//! arguments in an instantiated graph.
//!
//! Typed launches are captured like any launch (`CudaStream::begin_capture` /
//! `end_capture`): the captured node carries the packed buffer as it was at capture time. With
//! cudarc's multi-stream event tracking on, each launch also waits on and records cudarc's
//! events on the capturing stream; the project's graph tests capture with tracking disabled
//! (`CudaContext::disable_event_tracking`) and synchronize before capturing.

use cudarc::driver::{CudaFunction, CudaGraph, sys};

use crate::launch::{buffer_extra, extra_or_null};
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

/// Sets the configuration and packed arguments of `node` in the instantiated `graph`
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
    function: &CudaFunction,
    config: &Config,
    params: &mut [u8],
) -> Result<(), Error> {
    if config.is_extended() {
        return Err(Error::Unsupported(
            "graph kernel nodes keep the attributes they were captured with: set only grid, block and shared memory",
        ));
    }
    let mut size = params.len();
    let mut extra = buffer_extra(params, &mut size);
    // SAFETY: plain data; every field the driver reads is set below, the rest zero.
    let mut node_params: sys::CUDA_KERNEL_NODE_PARAMS = unsafe { std::mem::zeroed() };
    node_params.func = function.cu_function();
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
