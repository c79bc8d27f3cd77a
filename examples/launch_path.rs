//! What cuda-kernel's launch path costs the host by itself: a typed launch of `empty4` (four
//! parameters, tracking off, a stream of its own) against raw `cuLaunchKernel` with
//! `kernelParams` and with the packed buffer the typed launcher passes, in rounds of rotating
//! order, printed as nanoseconds a launch and as differences and ratios to raw paired per round.
//!
//! Against the real driver a launch takes 3 to 4 us, and the run-to-run spread of a GPU machine
//! is larger than the path itself; `scripts/launch-path.sh` runs this example against
//! `examples/c/stub_driver.c`, a `libcuda.so` whose launch only counts, so that the difference is
//! the path's own cost, and counts its instructions per launch under callgrind where valgrind is
//! installed. It runs on a real GPU as well.
//!
//! ```text
//! scripts/launch-path.sh                                        # stub driver, no GPU needed
//! cargo run --release --example launch_path                     # paired rounds
//! cargo run --release --example launch_path -- typed 100000     # one variant (raw, packed,
//!                                                               # typed, none), N launches
//! ```

use std::process::ExitCode;
use std::time::Instant;

use cuda_kernel::Config;
use cuda_kernel::cudarc::driver::DevicePtr;
use kernels::{Empty4, VECTOR_ADD_PTX};

#[path = "support/raw_launch.rs"]
mod raw_launch;

const ROUNDS: usize = 31;
/// Seconds a variant's share of a round takes, about: the launches a round are counted to fit.
const ROUND_SECONDS: f64 = 0.05;

type Error = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("launch_path: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ctx = cuda_kernel::driver::context(0)?;
    // SAFETY: nothing is in flight yet.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
    let empty = Empty4::load(&module)?;
    let function = empty
        .function()
        .ok_or("loaded from a module")?
        .cu_function();
    let a = stream.alloc_zeros::<f32>(1)?;
    let b = stream.alloc_zeros::<f32>(1)?;
    let mut c = stream.alloc_zeros::<f32>(1)?;
    let pointers = [&a, &b, &c].map(|s| s.device_ptr(&stream).0);
    let config = Config::new((1, 1, 1), (32, 1, 1));

    let mut raw = |count: usize| -> Result<(), Error> {
        for _ in 0..count {
            raw_launch::empty4(function, &stream, pointers, std::hint::black_box(1))?;
        }
        Ok(())
    };
    let mut packed = |count: usize| -> Result<(), Error> {
        for _ in 0..count {
            raw_launch::empty4_packed(function, &stream, pointers, std::hint::black_box(1))?;
        }
        Ok(())
    };
    let mut typed = |count: usize| -> Result<(), Error> {
        for _ in 0..count {
            empty.launch(&stream, config, &a, &b, &mut c, std::hint::black_box(1))?;
        }
        Ok(())
    };

    // One variant, for an instruction counter: `none` is the setup alone.
    if let [variant, count] = &args[..] {
        let count: usize = count.parse()?;
        match variant.as_str() {
            "raw" => raw(count)?,
            "packed" => packed(count)?,
            "typed" => typed(count)?,
            "none" => {}
            other => {
                return Err(
                    format!("unknown variant `{other}`: raw, packed, typed or none").into(),
                );
            }
        }
        stream.synchronize()?;
        return Ok(());
    }

    let timed =
        |launch: &mut dyn FnMut(usize) -> Result<(), Error>, count: usize| -> Result<f64, Error> {
            stream.synchronize()?;
            let start = Instant::now();
            launch(count)?;
            stream.synchronize()?;
            Ok(start.elapsed().as_secs_f64() * 1e9 / count as f64)
        };
    // As many launches a round as fit ROUND_SECONDS: 3 to 4 us a launch on a GPU, a few ns
    // against the stub driver.
    let per_launch = timed(&mut raw, 10_000)?;
    let launches = ((ROUND_SECONDS * 1e9 / per_launch) as usize).clamp(10_000, 10_000_000);
    // ns[variant][round], the variants in rotating order.
    let mut ns: [Vec<f64>; 3] = Default::default();
    for round in 0..ROUNDS {
        for k in 0..3 {
            let v = (k + round) % 3;
            ns[v].push(match v {
                0 => timed(&mut raw, launches)?,
                1 => timed(&mut packed, launches)?,
                _ => timed(&mut typed, launches)?,
            });
        }
    }
    println!(
        "{}: {ROUNDS} rounds of {launches} launches of empty4 in rotating order, medians",
        ctx.name()?
    );
    let less_raw = |v: usize| median((0..ROUNDS).map(|r| ns[v][r] - ns[0][r]).collect());
    let ratio = |v: usize| median((0..ROUNDS).map(|r| ns[v][r] / ns[0][r]).collect());
    for (v, name) in [
        "raw cuLaunchKernel, kernelParams",
        "raw cuLaunchKernel, packed buffer",
        "typed launcher",
    ]
    .into_iter()
    .enumerate()
    {
        println!(
            "  {name:<34} {:9.2} ns   {:+7.2} ns {:6.3}x raw, paired per round",
            median(ns[v].clone()),
            less_raw(v),
            ratio(v)
        );
    }
    Ok(())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
