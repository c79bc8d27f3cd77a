#[cuda_kernel::kernel]
unsafe extern "C" {
    static mut COUNTER: u32;
}

fn main() {}
