// Recorded launches are typed as launches are: a read handle where the kernel writes is a type
// error.
use cuda_kernel::cudarc::driver::CudaSlice;
use cuda_kernel::{Config, Plan, kernel};

#[kernel]
unsafe extern "C" {
    fn scale(x: *const f32, y: *mut f32, a: f32, n: u32);
}

fn f(s: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>, k: &Scale, x: CudaSlice<f32>) {
    let mut plan = Plan::new(s).unwrap();
    let xr = plan.input(&x);
    unsafe { plan.record(k, Config::for_elements(1, 1), (xr, xr, 2.0, 1)) }.unwrap();
}

fn main() {}
