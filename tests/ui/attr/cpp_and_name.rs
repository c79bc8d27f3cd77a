use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    #[kernel(cpp, name = "_Z5saxpyPKfPffi")]
    pub fn saxpy(x: *const f32, y: *mut f32, a: f32, n: i32);
}

fn main() {}
