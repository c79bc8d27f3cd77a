use cuda_kernel::{KernelParam, kernel};

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Big {
    pub values: [f64; 4096],
}

#[kernel]
unsafe extern "C" {
    pub fn k(big: Big, out: *mut f64);
}

fn main() {}
