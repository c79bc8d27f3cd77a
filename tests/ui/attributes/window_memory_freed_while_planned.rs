// An L2 window borrows the memory it names: in a plan, for as long as the plan can replay.
use cuda_kernel::cudarc::driver::CudaSlice;
use cuda_kernel::{Config, L2Window, Plan, kernel};

#[kernel]
unsafe extern "C" {
    fn scale(x: *const f32, y: *mut f32, a: f32, n: u32);
}

fn f(
    s: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>,
    k: &Scale,
    table: CudaSlice<f32>,
    x: CudaSlice<f32>,
    mut y: CudaSlice<f32>,
) {
    let mut plan = Plan::new(s).unwrap();
    let (xr, yw) = (plan.input(&x), plan.output(&mut y));
    let window = L2Window::persisting(s, &table);
    let config = Config::for_elements(1, 1).l2_window(window);
    unsafe { plan.record(k, config, (xr, yw, 2.0, 1)) }.unwrap();
    drop(table);
    plan.replay(s).unwrap();
}

fn main() {}
