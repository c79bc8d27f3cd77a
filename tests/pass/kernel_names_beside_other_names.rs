// A kernel's name is free for the module's own items: a function of that name (a wrapper)
// takes the place of the call guard, a parameter may have it, and two blocks may declare
// kernels of one name when one is renamed.
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    fn scale(x: *mut f32, n: u32);
    fn shift(scale: f32, x: *mut f32);
}

#[kernel]
unsafe extern "C" {
    #[kernel(cpp, namespace = "other", rename = OtherScale)]
    fn scale(x: *mut f32, scale: u32);
}

/// A wrapper named as the kernel.
fn shift(by: u8) -> u8 {
    by + 1
}

fn main() {
    assert_eq!(shift(1), 2);
    assert_eq!(Scale::NAME, "scale");
    assert_eq!(OtherScale::NAME, "_ZN5other5scaleEPfj");
}
