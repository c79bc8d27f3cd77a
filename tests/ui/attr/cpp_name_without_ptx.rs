use cuda_kernel::kernel;

// A C++ name is looked up among the PTX's entries: without `ptx = "..."` there are none.
#[kernel]
unsafe extern "C" {
    #[kernel(name = "k_bin<op_add, float, int>")]
    pub fn k_bin_add(a: *const f32, dst: *mut f32, n: i32, extra: i32);
}

fn main() {}
