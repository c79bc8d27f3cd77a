// Device globals declared next to kernels, checked against the PTX, with typed handles.
use cuda_kernel::{DeviceGlobal, Float4, kernel};

#[kernel(ptx = "$CUDA_KERNEL_REPO/kernels/ptx/globals.ptx", module = FirKernels)]
unsafe extern "C" {
    static coeffs: [f32; 16];
    #[kernel(name = "calls")]
    static CALLS: u32;
    static offset: Float4;
    fn fir16(x: *const f32, y: *mut f32, n: u32);
}

#[allow(dead_code)]
fn fields(k: &FirKernels) -> (&DeviceGlobal<[f32; 16]>, &DeviceGlobal<u32>, &DeviceGlobal<Float4>) {
    (&k.coeffs, &k.calls, &k.offset)
}

fn main() {
    assert_eq!(Coeffs::NAME, "coeffs");
    assert_eq!(Calls::NAME, "calls");
    assert_eq!(Offset::NAME, "offset");
}
