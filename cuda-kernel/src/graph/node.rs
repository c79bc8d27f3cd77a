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
/// got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeAttributes {
    /// The cluster shape (`(0, 0, 0)` for none).
    pub cluster: (u32, u32, u32),
    /// The preferred cluster shape (`(0, 0, 0)` for none).
    pub preferred_cluster: (u32, u32, u32),
    /// The scheduling priority.
    pub priority: i32,
    /// The preferred shared-memory carveout in percent (`-1` for none).
    pub shared_carveout: i32,
    /// The memory synchronization domain (`0` default, `1` remote).
    pub mem_sync_domain: u32,
    /// The physical domains of the default and the remote domain.
    pub mem_sync_domain_map: (u8, u8),
    /// The L2 access policy window's address and length in bytes (`(0, 0)` for none).
    pub l2_window: (u64, usize),
    /// The device-side handle of a device-updatable node (`CUgraphDeviceNode`, what a kernel
    /// passes to the device-side update calls), or `None`.
    pub device_node: Option<u64>,
}

impl NodeAttributes {
    /// Reads them from `node`.
    pub(crate) fn of(node: sys::CUgraphNode) -> Result<NodeAttributes, crate::Error> {
        use crate::driver::attribute::id;
        use crate::driver::result::graph_kernel_node_get_attribute as get;
        let dims = |id| -> Result<(u32, u32, u32), crate::Error> {
            let a = get(node, id)?;
            Ok((a.u32_at(0), a.u32_at(4), a.u32_at(8)))
        };
        let window = get(node, id::ACCESS_POLICY_WINDOW)?;
        let map = get(node, id::MEM_SYNC_DOMAIN_MAP)?;
        let updatable = get(node, id::DEVICE_UPDATABLE_KERNEL_NODE)?;
        Ok(NodeAttributes {
            cluster: dims(id::CLUSTER_DIMENSION)?,
            preferred_cluster: dims(id::PREFERRED_CLUSTER_DIMENSION)?,
            priority: get(node, id::PRIORITY)?.u32_at(0) as i32,
            shared_carveout: get(node, id::PREFERRED_SHARED_MEMORY_CARVEOUT)?.u32_at(0) as i32,
            mem_sync_domain: get(node, id::MEM_SYNC_DOMAIN)?.u32_at(0),
            mem_sync_domain_map: (map.u8_at(0), map.u8_at(1)),
            l2_window: (window.u64_at(0), window.u64_at(8) as usize),
            device_node: (updatable.u32_at(0) != 0).then(|| updatable.u64_at(8)),
        })
    }
}
