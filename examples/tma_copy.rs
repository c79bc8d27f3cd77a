//! Hopper's Tensor Memory Accelerator through typed descriptors, on the GPU machine:
//!
//! 1. Bandwidth: a 8192 x 8192 `f32` matrix (256 MiB) copied tile by tile by `tma_copy_2d`
//!    (`kernels/cuda/tma.cu`: boxes of 64 x 64 loaded into shared memory and stored back, both
//!    through `TensorMap` descriptors) beside a device-to-device `cuMemcpyDtoDAsync` of the same
//!    bytes, rounds interleaved; GB/s counts bytes read plus bytes written; the result is
//!    compared with the source.
//! 2. Launch overhead with a descriptor parameter beside one without: host time per launch of
//!    `tma_probe(u32, CUtensorMap, u8*)` typed (a `&TensorMap`, placed at the driver's offset,
//!    its memory tracked) against raw `cuLaunchKernel` with `kernelParams`; and of `empty4`
//!    (four parameters, no descriptor) typed against raw, in the same run. Event tracking off
//!    for both, as in `launch_overhead`.
//!
//! ```text
//! cargo run --release --example tma_copy
//! ```

use std::ffi::c_void;
use std::process::ExitCode;
use std::time::Instant;

use cuda_kernel::cudarc::driver::{DevicePtr, sys};
use cuda_kernel::{Config, TensorMap, TensorMapMut, Tiled};
use kernels::{Empty4, TMA_PTX, TmaCopy2d, TmaProbe, VECTOR_ADD_PTX};

#[path = "support/raw_launch.rs"]
#[allow(dead_code)] // the packed-buffer baseline is launch_overhead's
mod raw_launch;

type Error = Box<dyn std::error::Error>;

