//! Typed launches in CUDA graphs: typed [plans](plan) built node by node, and captured graphs
//! whose launches can be updated.
//!
//! A graph replays a whole sequence of launches with one driver call, which costs far less per
//! kernel than launching each. A [`Plan`](crate::Plan) records typed launches as graph nodes,
//! holds the borrows of the memory they use and updates any launch with the kernel's own typed
//! arguments: prefer it. Typed launches can also be captured like any launch, between cudarc's
//! `CudaStream::begin_capture` and `end_capture`; each captured kernel node keeps the packed
//! parameter buffer as it was at capture time. To change the arguments of one node before a
//! replay, find the nodes of its kernel with [`kernel_nodes`] and give [`set_kernel_node`] the
//! launcher and a buffer its `pack` made, with device memory as addresses:
//!
//! ```no_run
//! use cuda_kernel::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
//! use cuda_kernel::cudarc::driver::DevicePtr;
//! use cuda_kernel::{Config, Kernel, kernel};
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
//! let (b_ptr, c_ptr) = (b.device_ptr(&stream).0, c.device_ptr(&stream).0);
//! let mut params = VectorAdd::pack(b_ptr, b_ptr, c_ptr, n / 2);
//! unsafe { cuda_kernel::graph::set_kernel_node(&graph, nodes[0], &add, &stream, config, params.bytes_mut())? };
//!
//! // Replay, as often as needed.
//! graph.launch()?;
//! stream.synchronize()?;
//! # Ok(()) }
//! ```
//!
//! The graph keeps device addresses, not borrows: every buffer a captured or updated launch
//! names must outlive every replay (`set_kernel_node` is `unsafe` for that reason). With
//! cudarc's multi-stream event tracking on, each launch also waits on and records cudarc's
//! events on the capturing stream, and those become nodes of the graph; the project's graph
//! tests and benchmarks capture with tracking disabled, after a synchronization. Nodes
//! captured with clusters, cooperative launches or priorities keep those attributes: updating
//! one with such a [`Config`] is [`Error::Unsupported`].

use cudarc::driver::{CudaFunction, CudaGraph, CudaStream, sys};

use crate::declare::buffer::ParamPointers;
use crate::driver::result;
use crate::{Config, Error, Kernel};

mod node;
pub mod plan;

pub use node::NodeAttributes;
pub(crate) use node::NodeParams;

/// A kernel node of a CUDA graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelNode(sys::CUgraphNode);

impl KernelNode {
    /// The driver's handle.
    pub fn cu_graph_node(&self) -> sys::CUgraphNode {
        self.0
    }

    /// Its launch attributes as the driver reports them: those of a captured launch are the
    /// attributes its [`Config`] gave it.
    ///
    /// ```no_run
    /// # fn f(node: cuda_kernel::graph::KernelNode) -> Result<(), cuda_kernel::Error> {
    /// let attributes = node.attributes()?;
    /// println!("memory sync domain {:?}", attributes.mem_sync_domain);
    /// # Ok(()) }
    /// ```
    pub fn attributes(&self) -> Result<NodeAttributes, Error> {
        NodeAttributes::of(self.0)
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
    let mut kernels = Vec::new();
    for node in result::graph_nodes(graph.cu_graph())? {
        if result::graph_node_function(node)? == Some(function.cu_function()) {
            kernels.push(KernelNode(node));
        }
    }
    Ok(kernels)
}

/// Sets the configuration and packed arguments of `node` in the instantiated `graph`
/// (`cuGraphExecKernelNodeSetParams`); the next replay uses them. `params` is what `kernel`'s
/// generated `pack` returns, and the launch is checked as every launch is.
///
/// Nodes captured with clusters, cooperative launches or priorities keep those attributes:
/// updating one with such a [`Config`] is [`Error::Unsupported`]; so is a buffer of another
/// size than `K::LAYOUT`'s.
///
/// # Safety
/// `params` must be packed as `K::LAYOUT` and `node` a node of `graph` that launches `kernel`;
/// every device address in `params` must stay valid while the graph can be replayed, and the
/// kernel's accesses through them stay inside the memory they name.
#[track_caller]
pub unsafe fn set_kernel_node<K: Kernel>(
    graph: &CudaGraph,
    node: KernelNode,
    kernel: &K,
    stream: &CudaStream,
    config: impl Into<Config>,
    params: &mut [u8],
) -> Result<(), Error> {
    let location = std::panic::Location::caller();
    let config = config.into();
    // SAFETY: the caller's.
    unsafe { set_node(graph, node, kernel, stream, &config, params) }
        .map_err(|e| crate::launch::observe::refused(kernel.__loaded(), location, e))
}

unsafe fn set_node<K: Kernel>(
    graph: &CudaGraph,
    node: KernelNode,
    kernel: &K,
    stream: &CudaStream,
    config: &Config,
    params: &mut [u8],
) -> Result<(), Error> {
    let config = *config;
    if params.len() != K::LAYOUT.size {
        return Err(Error::Unsupported(
            "the parameter buffer is not packed for this kernel: make it with the launcher's pack",
        ));
    }
    // `pack` packs by the declaration's layout; a function that places a parameter aligned
    // above 16 bytes elsewhere takes it there.
    let layout = crate::launch::layout_of::<K>(kernel.__loaded())?;
    let mut placed;
    let params = if K::LAYOUT.is_fixed() {
        params
    } else {
        placed = crate::launch::repack(&K::LAYOUT, layout, params);
        placed.bytes_mut()
    };
    if config.is_extended() {
        return Err(Error::Unsupported(
            "graph kernel nodes keep the attributes they were captured with: set only grid, block and shared memory (a `Plan` updates attributes too)",
        ));
    }
    let entered = result::enter(stream.context())?;
    let function = crate::launch::prepare(
        &entered,
        kernel.__loaded(),
        stream,
        &config.into(),
        params.len(),
        true,
    )?;
    let mut node_params = NodeParams::new(function, &config, ParamPointers::new(layout, params));
    // SAFETY: the graph and node are alive; the driver copies the parameters during the call.
    unsafe {
        result::graph_exec_kernel_node_set_params(graph.cu_graph_exec(), node.0, node_params.raw())
    }
}
