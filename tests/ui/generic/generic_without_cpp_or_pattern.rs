// A generic declaration needs `cpp` (template instances) or a `{T}` pattern (a family).
#[cuda_kernel::kernel]
unsafe extern "C" {
    #[kernel(name = "affine_f32")]
    fn affine<T>(x: *mut T);
}

fn main() {}
