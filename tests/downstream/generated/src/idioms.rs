//! Idioms of production code (cuda/idioms.cu): a kernel taking a device function's address
//! (ccminer's compaction kernels), a kernel template whose parameters are its configuration's
//! member types (cuSZ's Lorenzo kernels), and 128-bit integers (tfhe-rs's 128-bit torus), all
//! declared by the build step.

use cuda_kernel::cudarc::driver::CudaContext;
use cuda_kernel::{Config, Error, kernel};
use std::sync::Arc;

pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/idioms.rs"));
}

use generated::*;

// The `__device__` variables holding the functions' addresses, declared by hand: the generated
// block declares kernels.
#[kernel(ptx = "$OUT_DIR/idioms.ptx")]
unsafe extern "C" {
    /// `twice`'s address on the device.
    pub static twice_fn: u64;
    /// `negated`'s address on the device.
    pub static negated_fn: u64;
}

/// What the launchers send, without a GPU: a function's address, 128-bit integers and the
/// member-typed parameters where nvcc put them.
pub fn check_layouts() {
    let apply = ApplyFn::pack(0x1000, 0x2000, 0xdead_beef_0000, 7);
    assert_eq!(apply.bytes()[16..24], 0xdead_beef_0000u64.to_le_bytes());
    assert_eq!(apply.bytes()[24..28], 7u32.to_le_bytes());
    // `unsigned __int128` by value: 16 bytes aligned to 16, little-endian.
    let a = (7u128 << 64) | 5;
    let wide = Wide::pack(a, -2, 3, 0x1000);
    assert_eq!(wide.bytes()[..16], a.to_le_bytes());
    assert_eq!(wide.bytes()[16..32], (-2i128).to_le_bytes());
    assert_eq!(wide.bytes()[32..40], 3u64.to_le_bytes());
    let quantize = QuantizeDoubleIdiomsConfigShort::pack(0x1000, 0x2000, 0x3000, 9, 0.5);
    assert_eq!(quantize.bytes()[24..26], 9u16.to_le_bytes());
    assert_eq!(quantize.bytes()[32..40], 0.5f64.to_le_bytes());
}

/// Launches each kernel and checks its results.
pub fn run(ctx: &Arc<CudaContext>) -> Result<(), Error> {
    let stream = ctx.default_stream();
    let kernels = Kernels::load(ctx)?;
    let n = 1000usize;
    let host: Vec<f32> = (0..n).map(|i| i as f32 - 500.0).collect();
    let x = stream.clone_htod(&host)?;
    let mut y = stream.alloc_zeros::<f32>(n)?;
    let config = Config::for_elements(n as u32, 256);
    for (global, want) in [
        (TwiceFn::load(&kernels.module, &stream)?, 2.0f32),
        (NegatedFn::load(&kernels.module, &stream)?, -1.0),
    ] {
        let f = global.read(&stream)?;
        // SAFETY: apply_fn touches indices below n of two n-float buffers, and calls `f`, the
        // address of a `float (float)` device function of the module it launches from.
        unsafe { kernels.apply_fn.launch(&stream, config, &x, &mut y, f, n as u32)? };
        let got = stream.clone_dtoh(&y)?;
        assert!(got.iter().zip(&host).all(|(g, h)| *g == want * h));
    }
    // quantize<float, Config<int>>: `Eq` is int, `Counter` unsigned int*, `Small` unsigned short.
    let mut eq = stream.alloc_zeros::<i32>(n)?;
    let mut counts = stream.alloc_zeros::<u32>(1)?;
    // SAFETY: quantize touches indices below n of x and eq, and counts[0].
    unsafe {
        kernels
            .quantize_float_idioms_Config_int
            .launch(&stream, config, &x, &mut eq, &mut counts, n as u16, 0.5)?
    };
    let got = stream.clone_dtoh(&eq)?;
    assert!(got.iter().zip(&host).all(|(g, h)| *g == (h * 0.5) as i32));
    assert_eq!(stream.clone_dtoh(&counts)?, [n as u32]);
    // 128-bit integers by value and in device memory.
    let a = (7u128 << 64) | 0xffff_ffff_ffff_fff0;
    let mut out = stream.alloc_zeros::<u128>(3)?;
    // SAFETY: wide writes out[0..3], of a buffer of 3.
    unsafe { kernels.wide.launch(&stream, Config::for_elements(1, 1), a, -32, 3, &mut out)? };
    assert_eq!(
        stream.clone_dtoh(&out)?,
        [a.wrapping_add(-32i128 as u128), a.wrapping_mul(3), a >> 64]
    );
    println!(
        "generated: a device function's address, a configuration's member types and 128-bit \
         integers, ok"
    );
    Ok(())
}
