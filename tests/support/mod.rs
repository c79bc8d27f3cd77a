//! GPU test setup, one copy for every GPU test file (`mod support;`).

#![allow(dead_code)] // each test file uses part of it

use std::sync::Arc;

use cuda_kernel::cudarc::driver::{CudaContext, CudaModule, CudaStream, LaunchConfig};

/// Device 0 and a stream of its own (not the default stream, so that launches on it order
/// themselves through cudarc's events as in an application with several streams).
pub fn gpu() -> (Arc<CudaContext>, Arc<CudaStream>) {
    let ctx = cuda_kernel::driver::context(0).expect("a CUDA GPU");
    let stream = ctx.new_stream().expect("a stream");
    (ctx, stream)
}

/// [`gpu`], and `ptx` loaded as a module.
pub fn setup(ptx: &str) -> (Arc<CudaContext>, Arc<CudaStream>, Arc<CudaModule>) {
    let (ctx, stream) = gpu();
    let module = cuda_kernel::driver::load_ptx(&ctx, ptx).expect("PTX loads");
    (ctx, stream, module)
}

/// One block of one thread.
pub fn one_thread() -> LaunchConfig {
    LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    }
}
