//! Typed launch plans: record a sequence of typed launches once, replay it with one call, and
//! change any recorded launch through a handle typed by its kernel.
//!
//! A plan is a CUDA graph built node by node (not by stream capture): each recorded launch is a
//! kernel node depending on the one before, so a replay runs them in order, as one stream would.
//! What a plan adds to a raw graph:
//!
//! - **Memory safety by construction.** Device memory enters a plan through
//!   [`input`](Plan::input) (a shared borrow) or [`output`](Plan::output) (a mutable borrow),
//!   held for the plan's lifetime: a buffer cannot be freed, or written elsewhere, while a replay
//!   may use it. Launches name memory by the returned handles, [`PlanRef`] and [`PlanMut`].
//! - **cudarc's event tracking, once per replay.** A replay waits for the last writes to every
//!   buffer of the plan (and for its last reads, for outputs) before the graph runs, and records
//!   after it, as one cudarc launch does for its arguments; not once per recorded launch. Stream
//!   capture of typed launches would instead bake cudarc's event waits and records into the graph
//!   as nodes (or need tracking disabled), and keep raw addresses nothing borrows.
//! - **Typed updates.** [`record`](Plan::record) returns a [`PlanNode`] typed by the kernel;
//!   [`set`](Plan::set) takes the same argument tuple, checked by the compiler, and updates the
//!   instantiated graph in place (`cuGraphExecKernelNodeSetParams`), or, for a launch whose
//!   cluster, cooperative or priority attributes change, re-instantiates it at the next replay.
//! - **Programmatic dependent launches.** A launch recorded with
//!   [`Config::programmatic_dependent`] gets a programmatic edge from the launch before it, so it
//!   may start early and wait in `griddepcontrol.wait`, as on a stream.
//!
//! ```no_run
//! use cuda_kernel::{Config, Plan, kernel};
//!
//! #[kernel]
//! unsafe extern "C" {
//!     fn scale(x: *const f32, y: *mut f32, a: f32, n: u32);
//! }
//!
//! # fn main() -> Result<(), cuda_kernel::Error> {
//! # const PTX: &str = "";
//! let ctx = cuda_kernel::driver::context(0)?;
//! let stream = ctx.default_stream();
//! let scale = Scale::load(&cuda_kernel::driver::load_ptx(&ctx, PTX)?)?;
//! let x = stream.clone_htod(&vec![1.0f32; 1024])?;
//! let mut y = stream.alloc_zeros::<f32>(1024)?;
//!
//! let mut plan = Plan::new(&stream)?;
//! let (xr, yw) = (plan.input(&x), plan.output(&mut y));
//! let config = Config::for_elements(1024, 256);
//! // SAFETY: scale touches indices below n of two buffers of n floats.
//! let first = unsafe { plan.record(&scale, config, (xr, yw, 2.0, 1024))? };
//! unsafe { plan.record(&scale, config, (yw.read(), yw, 0.5, 1024))? };
//! plan.replay(&stream)?;
//! unsafe { plan.set(&first, config, (xr, yw, 3.0, 512))? }; // the next replay uses it
//! plan.replay(&stream)?;
//! drop(plan); // x and y are free again
//! # Ok(()) }
//! ```

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cudarc::driver::sys;
use cudarc::driver::{CudaStream, SyncOnDrop};

use crate::declare::args::{Pack, Params};
use crate::declare::buffer::{ParamBytes, ParamPointers};
pub use crate::declare::plan_handles::{PlanMut, PlanRef, PlanTensorMap};
use crate::driver::attribute::{RawAttribute, id, names};
use crate::driver::result;
use crate::graph::NodeParams;
use crate::launch::observe::{self, Shown, Site};
use crate::{
    Attributed, Config, DeviceArg, DeviceArgMut, Error, IntoConfig, Kernel, Loaded, TensorMap,
    TensorMapMut,
};

/// A kernel a [`Plan`] can record: every `#[kernel]` launcher is one, with its parameters as
/// a tuple of plan handles (for pointers) and values.
///
/// # Safety
/// `pack_args` writes the arguments at the offsets of [`Kernel::LAYOUT`].
pub unsafe trait PlanKernel<'a>: Kernel {
    /// The arguments of one launch: [`PlanRef`] for `*const T`, [`PlanMut`] for `*mut T`, the
    /// value otherwise.
    type Args;
    /// Writes `args` into `params`, a zeroed buffer of `LAYOUT.size` bytes.
    fn pack_args(args: &Self::Args, params: &mut [u8]);

    /// Checks the kernel's contract (`#[requires(...)]`) for a launch with `config` and `args`,
    /// as its `launch` does: what [`Plan::record`] and [`Plan::set`] call before the driver.
    /// Nothing to check for a kernel without a contract.
    fn check_args(args: &Self::Args, config: &Config) -> Result<(), Error>;
}

