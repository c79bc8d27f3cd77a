// Ported from `launch_builder`, whose builder holds the stream: the launch given the config
// first.
include!("common.rs.in");
use cuda_kernel::cudarc::driver::{CudaSlice, LaunchConfig};

fn launch(k: &VectorAdd, a: &CudaSlice<f32>, c: &mut CudaSlice<f32>) {
    let _ = unsafe { k.launch(LaunchConfig::for_num_elems(1), a, a, c, 1) };
}

fn main() {}
