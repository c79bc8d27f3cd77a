// A Hopper GEMM as its authors write it (gemm::tile<int BM, int BN> taking two TMA
// descriptors, instantiated <64, 128> and <128, 256>), declared and loaded with the mistakes a
// new user makes: each is one error, at the mistake, saying what to write.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaModule;
use cuda_kernel::{TensorMap, kernel};

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/tma.ptx")]
unsafe extern "C" {
    // Right, but for the instance loaded below.
    #[kernel(cpp, namespace = "gemm")]
    fn tile<const BM: i32, const BN: i32>(a: TensorMap<f32, 2>, b: TensorMap<f32, 2>, c: *mut f32, k: i32);
}

fn load(module: &Arc<CudaModule>) {
    let _ = Tile::<64, 128>::load(module); // instantiated: fine
    let _ = Tile::<64, 256>::load(module);
}

mod unsigned {
    use cuda_kernel::{TensorMap, kernel};

    #[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/tma.ptx")]
    unsafe extern "C" {
        // `int BM` declared `u32`.
        #[kernel(cpp, namespace = "gemm")]
        fn tile<const BM: u32, const BN: i32>(a: TensorMap<f32, 2>, b: TensorMap<f32, 2>, c: *mut f32, k: i32);
    }
}

mod descriptor_as_pointer {
    use cuda_kernel::{TensorMap, kernel};

    #[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/tma.ptx")]
    unsafe extern "C" {
        // The second descriptor as device memory.
        #[kernel(cpp, namespace = "gemm")]
        fn tile<const BM: i32, const BN: i32>(a: TensorMap<f32, 2>, b: *const f32, c: *mut f32, k: i32);
    }
}

fn main() {}
