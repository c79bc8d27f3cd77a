#[cuda_kernel::kernel]
unsafe extern "C" {
    fn k(x: &mut Vec<f32>, n: u32);
}

fn main() {}
