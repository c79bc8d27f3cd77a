//! Host time per launch of an empty 4-parameter kernel, every way of launching it, in one run on
//! one stream: raw `cuLaunchKernel` with `kernelParams`, raw with a packed buffer, cudarc's
//! `launch_builder`, and the typed launcher, each with cudarc's event tracking on and off; and
//! CUDA-graph replay per kernel. Prints the median of 7 rounds of 100,000 launches.
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
use kernels::{Empty4, VECTOR_ADD_PTX};

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
    let function = empty.function().clone();
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
    let cu_stream = stream.cu_stream();
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

    let mut raw_params = || -> Result<(), Error> {
        let mut values: [*mut c_void; 4] = [
            (&raw const pa).cast_mut().cast(),
            (&raw const pb).cast_mut().cast(),
            (&raw const pc).cast_mut().cast(),
            (&raw const n).cast_mut().cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(
                cu_function,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                cu_stream,
                values.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()?;
        Ok(())
    };
    let mut raw_packed = || -> Result<(), Error> {
        let mut buf = [0u8; 28];
        buf[0..8].copy_from_slice(&pa.to_le_bytes());
        buf[8..16].copy_from_slice(&pb.to_le_bytes());
        buf[16..24].copy_from_slice(&pc.to_le_bytes());
        buf[24..28].copy_from_slice(&n.to_le_bytes());
        let mut size = buf.len();
        let mut extra = [
            sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
            buf.as_mut_ptr().cast(),
            sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize as *mut c_void,
            (&raw mut size).cast(),
            sys::CU_LAUNCH_PARAM_END_AS_INT as usize as *mut c_void,
        ];
        unsafe {
            sys::cuLaunchKernel(
                cu_function,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                cu_stream,
                std::ptr::null_mut(),
                extra.as_mut_ptr(),
            )
        }
        .result()?;
        Ok(())
    };

    let variants = [
        "raw cuLaunchKernel, kernelParams",
        "raw cuLaunchKernel, packed buffer",
        "cudarc launch_builder",
        "typed launcher (cuda-kernel)",
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
                    _ => time(&mut || {
                        empty.launch(&stream, config, &a, &b, &mut c, n)?;
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
    Ok(())
}

fn device_name(ctx: &cuda_kernel::cudarc::driver::CudaContext) -> Result<String, Error> {
    Ok(ctx.name()?)
}
