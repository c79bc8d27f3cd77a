// `#[rustfmt::skip]` on a block keeps its long declarations as written; the macro leaves it to
// rustfmt.
use cuda_kernel::kernel;

#[rustfmt::skip]
#[kernel]
unsafe extern "C" {
    fn scale(x: *mut f32, a: f32, n: u32);
}

fn main() {
    assert_eq!(Scale::NAME, "scale");
}