const SIDE: usize = 8192;
const COPIES: usize = 20;
const ROUNDS: usize = 7;
const LAUNCHES: usize = 50_000;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tma_copy: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.new_stream()?;
    let module = cuda_kernel::driver::load_ptx(&ctx, TMA_PTX)?;
    let copy = TmaCopy2d::load(&module)?;
    let probe = TmaProbe::load(&module)?;

    // 1. Bandwidth.
    let host: Vec<f32> = (0..SIDE * SIDE).map(|i| (i % 65_521) as f32).collect();
    let x = stream.clone_htod(&host)?;
    let mut y = stream.alloc_zeros::<f32>(SIDE * SIDE)?;
    let mut z = stream.alloc_zeros::<f32>(SIDE * SIDE)?;
    let tiles = Tiled::new([SIDE as u64, SIDE as u64], [64, 64]);
    let bytes = (SIDE * SIDE * 4) as f64;
    let grid = ((SIDE / 64) as u32, (SIDE / 64) as u32, 1);
    let config = Config::new(grid, (32, 1, 1));
    let (mut tma, mut memcpy) = (Vec::new(), Vec::new());
    {
        let src = TensorMap::tiled(&stream, &x, &tiles)?;
        let mut dst = TensorMapMut::tiled(&stream, &mut y, &tiles)?;
        for round in 0..=ROUNDS {
            stream.synchronize()?;
            let start = Instant::now();
            for _ in 0..COPIES {
                unsafe { copy.launch(&stream, config, &src, &mut dst)? };
            }
            stream.synchronize()?;
            let t = start.elapsed().as_secs_f64() / COPIES as f64;
            let start = Instant::now();
            for _ in 0..COPIES {
                stream.memcpy_dtod(&x, &mut z)?;
            }
            stream.synchronize()?;
            let m = start.elapsed().as_secs_f64() / COPIES as f64;
            if round > 0 {
                // Round 0 warms up.
                tma.push(2.0 * bytes / t / 1e9);
                memcpy.push(2.0 * bytes / m / 1e9);
            }
        }
    }
    let back = stream.clone_dtoh(&y)?;
    if back != host {
        return Err("the TMA copy differs from its source".into());
    }
    let ratios: Vec<f64> = tma.iter().zip(&memcpy).map(|(t, m)| t / m).collect();
    println!(
        "TMA tiled copy of {SIDE} x {SIDE} f32 ({:.0} MiB), {COPIES} copies a round, {ROUNDS} rounds:",
        bytes / (1 << 20) as f64
    );
    println!(
        "  tma_copy_2d          {:7.1} GB/s (median)",
        median(&mut tma)
    );
    println!(
        "  cuMemcpyDtoDAsync    {:7.1} GB/s (median)",
        median(&mut memcpy)
    );
    println!(
        "  TMA / memcpy         {:7.3} (median of the rounds' ratios); result equal to the source",
        median(&mut ratios.clone())
    );

    // 2. Launch overhead with a descriptor beside one without.
    unsafe { ctx.disable_event_tracking() };
    let small = stream.alloc_zeros::<f32>(64 * 64)?;
    let map = TensorMap::tiled(&stream, &small, &Tiled::new([64, 64], [32, 32]))?;
    let mut out = stream.alloc_zeros::<u8>(132)?;
    let one = Config::new((1, 1, 1), (32, 1, 1));
    let probe_fn = probe
        .function()
        .ok_or("loaded from a module")?
        .cu_function();
    let raw_map = map.raw();
    let out_ptr = out.device_ptr(&stream).0;
    let empty_module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
    let empty = Empty4::load(&empty_module)?;
    let empty_fn = empty
        .function()
        .ok_or("loaded from a module")?
        .cu_function();
    let a = stream.alloc_zeros::<f32>(1)?;
    let b = stream.alloc_zeros::<f32>(1)?;
    let mut c = stream.alloc_zeros::<f32>(1)?;
    let pointers = [
        a.device_ptr(&stream).0,
        b.device_ptr(&stream).0,
        c.device_ptr(&stream).0,
    ];
    let mut rows = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..ROUNDS {
        rows[0].push(per_launch(&stream, || unsafe {
            probe
                .launch(&stream, one, 7, &map, &mut out)
                .map_err(Into::into)
        })?);
        rows[1].push(per_launch(&stream, || {
            raw_probe(probe_fn, &stream, 7, &raw_map, out_ptr)
        })?);
        rows[2].push(per_launch(&stream, || {
            empty
                .launch(&stream, one, &a, &b, &mut c, 1)
                .map_err(Into::into)
        })?);
        rows[3].push(per_launch(&stream, || {
            raw_launch::empty4(empty_fn, &stream, pointers, 1)
        })?);
    }
    let ratio = |typed: &[f64], raw: &[f64]| {
        let mut r: Vec<f64> = typed.iter().zip(raw).map(|(t, r)| t / r).collect();
        median(&mut r)
    };
    println!("Host time per launch, median of {ROUNDS} rounds of {LAUNCHES} (event tracking off):");
    let [probe_typed, probe_raw, empty_typed, empty_raw] = &rows;
    println!(
        "  tma_probe (a descriptor)  typed {:.2} us, raw cuLaunchKernel {:.2} us: {:.3}x",
        median(&mut probe_typed.clone()),
        median(&mut probe_raw.clone()),
        ratio(probe_typed, probe_raw)
    );
    println!(
        "  empty4 (no descriptor)    typed {:.2} us, raw cuLaunchKernel {:.2} us: {:.3}x",
        median(&mut empty_typed.clone()),
        median(&mut empty_raw.clone()),
        ratio(empty_typed, empty_raw)
    );
    unsafe { ctx.enable_event_tracking() };
    Ok(())
}

/// Microseconds per launch of `LAUNCHES` launches of `f`, synchronized at the end.
fn per_launch(
    stream: &cuda_kernel::cudarc::driver::CudaStream,
    mut f: impl FnMut() -> Result<(), Error>,
) -> Result<f64, Error> {
    stream.synchronize()?;
    let start = Instant::now();
    for _ in 0..LAUNCHES {
        f()?;
    }
    stream.synchronize()?;
    Ok(start.elapsed().as_secs_f64() / LAUNCHES as f64 * 1e6)
}

/// `tma_probe(a, m, out)` straight through `cuLaunchKernel`, each parameter pointed to.
fn raw_probe(
    function: sys::CUfunction,
    stream: &cuda_kernel::cudarc::driver::CudaStream,
    a: u32,
    map: &cuda_kernel::RawTensorMap,
    out: sys::CUdeviceptr,
) -> Result<(), Error> {
    let mut values: [*mut c_void; 3] = [
        (&raw const a).cast_mut().cast(),
        std::ptr::from_ref(map).cast_mut().cast(),
        (&raw const out).cast_mut().cast(),
    ];
    // SAFETY: tma_probe's three parameters, each pointed to, alive for the call.
    let result = unsafe {
        sys::cuLaunchKernel(
            function,
            1,
            1,
            1,
            32,
            1,
            1,
            0,
            stream.cu_stream(),
            values.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    match result {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        e => Err(format!("cuLaunchKernel: {e:?}").into()),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
