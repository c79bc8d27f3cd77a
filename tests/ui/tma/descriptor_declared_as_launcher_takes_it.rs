// A descriptor the kernel writes through, declared as the type the launcher takes for it: one
// error at the type, naming the declaration to write; the launch, written as it will be once
// the declaration is fixed, raises nothing more.
use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaStream;
use cuda_kernel::{Config, Error, TensorMap, TensorMapMut, kernel};

#[kernel]
unsafe extern "C" {
    fn tma_copy(src: TensorMap<f32, 2>, dst: TensorMapMut<f32, 2>, n: u32);
}

fn launch(
    stream: &Arc<CudaStream>,
    k: &TmaCopy,
    src: &TensorMap<f32, 2>,
    dst: &mut TensorMapMut<f32, 2>,
) -> Result<(), Error> {
    unsafe { k.launch(stream, Config::new((1, 1, 1), (32, 1, 1)), src, dst, 4) }
}

fn main() {}
