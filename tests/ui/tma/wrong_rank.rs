use std::sync::Arc;

use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream};
use cuda_kernel::{Config, Error, TensorMap, Tiled, kernel};

#[kernel]
unsafe extern "C" {
    fn load_tiles(m: TensorMap<f32, 2>);
}

fn launch(stream: &Arc<CudaStream>, k: &LoadTiles, x: &CudaSlice<f32>) -> Result<(), Error> {
    let map = TensorMap::<f32, 3>::tiled(stream, x, &Tiled::new([16, 16, 16], [16, 16, 1]))?;
    unsafe { k.launch(stream, Config::new((1, 1, 1), (32, 1, 1)), &map) }
}

fn main() {}
