use cuda_kernel::half::f16;
use cuda_kernel::{Double2, Float2, kernel};

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/echo.ptx")]
unsafe extern "C" {
    pub fn echo_guide(
        i: i32,
        f4: Float2,
        c: i8,
        f: f32,
        p: u64,
        f2: Float2,
        d: f64,
        h: f16,
        d2: Double2,
        out: *mut u8,
    );
}

fn main() {}
