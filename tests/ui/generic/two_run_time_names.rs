// Only one part of a symbol can be chosen at run time.
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    #[kernel(name = "{op}_{dtype}")]
    fn unary(numel: usize, x: *const f32, y: *mut f32);
}

fn main() {}
