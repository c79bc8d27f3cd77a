// reduce0<int> bound by its symbol to a declaration taking float pointers.
use cuda_kernel::kernel;

#[kernel]
unsafe extern "C" {
    #[kernel(name = "_Z7reduce0IiEvPT_S1_j")]
    fn reduce0_f32(g_idata: *mut f32, g_odata: *mut f32, n: u32);
}

fn main() {}
