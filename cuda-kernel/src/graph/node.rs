//! One builder of kernel-node parameters, for plans' recorded launches and their updates and for
//! updates of captured graphs alike.

use cudarc::driver::sys;

use crate::Config;
use crate::declare::buffer::ParamPointers;

/// A kernel node's parameters (`CUDA_KERNEL_NODE_PARAMS`), pointing into the packed buffer that
/// built it: hand it to the driver while that buffer lives (the driver copies it).
pub(crate) struct NodeParams {
    params: sys::CUDA_KERNEL_NODE_PARAMS,
    // The array `params.kernelParams` points to, set by `raw` (the struct may have moved since).
    pointers: ParamPointers,
}

impl NodeParams {
    /// `function` launched with `config`'s grid, block and shared memory and the parameters at
    /// `pointers`.
    pub(crate) fn new(
        function: sys::CUfunction,
        config: &Config,
        pointers: ParamPointers,
    ) -> NodeParams {
        // SAFETY: plain data; every field the driver reads is set below, the rest zero.
        let mut params: sys::CUDA_KERNEL_NODE_PARAMS = unsafe { std::mem::zeroed() };
        params.func = function;
        (params.gridDimX, params.gridDimY, params.gridDimZ) = config.grid;
        (params.blockDimX, params.blockDimY, params.blockDimZ) = config.block;
        params.sharedMemBytes = config.shared_mem_bytes;
        NodeParams { params, pointers }
    }

    /// For the driver, with `kernelParams` pointing at this value's array where it is now.
    pub(crate) fn raw(&mut self) -> &sys::CUDA_KERNEL_NODE_PARAMS {
        self.params.kernelParams = self.pointers.as_mut_ptr();
        &self.params
    }
}

/// A kernel node's launch attributes as the driver reports them
/// (`cuGraphKernelNodeGetAttribute`): what a [`Plan`](crate::Plan)'s recorded launch or a
/// captured launch ([`KernelNode::attributes`](crate::graph::KernelNode::attributes)) really
/// got. `None` where the driver reports no value for a node (an attribute valid only for
/// launches, or one this driver does not have). The preferred cluster and NVLink-centric
/// scheduling are not asked: a CUDA 13.0 driver (580) on an H200 answers
/// `CUDA_ERROR_INVALID_VALUE` for both.
///
/// ```no_run
/// # fn f(plan: &cuda_kernel::Plan<'_>, node: &cuda_kernel::PlanNode<()>) -> Result<(), cuda_kernel::Error> {
/// let reported = plan.attributes(node)?;
/// if let Some(Some(handle)) = reported.device_node {
///     // pass `handle` to a kernel that updates the node from the device
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeAttributes {
    /// The cluster shape (`(0, 0, 0)` for none).
    pub cluster: Option<(u32, u32, u32)>,
    /// The scheduling priority.
    pub priority: Option<i32>,
    /// The preferred shared-memory carveout in percent (`-1` for none).
    pub shared_carveout: Option<i32>,
    /// The memory synchronization domain (`0` default, `1` remote).
    pub mem_sync_domain: Option<u32>,
    /// The physical domains of the default and the remote domain.
    pub mem_sync_domain_map: Option<(u8, u8)>,
    /// The L2 access policy window's address and length in bytes (`(0, 0)` for none).
    pub l2_window: Option<(u64, usize)>,
    /// The device-side handle of a device-updatable node (`CUgraphDeviceNode`, what a kernel
    /// passes to the device-side update calls): `Some(None)` for a node that is not one.
    pub device_node: Option<Option<u64>>,
}

impl NodeAttributes {
    /// Reads them from `node`.
    pub(crate) fn of(node: sys::CUgraphNode) -> Result<NodeAttributes, crate::Error> {
        use crate::driver::attribute::{RawAttribute, id};
        use crate::driver::result::graph_kernel_node_get_attribute;
        // An attribute the driver does not report for nodes is `None`; other failures are
        // errors.
        let get = |id| -> Result<Option<RawAttribute>, crate::Error> {
            match graph_kernel_node_get_attribute(node, id) {
                Ok(a) => Ok(Some(a)),
                Err(crate::Error::Driver { source, .. })
                    if source.0 == sys::CUresult::CUDA_ERROR_INVALID_VALUE =>
                {
                    Ok(None)
                }
                Err(e) => Err(e),
            }
        };
        let dims = |a: RawAttribute| (a.u32_at(0), a.u32_at(4), a.u32_at(8));
        Ok(NodeAttributes {
            cluster: get(id::CLUSTER_DIMENSION)?.map(dims),
            priority: get(id::PRIORITY)?.map(|a| a.u32_at(0) as i32),
            shared_carveout: get(id::PREFERRED_SHARED_MEMORY_CARVEOUT)?.map(|a| a.u32_at(0) as i32),
            mem_sync_domain: get(id::MEM_SYNC_DOMAIN)?.map(|a| a.u32_at(0)),
            mem_sync_domain_map: get(id::MEM_SYNC_DOMAIN_MAP)?.map(|a| (a.u8_at(0), a.u8_at(1))),
            l2_window: get(id::ACCESS_POLICY_WINDOW)?.map(|a| (a.u64_at(0), a.u64_at(8) as usize)),
            device_node: get(id::DEVICE_UPDATABLE_KERNEL_NODE)?
                .map(|a| (a.u32_at(0) != 0).then(|| a.u64_at(8))),
        })
    }
}