// SAFETY: the arguments are packed through the signature's own kinds, each at the next slot of
// `LAYOUT`, the layout the kernel was loaded (and checked) with.
unsafe impl<'a, K: Kernel> PlanKernel<'a> for K
where
    <K::__Params as Params>::Plan<'a>: Pack<K::__Params>,
{
    type Args = <K::__Params as Params>::Plan<'a>;

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn pack_args(args: &Self::Args, params: &mut [u8]) {
        Pack::<K::__Params>::pack(args, K::LAYOUT.params, params);
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_args(args: &Self::Args, config: &Config) -> Result<(), Error> {
        K::__check_plan(args, config)
    }
}

/// A recorded launch of the kernel `K`, for [`Plan::set`].
#[derive(Debug)]
pub struct PlanNode<K> {
    index: usize,
    plan: u64,
    _kernel: PhantomData<fn() -> K>,
}

/// One buffer of a plan, whose cudarc events a replay honours.
trait Tracked {
    fn track<'s>(&'s mut self, stream: &'s CudaStream) -> Option<SyncOnDrop<'s>>;
}

struct Reads<'a, D: ?Sized, T>(&'a D, PhantomData<fn() -> T>);
struct Writes<'a, D: ?Sized, T>(&'a mut D, PhantomData<fn() -> T>);

impl<D: DeviceArg<T> + ?Sized, T> Tracked for Reads<'_, D, T> {
    fn track<'s>(&'s mut self, stream: &'s CudaStream) -> Option<SyncOnDrop<'s>> {
        self.0.device_arg(stream).1
    }
}

impl<D: DeviceArgMut<T> + ?Sized, T> Tracked for Writes<'_, D, T> {
    fn track<'s>(&'s mut self, stream: &'s CudaStream) -> Option<SyncOnDrop<'s>> {
        self.0.device_arg_mut(stream).1
    }
}

/// What a plan remembers of a recorded launch.
struct Recorded<'a> {
    node: sys::CUgraphNode,
    config: Attributed<'a>,
    /// Keeps the kernel's module or library alive while the graph can run it.
    kernel: Loaded,
}

/// A sequence of typed launches recorded once and replayed with one call (a CUDA graph). See
/// the [module documentation](self).
pub struct Plan<'a> {
    id: u64,
    stream: Arc<CudaStream>,
    graph: sys::CUgraph,
    exec: Option<sys::CUgraphExec>,
    launches: Vec<Recorded<'a>>,
    /// Whether the instantiated graph must be uploaded before its next replay (a host-side
    /// update of a device-updatable node).
    upload: bool,
    buffers: Vec<Box<dyn Tracked + 'a>>,
    /// The NVTX range of a replay, named when a launch is recorded (not per replay).
    #[cfg(feature = "nvtx")]
    range: std::ffi::CString,
}

