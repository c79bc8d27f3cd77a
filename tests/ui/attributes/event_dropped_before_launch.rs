// A launch completion event is borrowed by the configuration that names it: it cannot be
// destroyed before the launch that records it.
use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream};
use cuda_kernel::{Config, kernel};

#[kernel]
unsafe extern "C" {
    fn fill(y: *mut f32, a: f32, n: u32);
}

fn f(s: &std::sync::Arc<CudaStream>, k: &Fill, mut y: CudaSlice<f32>) {
    let started = s.context().new_event(None).unwrap();
    let config = Config::for_elements(1, 1).completion_event(&started);
    drop(started);
    unsafe { k.launch(s, config, &mut y, 1.0, 1) }.unwrap();
}

fn main() {}
