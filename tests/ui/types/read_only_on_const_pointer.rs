#[cuda_kernel::kernel]
unsafe extern "C" {
    fn k(#[kernel(read_only)] x: *const f32, #[kernel(read_only)] n: u32);
}

fn main() {}
