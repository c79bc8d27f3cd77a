// A struct the derive refuses is reported once: its uses as a parameter add no errors.
use cuda_kernel::{KernelParam, kernel};

#[derive(Clone, Copy, KernelParam)]
pub struct NoReprC {
    pub x: f32,
}

#[kernel]
unsafe extern "C" {
    fn takes(p: NoReprC, out: *mut f32);
}

fn main() {
    assert_eq!(<NoReprC as KernelParam>::SIZE, Takes::LAYOUT.params[0].size);
}
