//! Host time per launch of an empty 4-parameter kernel, every way of launching it, in one run on
//! one stream: raw `cuLaunchKernel` with `kernelParams`, raw with a packed buffer, cudarc's
//! `launch_builder`, and the typed launcher, each with cudarc's event tracking on and off; and
//! CUDA-graph replay per kernel. Prints the median of 7 rounds of 100,000 launches. Beside
//! them, `vector_add` launched typed without a contract and with its 3-condition contract
//! (`kernels::checked`), and the ratio of the two round by round.
//!
//! Then, below the single-launch floor (all as ratios to raw `cuLaunchKernel` in the same run):
//! typed launches of 0, 4, 16 and 64 parameters; a typed plan of 1,000 launches replayed (host
//! time to submit a replay, and replay to completion); updating one recorded launch against
//! recording the plan again; and the GPU time per kernel of a chain of 1,000 dependent kernels
//! with and without programmatic dependent launch. `examples/c/launch_floor.c`, built by nvcc on
//! the GPU machine, launches the same kernels from C for the driver's own floor.
//!
//! ```text
//! cargo run --release --example launch_overhead
//! ```

use std::ffi::c_void;
use std::process::ExitCode;
use std::time::Instant;

use cuda_kernel::Config;
use cuda_kernel::cudarc::driver::sys::{self, CUgraphInstantiate_flags, CUstreamCaptureMode};
use cuda_kernel::cudarc::driver::{DevicePtr, LaunchConfig, PushKernelArg};
use kernels::{Empty4, PlanKernels, VECTOR_ADD_PTX};

#[path = "support/raw_launch.rs"]
mod raw_launch;

const LAUNCHES: usize = 100_000;
const ROUNDS: usize = 7;
const GRAPH_KERNELS: usize = 1_000;
const GRAPH_REPLAYS: usize = 100;

