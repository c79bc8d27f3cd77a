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

/// Runs the test `name` of this binary in a child process with `env` set (a fault loses the
/// context for the rest of the process) and returns its output; the child must succeed.
pub fn in_child(name: &str, env: &[(&str, &str)]) -> String {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "child {name} {env:?} failed:\n{text}"
    );
    text
}
