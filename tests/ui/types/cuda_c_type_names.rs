// A C++ CUDA programmer's first declaration: the parameter types as the .cu spells them.
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    fn advance(pos: *mut float2, dt: __half, n: uint32_t);
}

fn main() {}
