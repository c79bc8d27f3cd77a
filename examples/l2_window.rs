//! A persisting L2 access policy window against none, side by side in one run: `reread`
//! streams through a buffer much larger than L2 while gathering from a lookup table that fits
//! the persisting set-aside (an embedding or hash-table lookup), with the window over the table
//! (`Config::l2_window`) and without it.
//! Then the persisting lines are reset (`reset_persisting_l2`) and the launch without a window
//! timed again.
//!
//! ```text
//! cargo run --release --example l2_window [-- ROUNDS]
//! ```

use std::process::ExitCode;

use cuda_kernel::cudarc::driver::sys::{CUdevice_attribute, CUevent_flags};
use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream};
use cuda_kernel::{AccessProperty, AttributeLimits, Attributed, Config, L2Window};
use kernels::AttributeKernels;

/// Launches timed together, per measurement.
const LAUNCHES: usize = 10;

type Error = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("l2_window: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Buffers<'d> {
    lookup: CudaSlice<f32>,
    m: u32,
    data: &'d CudaSlice<f32>,
}

/// Milliseconds per launch of `LAUNCHES` launches with `config`.
fn ms_per_launch(
    stream: &CudaStream,
    k: &AttributeKernels,
    b: &Buffers<'_>,
    out: &mut CudaSlice<f32>,
    config: Attributed<'_>,
) -> Result<f64, Error> {
    let n = b.data.len() as u64;
    let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
    for _ in 0..LAUNCHES {
        // SAFETY: `reread` reads `lookup[i % m]` and `data[i]` for i < n, and writes one
        // float per thread of the grid, which `out` holds.
        unsafe {
            k.reread
                .launch(stream, config, &b.lookup, b.m, b.data, n, out)?
        };
    }
    let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
    Ok(f64::from(start.elapsed_ms(&end)?) / LAUNCHES as f64)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run() -> Result<(), Error> {
    let rounds: usize = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|_| format!("ROUNDS must be a count, got {arg:?}"))?,
        None => 7,
    };
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.new_stream()?;
    let k = AttributeKernels::load(&ctx)?;
    let limits = AttributeLimits::of(&stream)?;
    let l2 = ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize;
    let sms = ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
    if limits.max_persisting_l2_bytes == 0 {
        return Err("this GPU has no persisting L2 (compute capability 8.0 or newer has)".into());
    }
    let set_aside =
        cuda_kernel::set_persisting_l2(&stream, limits.max_persisting_l2_bytes as usize)?;
    // The stream: 1 GiB, many times the L2; the table: a fraction of the set-aside.
    let n = 1usize << 28;
    let grid = sms * 8;
    let config = Config::new((grid, 1, 1), (256, 1, 1));
    let data = stream.clone_htod(&vec![1.0f32; n])?;
    let mut out = stream.alloc_zeros::<f32>((grid * 256) as usize)?;
    println!(
        "L2 {} MiB, persisting set-aside {:.1} MiB (device maximum {:.1} MiB), largest window {:.1} MiB",
        l2 >> 20,
        set_aside as f64 / 1048576.0,
        f64::from(limits.max_persisting_l2_bytes) / 1048576.0,
        f64::from(limits.max_window_bytes) / 1048576.0
    );
    println!(
        "streaming {} MiB per launch; {grid} blocks of 256, {LAUNCHES} launches per measurement, {rounds} rounds",
        (n * 4) >> 20
    );
    for percent in [50, 75, 95] {
        let m = (set_aside * percent / 100 / 4) as u32;
        let b = Buffers {
            lookup: stream.clone_htod(&vec![1.0f32; m as usize])?,
            m,
            data: &data,
        };
        // Warm-up, and the result checked: every element contributes 1 * 1.
        ms_per_launch(&stream, &k, &b, &mut out, config.into())?;
        let sum: f64 = stream.clone_dtoh(&out)?.iter().map(|&v| f64::from(v)).sum();
        if sum != n as f64 {
            return Err(format!("reread summed {sum}, expected {n}").into());
        }
        let (mut without, mut with) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let window = L2Window::persisting(&stream, &b.lookup).miss(AccessProperty::Streaming);
            with.push(ms_per_launch(
                &stream,
                &k,
                &b,
                &mut out,
                config.l2_window(window),
            )?);
            cuda_kernel::reset_persisting_l2(&stream)?;
            without.push(ms_per_launch(&stream, &k, &b, &mut out, config.into())?);
        }
        let (without, with) = (median(without), median(with));
        // After the reset the lines are normal again: a launch without a window runs as before.
        cuda_kernel::reset_persisting_l2(&stream)?;
        let after = median(
            (0..rounds)
                .map(|_| ms_per_launch(&stream, &k, &b, &mut out, config.into()))
                .collect::<Result<_, _>>()?,
        );
        println!(
            "table {:5.1} MiB ({percent}% of the set-aside), reread {}x a launch: without a window {without:.3} ms, with a persisting window {with:.3} ms: {:.2}x; after reset_persisting_l2, without {after:.3} ms ({:.2}x the first)",
            f64::from(m) * 4.0 / 1048576.0,
            n / m as usize,
            without / with,
            after / without
        );
    }
    cuda_kernel::set_persisting_l2(&stream, 0)?;
    Ok(())
}