type Error = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("launch_overhead: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.new_stream()?;
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
    let empty = Empty4::load(&module)?;
    let unchecked = kernels::VectorAdd::load(&module)?;
    let checked = kernels::checked::VectorAdd::load(&module)?;
    let function = empty.function().ok_or("loaded from a module")?.clone();
    let a = stream.alloc_zeros::<f32>(1)?;
    let b = stream.alloc_zeros::<f32>(1)?;
    let mut c = stream.alloc_zeros::<f32>(1)?;
    let n = 1u32;
    let config = Config::new((1, 1, 1), (32, 1, 1));
    let cudarc_config = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let (pa, _ga) = a.device_ptr(&stream);
    let (pb, _gb) = b.device_ptr(&stream);
    let (pc, _gc) = c.device_ptr(&stream);
    let (pa, pb, pc) = (pa, pb, pc);
    drop((_ga, _gb, _gc));
    let cu_function = function.cu_function();
    stream.synchronize()?;

    // Each variant launches LAUNCHES times; returns the seconds taken, queue drained.
    let time = |launch: &mut dyn FnMut() -> Result<(), Error>| -> Result<f64, Error> {
        stream.synchronize()?;
        let start = Instant::now();
        for _ in 0..LAUNCHES {
            launch()?;
        }
        stream.synchronize()?;
        Ok(start.elapsed().as_secs_f64())
    };

    let mut raw_params = || raw_launch::empty4(cu_function, &stream, [pa, pb, pc], n);
    let mut raw_packed = || raw_launch::empty4_packed(cu_function, &stream, [pa, pb, pc], n);

    let variants = [
        "raw cuLaunchKernel, kernelParams",
        "raw cuLaunchKernel, packed buffer",
        "cudarc launch_builder",
        "typed launcher (cuda-kernel)",
        "typed vector_add, no contract",
        "typed vector_add, 3-condition contract",
    ];
    // results[tracking][variant] = seconds of each round
    let mut results = vec![vec![Vec::new(); variants.len()]; 2];
    for round in 0..ROUNDS {
        for (t, tracking) in [true, false].into_iter().enumerate() {
            unsafe {
                if tracking {
                    ctx.enable_event_tracking();
                } else {
                    ctx.disable_event_tracking();
                }
            }
            // Rotate the order each round so no variant always runs first.
            for k in 0..variants.len() {
                let v = (k + round) % variants.len();
                let seconds = match v {
                    0 => time(&mut raw_params)?,
                    1 => time(&mut raw_packed)?,
                    2 => time(&mut || {
                        let mut builder = stream.launch_builder(&function);
                        builder.arg(&a).arg(&b).arg(&mut c).arg(&n);
                        unsafe { builder.launch(cudarc_config) }?;
                        Ok(())
                    })?,
                    3 => time(&mut || {
                        empty.launch(&stream, config, &a, &b, &mut c, n)?;
                        Ok(())
                    })?,
                    // SAFETY: vector_add touches indices below n = 1 of one-element buffers.
                    4 => time(&mut || {
                        unsafe { unchecked.launch(&stream, config, &a, &b, &mut c, n) }?;
                        Ok(())
                    })?,
                    _ => time(&mut || {
                        checked.launch(&stream, config, &a, &b, &mut c, n)?;
                        Ok(())
                    })?,
                };
                results[t][v].push(seconds);
            }
        }
    }
    unsafe { ctx.enable_event_tracking() };

    let device = device_name(&ctx)?;
    let version = cuda_kernel::driver::version()?;
    println!(
        "device: {device}; driver supports CUDA {}.{}; {LAUNCHES} launches a round, median of {ROUNDS} rounds",
        version / 1000,
        version % 1000 / 10
    );
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] / LAUNCHES as f64 * 1e6
    };
    // The contract's cost, round by round: the checked launch over the unchecked one run
    // beside it, so that drift between rounds cancels.
    for (t, label) in ["on", "off"].into_iter().enumerate() {
        let mut ratios: Vec<f64> = results[t][5]
            .iter()
            .zip(&results[t][4])
            .map(|(checked, unchecked)| checked / unchecked)
            .collect();
        ratios.sort_by(f64::total_cmp);
        println!(
            "contract (event tracking {label}): {:5.3}x the same launch without, median of paired rounds ({:5.3} to {:5.3})",
            ratios[ratios.len() / 2],
            ratios[0],
            ratios[ratios.len() - 1]
        );
    }
    for (t, label) in ["on", "off"].into_iter().enumerate() {
        let base = median(&results[t][0]);
        println!("event tracking {label}:");
        for (v, name) in variants.iter().enumerate() {
            let us = median(&results[t][v]);
            println!(
                "  {name:<36} {us:6.3} us/launch  {:5.3}x raw kernelParams",
                us / base
            );
        }
    }

    // Graph replay: GRAPH_KERNELS typed launches captured once, replayed GRAPH_REPLAYS times.
    unsafe { ctx.disable_event_tracking() };
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    for _ in 0..GRAPH_KERNELS {
        empty.launch(&stream, config, &a, &b, &mut c, n)?;
    }
    let graph = stream
        .end_capture(CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)?
        .ok_or("capture produced no graph")?;
    graph.upload()?;
    graph.launch()?;
    stream.synchronize()?;
    let mut rounds = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for _ in 0..GRAPH_REPLAYS {
            graph.launch()?;
        }
        stream.synchronize()?;
        rounds.push(start.elapsed().as_secs_f64() / (GRAPH_REPLAYS * GRAPH_KERNELS) as f64 * 1e6);
    }
    rounds.sort_by(f64::total_cmp);
    unsafe { ctx.enable_event_tracking() };
    println!(
        "graph replay: {:.3} us per kernel (graph of {GRAPH_KERNELS} typed launches, {GRAPH_REPLAYS} replays, median of {ROUNDS})",
        rounds[ROUNDS / 2]
    );
    below_the_floor(&ctx, &stream, &empty)?;
    another_context_current(&ctx, &stream, &empty)?;
    Ok(())
}

