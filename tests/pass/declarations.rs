// Forms #[kernel] accepts, launched without a GPU only as far as the type checker goes.
use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, LaunchConfig};
use cuda_kernel::half::{bf16, f16};
use cuda_kernel::{Double2, Float2, Float4, Int2, Int4, Uint4, kernel};

mod plain {
    // `extern "C"` without `unsafe`, and plain `extern` (which is "C").
    #[cuda_kernel::kernel]
    extern "C" {
        pub fn a(n: u32);
    }
    #[cuda_kernel::kernel]
    extern {
        pub fn b(n: u32);
    }
}

mod reexported {
    pub mod my_gpu {
        pub use cuda_kernel;
    }
    #[cuda_kernel::kernel(crate = my_gpu::cuda_kernel)]
    unsafe extern "C" {
        pub fn c(n: u32);
    }
}

#[kernel]
unsafe extern "C" {
    /// Every parameter type of the first table.
    #[allow(clippy::too_many_arguments)]
    pub fn everything(
        b: bool, i8: i8, u8: u8, i16: i16, u16: u16, i32: i32, u32: u32, i64: i64, u64: u64,
        f32: f32, f64: f64, h: f16, bh: bf16, f2: Float2, f4: Float4, d2: Double2, i2: Int2,
        i4: Int4, u4: Uint4, p: *const Float4, q: *mut *const f32,
    );

    #[kernel(name = "_Z5scaleIfEvPT_S0_j")]
    pub fn scale_f32(x: *mut f32, a: f32, n: u32);

    pub safe fn fill(x: *mut f32, value: f32, n: u32);

    #[kernel(cpp)]
    pub fn saxpy(x: *const f32, y: *mut f32, a: f32, n: i32);

    /// candle's strided layout: `size_t` is `usize`, for values and device memory alike.
    pub fn ucopy_f32(numel: usize, num_dims: usize, info: *const usize, inp: *const f32, out: *mut f32);

    /// `size_t` and `ptrdiff_t` mangle as C++ spells them (`m`, `l`).
    #[kernel(cpp)]
    pub fn sized(n: usize, d: isize, m: cuda_kernel::ffi::size_t);

    #[cfg(any())]
    pub fn compiled_out(n: NotEvenAType);
}

#[allow(dead_code)]
fn calls(
    s: &CudaStream,
    x: &mut CudaSlice<f32>,
    view: CudaView<'_, f32>,
    mut view_mut: CudaViewMut<'_, f32>,
    scale: &ScaleF32,
    fill: &Fill,
    ucopy: &UcopyF32,
    info: &CudaSlice<usize>,
    out: &mut CudaSlice<f32>,
) -> Result<(), cuda_kernel::Error> {
    let numel: usize = 4;
    unsafe { ucopy.launch(s, LaunchConfig::for_num_elems(4), numel, 1, info, x, out)? };
    fill.launch(s, LaunchConfig::for_num_elems(4), x, 1.0, 4)?;
    fill.launch(s, LaunchConfig::for_num_elems(4), &mut view_mut, 1.0, 4)?;
    unsafe { scale.launch(s, LaunchConfig::for_num_elems(4), &mut view_mut, 2.0, 4)? };
    let _ = view;
    Ok(())
}

const _: () = assert!(Everything::LAYOUT.size == 160);
const _: () = assert!(Everything::LAYOUT.params[14].offset == 64); // f4 after f2 at 56

fn main() {
    assert_eq!(plain::A::NAME, "a");
    assert_eq!(reexported::C::NAME, "c");
    assert_eq!(ScaleF32::NAME, "_Z5scaleIfEvPT_S0_j");
    assert_eq!(Saxpy::NAME, "_Z5saxpyPKfPffi");
    assert_eq!(Sized::NAME, "_Z5sizedmlm");
    assert_eq!(UcopyF32::LAYOUT.size, 40);
}