impl<'a> Plan<'a> {
    /// An empty plan in `stream`'s context. `stream` is where buffers are looked up; a plan
    /// replays on any stream of the context.
    pub fn new(stream: &Arc<CudaStream>) -> Result<Plan<'a>, Error> {
        crate::driver::require()?;
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let _entered = result::enter(stream.context())?;
        let graph = result::graph_create()?;
        Ok(Plan {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            stream: Arc::clone(stream),
            graph,
            exec: None,
            launches: Vec::new(),
            upload: false,
            buffers: Vec::new(),
            #[cfg(feature = "nvtx")]
            range: range_name(0),
        })
    }

    /// Device memory the plan's launches read, borrowed for as long as the plan lives.
    pub fn input<T: 'a, D: DeviceArg<T> + ?Sized + 'a>(&mut self, memory: &'a D) -> PlanRef<'a, T> {
        // cudarc's event tracking calls the driver in the stream's context; the caller's comes
        // back after (a failure to enter it leaves cudarc to bind it, as without the guard).
        let _entered = result::enter(self.stream.context()).ok();
        let (ptr, guard) = memory.device_arg(&self.stream);
        drop(guard);
        self.buffers.push(Box::new(Reads(memory, PhantomData)));
        PlanRef {
            ptr,
            len: memory.element_count(),
            _marker: PhantomData,
        }
    }

    /// Device memory the plan's launches write, borrowed mutably for as long as the plan lives.
    pub fn output<T: 'a, D: DeviceArgMut<T> + ?Sized + 'a>(
        &mut self,
        memory: &'a mut D,
    ) -> PlanMut<'a, T> {
        // As in `input`.
        let _entered = result::enter(self.stream.context()).ok();
        let len = memory.element_count_mut();
        let (ptr, guard) = memory.device_arg_mut(&self.stream);
        drop(guard);
        self.buffers.push(Box::new(Writes(memory, PhantomData)));
        PlanMut {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// A TMA descriptor the plan's launches read through (TMA loads), its memory borrowed for
    /// as long as the plan lives, as [`input`](Self::input) borrows memory.
    pub fn tensor_map<T: 'a, const N: usize>(
        &mut self,
        map: &TensorMap<'a, T, N>,
    ) -> PlanTensorMap<'a, T, N> {
        self.input(map.memory());
        PlanTensorMap {
            raw: map.raw(),
            _marker: PhantomData,
        }
    }

    /// A TMA descriptor the plan's launches write through (TMA stores), its memory borrowed
    /// mutably for as long as the plan lives, as [`output`](Self::output) borrows memory.
    pub fn tensor_map_mut<T: 'a, const N: usize>(
        &mut self,
        map: TensorMapMut<'a, T, N>,
    ) -> PlanTensorMap<'a, T, N> {
        let (raw, memory) = map.into_parts();
        self.output(memory);
        PlanTensorMap {
            raw,
            _marker: PhantomData,
        }
    }

    /// The launch attributes of a recorded launch as the driver reports them: for a
    /// device-updatable launch ([`Config::device_updatable`]), its device-side handle too.
    pub fn attributes<K>(&self, node: &PlanNode<K>) -> Result<crate::graph::NodeAttributes, Error> {
        if node.plan != self.id {
            return Err(Error::Unsupported(
                "this launch was recorded in another plan",
            ));
        }
        let _entered = result::enter(self.stream.context())?;
        crate::graph::NodeAttributes::of(self.launches[node.index].node)
    }

    /// The number of recorded launches.
    pub fn len(&self) -> usize {
        self.launches.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.launches.is_empty()
    }

    /// Records a launch of `kernel` after the ones recorded before, checked against the
    /// device's limits and the kernel's contract (`#[requires(...)]`), as a launch is.
    ///
    /// # Safety
    /// As for the kernel's `launch`: the kernel's accesses through `args` stay inside the
    /// memory they name, for `config`'s grid, every time the plan is replayed.
    #[track_caller]
    pub unsafe fn record<K: PlanKernel<'a>>(
        &mut self,
        kernel: &K,
        config: impl IntoConfig<'a>,
        args: K::Args,
    ) -> Result<PlanNode<K>, Error> {
        let site = Site::here();
        let config = config.into_config();
        K::check_args(&args, &config.config)
            .map_err(|e| observe::failed(kernel.__loaded().name(), &site, None, false, e))?;
        let mut params = ParamBytes::new(K::LAYOUT.size);
        K::pack_args(&args, params.bytes_mut());
        if observe::log_on() {
            self.shown(kernel.__loaded(), &config, &K::LAYOUT, &params)
                .log("record", " in a plan", &site);
        }
        // SAFETY: the caller's.
        unsafe { self.add_node(kernel, config, &mut params) }.map_err(|e| {
            self.shown(kernel.__loaded(), &config, &K::LAYOUT, &params)
                .failed(&site, false, e)
        })
    }

    /// `record`'s driver calls.
    unsafe fn add_node<K: PlanKernel<'a>>(
        &mut self,
        kernel: &K,
        config: Attributed<'a>,
        params: &mut ParamBytes,
    ) -> Result<PlanNode<K>, Error> {
        let mut node_params = self.node_params::<K>(kernel.__loaded(), &config, params)?;
        let previous = self.launches.last().map(|r| r.node);
        let programmatic_edge = config.config.programmatic && previous.is_some();
        let after: [sys::CUgraphNode; 1];
        let dependencies: &[sys::CUgraphNode] = match previous {
            Some(node) if !programmatic_edge => {
                after = [node];
                &after
            }
            _ => &[],
        };
        // SAFETY: the graph is alive; the parameters point into `params`, which the driver
        // copies during the call.
        let node =
            unsafe { result::graph_add_kernel_node(self.graph, dependencies, node_params.raw()) }?;
        if let (true, Some(from)) = (programmatic_edge, previous) {
            result::graph_add_programmatic_edge(self.graph, from, node)?;
        }
        set_node_attributes(node, None, &config)?;
        self.invalidate();
        self.launches.push(Recorded {
            node,
            config,
            kernel: kernel.__loaded().clone(),
        });
        #[cfg(feature = "nvtx")]
        {
            self.range = range_name(self.launches.len());
        }
        Ok(PlanNode {
            index: self.launches.len() - 1,
            plan: self.id,
            _kernel: PhantomData,
        })
    }

    /// Sets the configuration and arguments of a recorded launch; the next replay uses them.
    ///
    /// In place when only the grid, block, shared memory or arguments change; a change of
    /// cluster, cooperative or priority attributes re-instantiates the graph at the next
    /// replay. A launch's programmatic dependency is fixed when it is recorded
    /// ([`Error::Unsupported`] otherwise).
    ///
    /// # Safety
    /// As for [`record`](Self::record).
    #[track_caller]
    pub unsafe fn set<K: PlanKernel<'a>>(
        &mut self,
        node: &PlanNode<K>,
        config: impl IntoConfig<'a>,
        args: K::Args,
    ) -> Result<(), Error> {
        let site = Site::here();
        let config = config.into_config();
        if node.plan != self.id {
            let error = Error::Unsupported("this launch was recorded in another plan");
            return Err(observe::failed(&K::symbol(), &site, None, false, error));
        }
        let recorded = &self.launches[node.index];
        let refused = |e| observe::failed(recorded.kernel.name(), &site, None, false, e);
        if recorded.config.config.attributes_or_none().device_updatable
            && !config.config.attributes_or_none().device_updatable
        {
            return Err(refused(crate::config::attribute_error(
                names::DEVICE_UPDATABLE,
                "a device-updatable node stays one (the driver refuses to opt out): set it again with `Config::device_updatable`".into(),
            )));
        }
        if recorded.config.config.programmatic != config.config.programmatic {
            return Err(refused(Error::Unsupported(
                "a recorded launch's programmatic dependency is part of the graph's edges: record \
                 the plan again to change it",
            )));
        }
        let attributes_change = !recorded.config.same_attributes(&config);
        K::check_args(&args, &config.config).map_err(refused)?;
        let mut params = ParamBytes::new(K::LAYOUT.size);
        K::pack_args(&args, params.bytes_mut());
        let graph_node = recorded.node;
        let loaded = recorded.kernel.clone();
        if observe::log_on() {
            self.shown(&loaded, &config, &K::LAYOUT, &params)
                .log("update", " in a plan", &site);
        }
        // SAFETY: the caller's.
        unsafe {
            self.set_node::<K>(
                node,
                graph_node,
                &loaded,
                config,
                attributes_change,
                &mut params,
            )
        }
        .map_err(|e| {
            self.shown(&loaded, &config, &K::LAYOUT, &params)
                .failed(&site, false, e)
        })
    }

    /// `set`'s driver calls.
    unsafe fn set_node<K: PlanKernel<'a>>(
        &mut self,
        node: &PlanNode<K>,
        graph_node: sys::CUgraphNode,
        loaded: &Loaded,
        config: Attributed<'a>,
        attributes_change: bool,
        params: &mut ParamBytes,
    ) -> Result<(), Error> {
        let mut node_params = self.node_params::<K>(loaded, &config, params)?;
        // SAFETY: the node belongs to the live graph; the driver copies the parameters.
        unsafe { result::graph_kernel_node_set_params(graph_node, node_params.raw()) }?;
        if attributes_change {
            let before = self.launches[node.index].config;
            set_node_attributes(graph_node, Some(&before), &config)?;
            self.invalidate();
        } else if let Some(exec) = self.exec {
            // SAFETY: as above, for the instantiated graph's copy of the node.
            unsafe {
                result::graph_exec_kernel_node_set_params(exec, graph_node, node_params.raw())
            }?;
            // A device-updatable node updated from the host is uploaded again before the
            // next replay (`cuGraphUpload`), as the driver asks.
            self.upload |= config.config.attributes_or_none().device_updatable;
        }
        self.launches[node.index].config = config;
        Ok(())
    }

    /// Runs every recorded launch on `stream`, in order, after the work queued there and the
    /// last writes to the plan's buffers.
    ///
    /// A failure is an [`Error::Launch`] naming the plan's kernels and the caller's line; the
    /// launch log logs each replay, the verify mode synchronizes `stream` after it.
    #[track_caller]
    pub fn replay(&mut self, stream: &CudaStream) -> Result<(), Error> {
        let site = Site::here();
        if observe::observing() {
            return self.replay_observed(stream, &site);
        }
        self.replay_unobserved(stream)
            .map_err(|e| observe::replay_failed(&self.kernels(), &site, None, false, e))
    }

    /// [`replay`](Self::replay), returning the replay's completion as a future: it resolves
    /// once the GPU has run every launch of the plan, and holds the plan (and so every buffer
    /// it borrows) until then. A fault on the device is an [`Error::Launch`] naming the plan.
    ///
    /// ```no_run
    /// # async fn f(plan: &mut cuda_kernel::Plan<'_>, stream: &cuda_kernel::cudarc::driver::CudaStream) -> Result<(), cuda_kernel::Error> {
    /// plan.replay_async(stream)?.await?;
    /// # Ok(()) }
    /// ```
    #[track_caller]
    pub fn replay_async(&mut self, stream: &CudaStream) -> Result<crate::Completion<'_>, Error> {
        let location = std::panic::Location::caller();
        self.replay(stream)?;
        crate::launch::completion::Completion::after_replay(stream, self.kernels(), location)
    }

    #[inline]
    fn replay_unobserved(&mut self, stream: &CudaStream) -> Result<(), Error> {
        let _entered = result::enter(stream.context())?;
        let exec = match self.exec {
            Some(exec) => exec,
            None => {
                let exec = *self.exec.insert(result::graph_instantiate(self.graph)?);
                self.upload = self
                    .launches
                    .iter()
                    .any(|r| r.config.config.attributes_or_none().device_updatable);
                exec
            }
        };
        if self.upload {
            result::graph_upload(exec, stream.cu_stream())?;
            self.upload = false;
        }
        #[cfg(feature = "nvtx")]
        let _range = observe::Range::push(&self.range);
        tracked(&mut self.buffers, stream, || {
            // SAFETY: the instantiated graph is alive; every buffer it names is borrowed by the
            // plan.
            unsafe { result::graph_launch(exec, stream.cu_stream()) }
        })
    }

    /// A replay with the launch log or the verify mode on.
    #[cold]
    fn replay_observed(&mut self, stream: &CudaStream, site: &Site<'_>) -> Result<(), Error> {
        let kernels = self.kernels();
        if observe::log_on() {
            observe::log_line(format_args!(
                "replay {kernels} at {} on stream {:p}",
                site.location(),
                stream.cu_stream()
            ));
        }
        self.replay_unobserved(stream)
            .map_err(|e| observe::replay_failed(&kernels, site, None, false, e))?;
        if observe::verify_on() {
            result::stream_synchronize(stream.cu_stream()).map_err(|e| {
                let launches = self
                    .launches
                    .iter()
                    .map(|r| {
                        format!(
                            "{}: {}",
                            r.kernel.name(),
                            observe::describe_config(&r.config, stream.cu_stream())
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                observe::replay_failed(&kernels, site, Some(launches), true, e)
            })?;
        }
        Ok(())
    }

    /// The plan and its kernels in order, for messages (`plan of 3 launches (a, b, c)`).
    fn kernels(&self) -> String {
        let names: Vec<&str> = self.launches.iter().map(|r| r.kernel.name()).collect();
        let s = if names.len() == 1 { "" } else { "es" };
        format!("plan of {} launch{s} ({})", names.len(), names.join(", "))
    }

    /// A recorded launch as the log and errors show it.
    fn shown<'s>(
        &'s self,
        loaded: &'s Loaded,
        config: &'s Attributed<'s>,
        layout: &'s crate::ParamLayout,
        params: &'s ParamBytes,
    ) -> Shown<'s> {
        Shown::new(loaded, layout, params.bytes(), config, &self.stream)
    }

    /// A launch of `kernel` with `params` as a node, checked as every launch is.
    fn node_params<K: Kernel>(
        &self,
        kernel: &Loaded,
        config: &Attributed<'_>,
        params: &mut ParamBytes,
    ) -> Result<NodeParams, Error> {
        // Packed by the declaration's layout; a function that places a parameter aligned above
        // 16 bytes elsewhere takes it there.
        let layout = crate::launch::layout_of::<K>(kernel)?;
        if !K::LAYOUT.is_fixed() {
            *params = crate::launch::repack(&K::LAYOUT, layout, params.bytes());
        }
        let entered = result::enter(self.stream.context())?;
        let function = crate::launch::prepare(
            &entered,
            kernel,
            &self.stream,
            config,
            params.bytes().len(),
            true,
        )?;
        Ok(NodeParams::new(
            function,
            &config.config,
            ParamPointers::new(layout, params.bytes_mut()),
        ))
    }

    fn invalidate(&mut self) {
        if let Some(exec) = self.exec.take() {
            // SAFETY: no replay is running on the host; the driver defers destruction of an
            // executing graph until it completes.
            unsafe { result::graph_exec_destroy(exec) };
        }
    }
}