/// Context handling against raw `cuLaunchKernel` on the same stream, paired per round (tracking
/// off): a typed launch on a stream of its own and on the null stream, each with the stream's
/// context current and with the application's own context current. On a stream of its own a
/// CUDA 13 driver takes the context from the stream and the launch touches none; on the null
/// stream the launch asks for the current context and pushes and pops the stream's over the
/// application's.
fn another_context_current(
    ctx: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaContext>,
    stream: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>,
    empty: &Empty4,
) -> Result<(), Error> {
    use cuda_kernel::cudarc::driver::result::ctx as current;
    const N: usize = 20_000;
    const PAIRED: usize = 31;
    unsafe { ctx.disable_event_tracking() };
    let own = cuda_kernel::cudarc::driver::CudaContext::new_non_primary(0, 0)?;
    unsafe { current::set_current(ctx.cu_ctx()) }?;
    let null = ctx.default_stream();
    let a = stream.alloc_zeros::<f32>(1)?;
    let b = stream.alloc_zeros::<f32>(1)?;
    let mut c = stream.alloc_zeros::<f32>(1)?;
    let n = 1u32;
    let (pa, _ga) = a.device_ptr(stream);
    let (pb, _gb) = b.device_ptr(stream);
    let (pc, _gc) = c.device_ptr(stream);
    let (pa, pb, pc) = (pa, pb, pc);
    drop((_ga, _gb, _gc));
    let function = empty
        .function()
        .ok_or("loaded from a module")?
        .cu_function();
    let config = Config::new((1, 1, 1), (32, 1, 1));
    // Seconds for N launches with `context` current, the queue drained after.
    let mut run = |on: &cuda_kernel::cudarc::driver::CudaStream,
                   context: sys::CUcontext,
                   typed: bool|
     -> Result<f64, Error> {
        unsafe { current::set_current(context) }?;
        let start = Instant::now();
        for _ in 0..N {
            if typed {
                empty.launch(on, config, &a, &b, &mut c, n)?;
            } else {
                raw_launch::empty4(function, on, [pa, pb, pc], n)?;
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        unsafe { current::set_current(ctx.cu_ctx()) }?;
        on.synchronize()?;
        Ok(seconds)
    };
    let streams = [
        ("a stream of its own", &**stream),
        ("the null stream", &*null),
    ];
    let cases = [
        ("raw cuLaunchKernel", true, false),
        ("typed, the stream's context current", true, true),
        ("typed, another context current", false, true),
    ];
    // times[stream][case][round]
    let mut times = vec![vec![Vec::new(); cases.len()]; streams.len()];
    for round in 0..PAIRED {
        for (s, (_, on)) in streams.iter().enumerate() {
            for k in 0..cases.len() {
                let c = (k + round) % cases.len();
                let (_, stream_current, typed) = cases[c];
                let context = if stream_current {
                    ctx.cu_ctx()
                } else {
                    own.cu_ctx()
                };
                times[s][c].push(run(on, context, typed)?);
            }
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "context handling (tracking off, {N} launches a round, median of {PAIRED} rounds, ratios paired per round):"
    );
    for (s, (stream_name, _)) in streams.iter().enumerate() {
        for (c, (case, _, _)) in cases.iter().enumerate() {
            let us = median(times[s][c].clone()) / N as f64 * 1e6;
            let ratio = median(
                (0..PAIRED)
                    .map(|r| times[s][c][r] / times[s][0][r])
                    .collect(),
            );
            println!("  {stream_name:<20} {case:<38} {us:6.3} us  {ratio:5.3}x raw");
        }
    }
    // Launch by launch: raw and typed alternate (which goes first alternating too), each timed
    // alone, so that both see the same machine from one microsecond to the next; the timer's
    // own cost (two reads with nothing between) is taken off both.
    const PAIRS: usize = 200_000;
    let timer = {
        let mut reads = Vec::with_capacity(10_000);
        for _ in 0..10_000 {
            let t = Instant::now();
            reads.push(t.elapsed().as_secs_f64());
        }
        median(reads)
    };
    println!(
        "launch by launch ({PAIRS} pairs, raw and typed alternating, median per launch less the timer's {:.3} us):",
        timer * 1e6
    );
    for (stream_name, on) in streams {
        let mut raw_times = Vec::with_capacity(PAIRS);
        let mut typed_times = Vec::with_capacity(PAIRS);
        for i in 0..PAIRS {
            for typed in [i % 2 == 1, i % 2 == 0] {
                let start = Instant::now();
                if typed {
                    empty.launch(on, config, &a, &b, &mut c, n)?;
                } else {
                    raw_launch::empty4(function, on, [pa, pb, pc], n)?;
                }
                let t = start.elapsed().as_secs_f64() - timer;
                if typed {
                    typed_times.push(t);
                } else {
                    raw_times.push(t);
                }
            }
            if i % 1000 == 999 {
                on.synchronize()?;
            }
        }
        on.synchronize()?;
        let mean = |v: &[f64]| {
            // The middle 90%: a launch that waited on the queue or an interrupt is left out.
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            let kept = &v[v.len() / 20..v.len() - v.len() / 20];
            kept.iter().sum::<f64>() / kept.len() as f64
        };
        let (raw_median, typed_median) = (median(raw_times.clone()), median(typed_times.clone()));
        println!(
            "  {stream_name:<20} raw {:.3} us, typed {:.3} us: {:.3}x (trimmed means {:.3} and {:.3} us: {:.3}x)",
            raw_median * 1e6,
            typed_median * 1e6,
            typed_median / raw_median,
            mean(&raw_times) * 1e6,
            mean(&typed_times) * 1e6,
            mean(&typed_times) / mean(&raw_times)
        );
    }
    drop(own);
    unsafe { current::set_current(ctx.cu_ctx()) }?;
    unsafe { ctx.enable_event_tracking() };
    Ok(())
}

type Empty4Args<'a> = (
    cuda_kernel::PlanRef<'a, f32>,
    cuda_kernel::PlanRef<'a, f32>,
    cuda_kernel::PlanMut<'a, f32>,
);

/// Records a plan of `count` launches of `empty4` and replays it once (instantiating it);
/// returns the seconds that took, the plan, its first launch and the buffers' handles.
fn record_plan<'a>(
    stream: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>,
    empty4: &Empty4,
    config: Config,
    count: usize,
    a: &'a cuda_kernel::cudarc::driver::CudaSlice<f32>,
    b: &'a cuda_kernel::cudarc::driver::CudaSlice<f32>,
    c: &'a mut cuda_kernel::cudarc::driver::CudaSlice<f32>,
) -> Result<
    (
        f64,
        cuda_kernel::Plan<'a>,
        cuda_kernel::PlanNode<Empty4>,
        Empty4Args<'a>,
    ),
    Error,
> {
    let start = Instant::now();
    let mut plan = cuda_kernel::Plan::new(stream)?;
    let (ar, br, cw) = (plan.input(a), plan.input(b), plan.output(c));
    let first = unsafe { plan.record(empty4, config, (ar, br, cw, 1))? };
    for _ in 1..count {
        unsafe { plan.record(empty4, config, (ar, br, cw, 1))? };
    }
    plan.replay(stream)?;
    stream.synchronize()?;
    Ok((start.elapsed().as_secs_f64(), plan, first, (ar, br, cw)))
}

/// Median of `rounds` of `f`, each returning seconds, as microseconds per `per`.
fn median_us(
    rounds: usize,
    per: usize,
    mut f: impl FnMut() -> Result<f64, Error>,
) -> Result<f64, Error> {
    let mut v = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        v.push(f()? / per as f64 * 1e6);
    }
    v.sort_by(f64::total_cmp);
    Ok(v[v.len() / 2])
}

