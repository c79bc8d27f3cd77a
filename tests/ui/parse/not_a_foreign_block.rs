use cuda_kernel::kernel;

#[kernel]
pub fn vector_add(a: *const f32, n: u32) {}

fn main() {}
