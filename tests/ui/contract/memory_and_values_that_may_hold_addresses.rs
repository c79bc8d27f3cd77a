// A safe launch checks only the memory of its pointer parameters: a struct (or pointee) that
// may hold device addresses must say it holds none (`AddressFree`), and memory must vouch for
// its length (`ExactLength`).
use cuda_kernel::cudarc::driver::sys::CUdeviceptr;
use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream, SyncOnDrop};
use cuda_kernel::{Config, DeviceArg, KernelParam, kernel};

#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
struct Tensor {
    data: u64,
    len: u64,
}

#[kernel]
unsafe extern "C" {
    #[requires(out.len() >= n)]
    fn from_tensor(t: Tensor, out: *mut f32, n: u32);
}

/// Memory whose length no one vouches for.
struct Unchecked;

impl DeviceArg<f32> for Unchecked {
    fn device_arg<'a>(&'a self, _: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0, None)
    }
}

#[kernel]
unsafe extern "C" {
    #[requires(x.len() >= n, y.len() >= n)]
    fn copy(x: *const f32, y: *mut f32, n: u32);
}

fn launch(k: &Copy, s: &CudaStream, y: &mut CudaSlice<f32>) -> Result<(), cuda_kernel::Error> {
    k.launch(s, Config::for_elements(4, 4), &Unchecked, y, 4)
}

fn main() {}
