//! Adds two vectors on the GPU through the typed launcher, checks every element, and prints the
//! kernel's time and effective bandwidth.
//!
//! ```text
//! cargo run --release --example vector_add [-- N]
//! ```

use std::process::ExitCode;

use cuda_kernel::cudarc::driver::{LaunchConfig, sys::CUevent_flags};
use kernels::{VECTOR_ADD_PTX, VectorAdd};

const ROUNDS: usize = 20;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vector_add: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let n: u32 = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|_| format!("N must be a count of elements below 2^32, got {arg:?}"))?,
        None => 1 << 26,
    };
    let len = n as usize;

    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.default_stream();
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
    let vector_add = VectorAdd::load(&module)?;

    let a_host: Vec<f32> = (0..len).map(|i| (i % 1000) as f32 * 0.5).collect();
    let b_host: Vec<f32> = (0..len).map(|i| (i % 777) as f32 - 100.0).collect();
    let a = stream.clone_htod(&a_host)?;
    let b = stream.clone_htod(&b_host)?;
    let mut c = stream.alloc_zeros::<f32>(len.max(1))?;
    let config = LaunchConfig {
        grid_dim: (n.div_ceil(256).max(1), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };

    // SAFETY: vector_add reads a[i], b[i] and writes c[i] for i < n; all three hold n floats.
    unsafe { vector_add.launch(&stream, config, &a, &b, &mut c, n)? };
    let c_host = stream.clone_dtoh(&c)?;
    let wrong = (0..len)
        .filter(|&i| c_host[i] != a_host[i] + b_host[i])
        .count();
    if wrong > 0 {
        let i = (0..len)
            .find(|&i| c_host[i] != a_host[i] + b_host[i])
            .unwrap_or(0);
        return Err(format!(
            "{wrong} of {n} elements wrong; first at {i}: {} + {} gave {}",
            a_host[i], b_host[i], c_host[i]
        )
        .into());
    }

    let mut times_ms = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        // SAFETY: as above.
        unsafe { vector_add.launch(&stream, config, &a, &b, &mut c, n)? };
        let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        times_ms.push(f64::from(start.elapsed_ms(&end)?));
    }
    times_ms.sort_by(f64::total_cmp);
    let median_ms = times_ms[ROUNDS / 2];
    let bytes = 3.0 * 4.0 * f64::from(n);
    println!(
        "vector_add: {n} elements verified; kernel {:.3} ms (median of {ROUNDS}), {:.1} GB/s",
        median_ms,
        bytes / (median_ms * 1e-3) / 1e9
    );
    Ok(())
}
