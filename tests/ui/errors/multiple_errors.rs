use cuda_kernel::kernel;

// Every mistake in the block is reported by one build.
#[kernel(arch = "sm_90")]
unsafe extern "system" {
    pub fn sum(x: &[f32], n: char) -> f32;
    static mut TOTAL: f32;
    pub fn scale<T>(x: Vec<f32>, (a, b): (f32, f32));
}

fn main() {}