fn below_the_floor(
    ctx: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaContext>,
    stream: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>,
    empty4: &Empty4,
) -> Result<(), Error> {
    const N: usize = 20_000;
    unsafe { ctx.disable_event_tracking() };
    let k = PlanKernels::load(ctx)?;
    let config = Config::new((1, 1, 1), (32, 1, 1));
    let values = [7u32; 64];
    let a = stream.alloc_zeros::<f32>(1)?;
    let mut c = stream.alloc_zeros::<f32>(1)?;
    let timed = |launch: &mut dyn FnMut() -> Result<(), Error>| -> Result<f64, Error> {
        stream.synchronize()?;
        let start = Instant::now();
        for _ in 0..N {
            launch()?;
        }
        stream.synchronize()?;
        Ok(start.elapsed().as_secs_f64())
    };
    let raw = |function: sys::CUfunction, count: usize| -> Result<f64, Error> {
        let mut pointers: Vec<*mut c_void> = values[..count]
            .iter()
            .map(|v| (v as *const u32).cast_mut().cast())
            .collect();
        timed(&mut || {
            let params = if count == 0 {
                std::ptr::null_mut()
            } else {
                pointers.as_mut_ptr()
            };
            unsafe {
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
                    params,
                    std::ptr::null_mut(),
                )
            }
            .result()?;
            Ok(())
        })
    };
    println!("below the floor (event tracking off, {N} launches a round, median of {ROUNDS}):");
    let v = values;
    for count in [0usize, 4, 16, 64] {
        let function = match count {
            0 => k
                .empty0
                .function()
                .expect("loaded from a module")
                .cu_function(),
            4 => empty4
                .function()
                .expect("loaded from a module")
                .cu_function(),
            16 => k
                .empty16
                .function()
                .expect("loaded from a module")
                .cu_function(),
            _ => k
                .empty64
                .function()
                .expect("loaded from a module")
                .cu_function(),
        };
        let raw_us = median_us(ROUNDS, N, || raw(function, count))?;
        let typed_us = median_us(ROUNDS, N, || match count {
            0 => timed(&mut || Ok(k.empty0.launch(stream, config)?)),
            4 => timed(&mut || Ok(empty4.launch(stream, config, &a, &a, &mut c, 1)?)),
            16 => timed(&mut || {
                Ok(k.empty16.launch(
                    stream, config, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                    v[10], v[11], v[12], v[13], v[14], v[15],
                )?)
            }),
            _ => timed(&mut || {
                Ok(k.empty64.launch(
                    stream, config, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                    v[10], v[11], v[12], v[13], v[14], v[15], v[16], v[17], v[18], v[19], v[20],
                    v[21], v[22], v[23], v[24], v[25], v[26], v[27], v[28], v[29], v[30], v[31],
                    v[32], v[33], v[34], v[35], v[36], v[37], v[38], v[39], v[40], v[41], v[42],
                    v[43], v[44], v[45], v[46], v[47], v[48], v[49], v[50], v[51], v[52], v[53],
                    v[54], v[55], v[56], v[57], v[58], v[59], v[60], v[61], v[62], v[63],
                )?)
            }),
        })?;
        println!(
            "  {count:2} parameters: raw cuLaunchKernel {raw_us:6.3} us, typed {typed_us:6.3} us ({:.3}x)",
            typed_us / raw_us
        );
    }

    // A plan of PLAN typed launches of empty4.
    const PLAN: usize = 1_000;
    let raw4 = median_us(ROUNDS, N, || {
        raw(
            empty4
                .function()
                .expect("loaded from a module")
                .cu_function(),
            4,
        )
    })?;
    let b = stream.alloc_zeros::<f32>(1)?;
    let mut c2 = stream.alloc_zeros::<f32>(1)?;
    let mut rerecord = Vec::new();
    for _ in 0..ROUNDS {
        rerecord.push(record_plan(stream, empty4, config, PLAN, &a, &b, &mut c2)?.0 * 1e6);
    }
    rerecord.sort_by(f64::total_cmp);
    let (_, mut plan, first, args) = record_plan(stream, empty4, config, PLAN, &a, &b, &mut c2)?;
    let mut submit = Vec::new();
    let mut complete = Vec::new();
    let mut update = Vec::new();
    for round in 0..ROUNDS * 10 {
        stream.synchronize()?;
        let start = Instant::now();
        plan.replay(stream)?;
        let submitted = start.elapsed().as_secs_f64();
        stream.synchronize()?;
        submit.push(submitted / PLAN as f64 * 1e6);
        complete.push(start.elapsed().as_secs_f64() / PLAN as f64 * 1e6);
        let start = Instant::now();
        unsafe { plan.set(&first, config, (args.0, args.1, args.2, round as u32))? };
        update.push(start.elapsed().as_secs_f64() * 1e6);
    }
    for v in [&mut submit, &mut complete, &mut update] {
        v.sort_by(f64::total_cmp);
    }
    let (submit, complete, update) = (
        submit[submit.len() / 2],
        complete[complete.len() / 2],
        update[update.len() / 2],
    );
    println!(
        "  plan of {PLAN} typed launches: replay submitted in {submit:.3} us per kernel ({:.3}x raw cuLaunchKernel of empty4, {raw4:.3} us), run to completion {complete:.3} us per kernel ({:.3}x)",
        submit / raw4,
        complete / raw4
    );
    let rerecord_us = rerecord[ROUNDS / 2];
    println!(
        "  updating one recorded launch: {update:.3} us; recording and instantiating the plan again: {rerecord_us:.1} us ({:.5}x)",
        update / rerecord_us
    );
    drop(plan);

    // GPU time per kernel of a chain of dependent kernels, with and without PDL.
    let n = 4096usize;
    let mut x = stream.alloc_zeros::<f32>(n)?;
    let mut y = stream.alloc_zeros::<f32>(n)?;
    for programmatic in [false, true] {
        let mut chain = Config::for_elements(n as u32, 256);
        if programmatic {
            chain = chain.programmatic_dependent();
        }
        let gpu_us = median_us(ROUNDS, PLAN, || {
            let start = stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
            for i in 0..PLAN {
                unsafe {
                    if i % 2 == 0 {
                        k.chain_step.launch(stream, chain, &x, &mut y, n as u32)?
                    } else {
                        k.chain_step.launch(stream, chain, &y, &mut x, n as u32)?
                    }
                }
            }
            let end = stream.record_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
            end.synchronize()?;
            Ok(start.elapsed_ms(&end)? as f64 / 1e3)
        })?;
        println!(
            "  chain of {PLAN} dependent kernels ({n} floats each): {gpu_us:.3} us GPU time per kernel {}",
            if programmatic {
                "with programmatic dependent launch"
            } else {
                "without"
            }
        );
    }
    unsafe { ctx.enable_event_tracking() };
    Ok(())
}

fn device_name(ctx: &cuda_kernel::cudarc::driver::CudaContext) -> Result<String, Error> {
    Ok(ctx.name()?)
}
