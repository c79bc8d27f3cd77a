// cudarc calls and typed launches mixed with `?`, a derived struct in a `CudaSlice`,
// `CudaSlice<half::f16>`.

use cuda_kernel::{Config, KernelParam, kernel};
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use half::f16;

#[derive(Clone, Copy, Debug, Default, KernelParam)]
#[repr(C)]
pub struct Params {
    pub scale: f32,
    pub n: u32,
}

#[kernel]
unsafe extern "C" {
    pub fn scale_half(x: *mut f16, p: Params);
}

pub fn run(stream: &Arc<CudaStream>, kernel: &ScaleHalf) -> Result<Vec<f16>, cuda_kernel::Error> {
    let mut x: CudaSlice<f16> = stream.clone_htod(&[f16::from_f32(1.0); 256])?;
    let params: CudaSlice<Params> = stream.clone_htod(&[Params { scale: 2.0, n: 256 }])?;
    let p = stream.clone_dtoh(&params)?[0];
    unsafe { kernel.launch(stream, Config::for_elements(p.n, 128), &mut x, p)? };
    Ok(stream.clone_dtoh(&x)?)
}
