use std::sync::Arc;

use cuda_kernel::cudarc::driver::CudaStream;
use cuda_kernel::{Config, Error, TensorMap, Tiled, kernel};

#[kernel]
unsafe extern "C" {
    fn load_tiles(m: TensorMap<f32, 2>);
}

fn launch(stream: &Arc<CudaStream>, k: &LoadTiles) -> Result<(), Error> {
    let x = stream.alloc_zeros::<f32>(64 * 64)?;
    let map = TensorMap::<f32, 2>::tiled(stream, &x, &Tiled::new([64, 64], [64, 64]))?;
    drop(x);
    unsafe { k.launch(stream, Config::new((1, 1, 1), (32, 1, 1)), &map) }
}

fn main() {}
