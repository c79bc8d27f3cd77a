// A vector type made by hand for `float2`: 8 bytes, but aligned to 4 where the PTX aligns the
// parameter to 8. One error, at the type, naming the size and alignment and `Float2`.
use cuda_kernel::half::f16;
use cuda_kernel::{Double2, Float4, KernelParam, kernel};

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/echo.ptx")]
unsafe extern "C" {
    pub fn echo_guide(
        i: i32,
        f4: Float4,
        c: i8,
        f: f32,
        p: u64,
        f2: Vec2,
        d: f64,
        h: f16,
        d2: Double2,
        out: *mut u8,
    );
}

fn main() {}
