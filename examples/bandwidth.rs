//! Effective bandwidth of vector_add and its float4 variant against a device-to-device copy,
//! measured in the same run (bytes read plus bytes written, per second).
//!
//! ```text
//! cargo run --release --example bandwidth [-- N]
//! ```

use std::process::ExitCode;

use cuda_kernel::Config;
use cuda_kernel::cudarc::driver::CudaStream;
use cuda_kernel::cudarc::driver::sys::CUevent_flags;
use kernels::{VECTOR_ADD_PTX, VectorAdd, VectorAddF4};

const REPS: usize = 30;

type Error = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bandwidth: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Median milliseconds of `REPS` runs of `f`, timed with CUDA events.
fn median_ms(stream: &CudaStream, mut f: impl FnMut() -> Result<(), Error>) -> Result<f64, Error> {
    f()?; // warm-up
    let mut times = Vec::with_capacity(REPS);
    for _ in 0..REPS {
        let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        f()?;
        let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        times.push(f64::from(start.elapsed_ms(&end)?));
    }
    times.sort_by(f64::total_cmp);
    Ok(times[REPS / 2])
}

fn run() -> Result<(), Error> {
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|_| format!("N must be a count, got {arg:?}"))?,
        None => 1 << 26,
    };
    if n % 4 != 0 || n > u32::MAX as usize {
        return Err("N must be a multiple of 4 below 2^32".into());
    }
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.default_stream();
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
    let add = VectorAdd::load(&module)?;
    let add4 = VectorAddF4::load(&module)?;
    let a = stream.clone_htod(&vec![1.0f32; n])?;
    let b = stream.clone_htod(&vec![2.0f32; n])?;
    let mut c = stream.alloc_zeros::<f32>(n)?;
    let a4 = stream.clone_htod(&vec![cuda_kernel::Float4::new(1.0, 1.0, 1.0, 1.0); n / 4])?;
    let b4 = stream.clone_htod(&vec![cuda_kernel::Float4::new(2.0, 2.0, 2.0, 2.0); n / 4])?;
    let mut c4 = stream.alloc_zeros::<cuda_kernel::Float4>(n / 4)?;

    let copy_ms = median_ms(&stream, || {
        stream.memcpy_dtod(&a, &mut c)?;
        Ok(())
    })?;
    let add_ms = median_ms(&stream, || {
        unsafe {
            add.launch(
                &stream,
                Config::for_elements(n as u32, 256),
                &a,
                &b,
                &mut c,
                n as u32,
            )?
        };
        Ok(())
    })?;
    let add4_ms = median_ms(&stream, || {
        let n4 = (n / 4) as u32;
        unsafe {
            add4.launch(
                &stream,
                Config::for_elements(n4, 256),
                &a4,
                &b4,
                &mut c4,
                n4,
            )?
        };
        Ok(())
    })?;
    if stream.clone_dtoh(&c)?.iter().any(|&x| x != 3.0) {
        return Err("vector_add gave a wrong sum".into());
    }
    if stream
        .clone_dtoh(&c4)?
        .iter()
        .any(|v| (v.x, v.y, v.z, v.w) != (3.0, 3.0, 3.0, 3.0))
    {
        return Err("vector_add_f4 gave a wrong sum".into());
    }

    let gbs = |bytes: f64, ms: f64| bytes / (ms * 1e-3) / 1e9;
    let bytes = 4.0 * n as f64;
    let copy = gbs(2.0 * bytes, copy_ms);
    let add = gbs(3.0 * bytes, add_ms);
    let add4 = gbs(3.0 * bytes, add4_ms);
    println!("device: {}; {n} floats, median of {REPS} runs", ctx.name()?);
    println!("  device-to-device copy  {copy_ms:7.3} ms  {copy:7.1} GB/s");
    println!(
        "  vector_add             {add_ms:7.3} ms  {add:7.1} GB/s  {:5.1}% of copy",
        100.0 * add / copy
    );
    println!(
        "  vector_add_f4          {add4_ms:7.3} ms  {add4:7.1} GB/s  {:5.1}% of copy",
        100.0 * add4 / copy
    );
    Ok(())
}