impl Drop for Plan<'_> {
    fn drop(&mut self) {
        let _entered = result::enter(self.stream.context());
        self.invalidate();
        // SAFETY: the graph is this plan's own; replays already queued keep their executable.
        unsafe { result::graph_destroy(self.graph) };
    }
}

/// The NVTX range of a replay of `launches` launches.
#[cfg(feature = "nvtx")]
fn range_name(launches: usize) -> std::ffi::CString {
    std::ffi::CString::new(format!("plan ({launches} launches)")).unwrap_or_default()
}

/// Honours every buffer's cudarc events around `launch`: waits before (each guard's creation),
/// records after (each guard's drop), holding the guards on the stack.
fn tracked(
    buffers: &mut [Box<dyn Tracked + '_>],
    stream: &CudaStream,
    launch: impl FnOnce() -> Result<(), Error>,
) -> Result<(), Error> {
    match buffers.split_first_mut() {
        None => launch(),
        Some((first, rest)) => {
            let _guard = first.track(stream);
            tracked(rest, stream, launch)
        }
    }
}

/// A launch's attributes as node attributes (programmatic serialization is an edge in a
/// graph); those of `before` it no longer has are set back to the driver's default.
fn set_node_attributes(
    node: sys::CUgraphNode,
    before: Option<&Attributed<'_>>,
    config: &Attributed<'_>,
) -> Result<(), Error> {
    let now = config.launch_attributes();
    let is_edge = |a: &RawAttribute| a.id == id::PROGRAMMATIC_STREAM_SERIALIZATION;
    if let Some(before) = before {
        for old in before.launch_attributes().as_slice() {
            if is_edge(old) || now.as_slice().iter().any(|a| a.id == old.id) {
                continue;
            }
            let default = match old.id {
                // -1: no carveout preference.
                id::PREFERRED_SHARED_MEMORY_CARVEOUT => RawAttribute::int(old.id, u32::MAX),
                _ => RawAttribute::empty(old.id),
            };
            result::graph_kernel_node_set_attribute(node, &default)?;
        }
    }
    for attribute in now.as_slice().iter().filter(|a| !is_edge(a)) {
        result::graph_kernel_node_set_attribute(node, attribute)
            .map_err(|e| refused_for_nodes(attribute.id, e))?;
    }
    Ok(())
}

/// A node attribute the driver refused with `CUDA_ERROR_INVALID_VALUE`, named: some drivers
/// take an attribute for launches but not for graph nodes on some GPUs (a CUDA 13.0 driver on
/// an H200 refuses a node's preferred cluster).
fn refused_for_nodes(id: u32, e: Error) -> Error {
    let invalid = matches!(&e, Error::Driver { source, .. }
        if source.0 == sys::CUresult::CUDA_ERROR_INVALID_VALUE);
    let Some(name) = crate::driver::attribute::name(id).filter(|_| invalid) else {
        return e;
    };
    crate::config::attribute_error(
        name,
        "this driver and GPU do not take it for a graph node (cuGraphKernelNodeSetAttribute answered CUDA_ERROR_INVALID_VALUE): launch it on a stream instead".into(),
    )
}
