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
