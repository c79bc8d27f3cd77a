use cuda_kernel::kernel;

// `fill` names two overloads of the PTX: which one takes its parameter list.
#[kernel(ptx = "$CUDA_KERNEL_REPO/tests/ui/ptx/fixtures/overloads.ptx")]
unsafe extern "C" {
    #[kernel(name = "fill")]
    pub fn fill(x: *mut f32, n: i32);
}

fn main() {}
