// A `void*` parameter takes device memory of any element type, not host memory, and a `*mut
// c_void` one takes it mutably.
use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream, LaunchConfig};
use cuda_kernel::ffi::c_void;
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn dequantize(vx: *const c_void, vy: *mut c_void, n: u32);
}

fn launch(k: &Dequantize, s: &CudaStream, host: &Vec<u8>, x: &CudaSlice<u8>, y: &mut CudaSlice<f32>) {
    let _ = unsafe { k.launch(s, LaunchConfig::for_num_elems(1), host, y, 1) };
    let _ = unsafe { k.launch(s, LaunchConfig::for_num_elems(1), x, x, 1) };
}

fn main() {}
