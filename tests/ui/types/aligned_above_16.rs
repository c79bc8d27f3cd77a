use cuda_kernel::{Double4_32a, kernel};

#[kernel]
unsafe extern "C" {
    pub fn k(v: Double4_32a, out: *mut f64);
}

fn main() {}
