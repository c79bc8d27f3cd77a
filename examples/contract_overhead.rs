//! What a contract costs a launch: `vector_add` launched typed without a contract
//! (`kernels::VectorAdd`, an `unsafe` launch) and with its 3-condition contract
//! (`kernels::checked::VectorAdd`, `a.len() >= n, b.len() >= n, c.len() >= n`), in paired
//! rounds on one stream: each round launches one and then the other (the order alternating),
//! so the ratio of a round compares launches made a moment apart. Prints the median ratio over
//! the rounds with its quartiles, for cudarc's event tracking on and off, and the host time of
//! the contract's checks alone (`check_contract`, no launch).
//!
//! ```text
//! cargo run --release --example contract_overhead [ROUNDS]
//! ```
//!
//! (`ROUNDS` defaults to 61; 1 makes a short run, for compute-sanitizer.)

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use cuda_kernel::Config;
use kernels::VECTOR_ADD_PTX;

type Error = Box<dyn std::error::Error>;

/// Paired rounds, unless the command line says otherwise.
const ROUNDS: usize = 61;
const LAUNCHES: usize = 20_000;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("contract_overhead: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    let rounds: usize = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|_| format!("not a number of rounds: {arg}"))?,
        None => ROUNDS,
    };
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.new_stream()?;
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
    let unchecked = kernels::VectorAdd::load(&module)?;
    let checked = kernels::checked::VectorAdd::load(&module)?;
    let a = stream.alloc_zeros::<f32>(256)?;
    let b = stream.alloc_zeros::<f32>(256)?;
    let mut c = stream.alloc_zeros::<f32>(256)?;
    let (n, config) = (256u32, Config::new((1, 1, 1), (256, 1, 1)));

    let mut time = |contract: bool| -> Result<f64, Error> {
        stream.synchronize()?;
        let start = Instant::now();
        for _ in 0..LAUNCHES {
            if contract {
                checked.launch(&stream, config, &a, &b, &mut c, n)?;
            } else {
                // SAFETY: vector_add touches indices below n of buffers of n floats.
                unsafe { unchecked.launch(&stream, config, &a, &b, &mut c, n)? };
            }
        }
        stream.synchronize()?;
        Ok(start.elapsed().as_secs_f64() / LAUNCHES as f64 * 1e6)
    };

    let version = cuda_kernel::driver::version()?;
    println!(
        "driver supports CUDA {}.{}; {rounds} paired rounds of {LAUNCHES} launches each way",
        version / 1000,
        version % 1000 / 10
    );
    for tracking in [true, false] {
        // SAFETY: no other thread uses the context's streams meanwhile.
        unsafe {
            if tracking {
                ctx.enable_event_tracking();
            } else {
                ctx.disable_event_tracking();
            }
        }
        time(false)?; // warm up
        time(true)?;
        let (mut ratios, mut with, mut without) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..rounds.max(1) {
            let (first, second) = if round % 2 == 0 {
                (false, true)
            } else {
                (true, false)
            };
            let x = time(first)?;
            let y = time(second)?;
            let (plain, contract) = if first { (y, x) } else { (x, y) };
            ratios.push(contract / plain);
            with.push(contract);
            without.push(plain);
        }
        for v in [&mut ratios, &mut with, &mut without] {
            v.sort_by(f64::total_cmp);
        }
        let q = |v: &[f64], k: usize| v[(v.len() - 1) * k / 4];
        println!(
            "event tracking {}: without a contract {:.3} us/launch, with {:.3} us/launch; \
             with/without {:.3}x (quartiles {:.3} to {:.3})",
            if tracking { "on" } else { "off" },
            q(&without, 2),
            q(&with, 2),
            q(&ratios, 2),
            q(&ratios, 1),
            q(&ratios, 3)
        );
    }
    // SAFETY: as above.
    unsafe { ctx.enable_event_tracking() };

    // The checks alone: three lengths read, three comparisons.
    let start = Instant::now();
    let checks = 10_000_000u32;
    for i in 0..checks {
        let n = black_box(i % 256);
        kernels::checked::VectorAdd::check_contract(config, &a, &b, &c, n)?;
    }
    println!(
        "check_contract alone: {:.1} ns",
        start.elapsed().as_secs_f64() / checks as f64 * 1e9
    );
    Ok(())
}
