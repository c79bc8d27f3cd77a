use cuda_kernel::{KernelParam, kernel};

#[derive(Clone, Copy, KernelParam)]
#[repr(C, align(256))]
pub struct Page {
    pub words: [u64; 32],
}

#[kernel]
unsafe extern "C" {
    pub fn k(v: Page, out: *mut f64);
}

fn main() {}
