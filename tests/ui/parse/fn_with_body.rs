// The kernel written out in Rust, as if the block held its code.
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    fn scale(x: *mut f32, a: f32, n: u32) {}
}

fn main() {}
