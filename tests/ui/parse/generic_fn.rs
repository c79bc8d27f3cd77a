use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    pub fn scale<T>(x: *mut f32, n: u32);
}

fn main() {}
