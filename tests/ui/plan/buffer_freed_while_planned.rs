// A plan borrows the memory its launches use: it cannot be freed while the plan can replay.
use cuda_kernel::cudarc::driver::CudaSlice;
use cuda_kernel::{Config, Plan, kernel};

#[kernel]
unsafe extern "C" {
    fn scale(x: *const f32, y: *mut f32, a: f32, n: u32);
}

fn f(s: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>, k: &Scale, x: CudaSlice<f32>, mut y: CudaSlice<f32>) {
    let mut plan = Plan::new(s).unwrap();
    let (xr, yw) = (plan.input(&x), plan.output(&mut y));
    unsafe { plan.record(k, Config::for_elements(1, 1), (xr, yw, 2.0, 1)) }.unwrap();
    drop(x);
    plan.replay(s).unwrap();
}

fn main() {}
