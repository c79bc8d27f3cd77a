//! Host time per launch of the backend's dispatch (dtype generic, op named at run time, the
//! launcher taken from the module's cache) against cudarc's `launch_builder` with the same
//! arguments and a function loaded beforehand, and against raw `cuLaunchKernel`; plus
//! `launch_builder` with the function looked up by name on every launch (candle's way today).
//! One run, one stream, each with cudarc's event tracking on and off: 31 rounds of 20,000
//! launches of `uexp_f32` over 256 contiguous floats (info NULL) per variant, the variants in a
//! rotating order within each round. Ratios are the median over rounds of each round's ratio
//! (variants measured next to each other), so a machine that drifts during the run moves both
//! sides of a ratio alike.
//!
//! ```text
//! cargo run --release -p tensor-backend --example dispatch
//! ```

use std::ffi::c_void;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use cuda_kernel::cudarc::driver::sys;
use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cuda_kernel::{Config, Null};
use tensor_backend::WithDType;
use tensor_backend::kernels::UnaryKernels;

const LAUNCHES: usize = 20_000;
const ROUNDS: usize = 31;
const N: usize = 256;

type Error = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dispatch: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The backend's body for any dtype: the launcher for `u{op}_{T}` from the cache, then a
/// typed launch.
#[inline(never)]
fn dispatch<T: WithDType>(
    kernels: &UnaryKernels,
    stream: &CudaStream,
    op: &str,
    src: &CudaSlice<T>,
    out: &mut CudaSlice<T>,
) -> Result<(), cuda_kernel::Error> {
    let kernel = kernels.unary::<T>(op)?;
    let config = Config::for_elements(N as u32, 256);
    // SAFETY: uexp reads N elements of src and writes N of out.
    unsafe { kernel.launch(stream, config, N, 1, &Null, src, out) }
}

fn run() -> Result<(), Error> {
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.new_stream()?;
    let kernels = UnaryKernels::load(&ctx)?;
    let module = kernels.module.clone();
    let function = module.load_function("uexp_f32")?;
    let src = stream.clone_htod(&[1.0f32; N])?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let op = black_box(String::from("exp"));
    let dtype = black_box(tensor_backend::DType::F32);
    let cudarc_config = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let (numel, dims, null) = (N, 1usize, 0u64);
    let (ps, _gs) = src.device_ptr(&stream);
    let (po, _go) = out.device_ptr(&stream);
    drop((_gs, _go));
    let (cu_function, cu_stream) = (function.cu_function(), stream.cu_stream());
    // Warm the cache and the driver.
    dispatch::<f32>(&kernels, &stream, &op, &src, &mut out)?;
    stream.synchronize()?;

    let time = |launch: &mut dyn FnMut() -> Result<(), Error>| -> Result<f64, Error> {
        stream.synchronize()?;
        let start = Instant::now();
        for _ in 0..LAUNCHES {
            launch()?;
        }
        stream.synchronize()?;
        Ok(start.elapsed().as_secs_f64())
    };
    let mut raw = || -> Result<(), Error> {
        let mut values: [*mut c_void; 5] = [
            (&raw const numel).cast_mut().cast(),
            (&raw const dims).cast_mut().cast(),
            (&raw const null).cast_mut().cast(),
            (&raw const ps).cast_mut().cast(),
            (&raw const po).cast_mut().cast(),
        ];
        // SAFETY: uexp_f32's five parameters, each pointed to.
        unsafe {
            sys::cuLaunchKernel(
                cu_function,
                1,
                1,
                1,
                256,
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

    let held = kernels.unary::<f32>("exp")?.clone();
    let variants = [
        "raw cuLaunchKernel, kernelParams",
        "cudarc launch_builder, function loaded once",
        "cudarc launch_builder, function by name each launch",
        "backend dispatch (cache + typed launch)",
        "typed launcher held by the caller (no cache)",
        "raw cuLaunchKernel, packed buffer (extra)",
        "launch_packed, context entered once (diagnostic)",
        "launch_packed, context entered per launch (diagnostic)",
    ];
    // The diagnostic variants: what the driver's buffer path costs against kernelParams, and
    // what the typed path costs without entering the context and borrowing per launch.
    let entered_once = cuda_kernel::__private::enter(&stream)?;
    let layout = <tensor_backend::kernels::Unary<f32> as cuda_kernel::Kernel>::LAYOUT;
    let loaded = cuda_kernel::Loaded::module(function.clone(), "uexp_f32");
    let mut raw_packed = || -> Result<(), Error> {
        let mut buf = tensor_backend::kernels::Unary::<f32>::pack(N, 1, 0, ps, po);
        let mut size = buf.bytes().len();
        let mut extra = [
            sys::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
            buf.bytes_mut().as_mut_ptr().cast(),
            sys::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize as *mut c_void,
            (&raw mut size).cast(),
            sys::CU_LAUNCH_PARAM_END_AS_INT as usize as *mut c_void,
        ];
        // SAFETY: uexp_f32's parameters packed as its layout.
        unsafe {
            sys::cuLaunchKernel(
                cu_function,
                1,
                1,
                1,
                256,
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
    let mut results = vec![vec![Vec::new(); variants.len()]; 2];
    for round in 0..ROUNDS {
        for (t, tracking) in [true, false].into_iter().enumerate() {
            // SAFETY: no other thread uses the context's streams.
            unsafe {
                if tracking {
                    ctx.enable_event_tracking();
                } else {
                    ctx.disable_event_tracking();
                }
            }
            for k in 0..variants.len() {
                let v = (k + round) % variants.len();
                let seconds = match v {
                    0 => time(&mut raw)?,
                    1 => time(&mut || {
                        let mut builder = stream.launch_builder(&function);
                        builder
                            .arg(&numel)
                            .arg(&dims)
                            .arg(&null)
                            .arg(&src)
                            .arg(&mut out);
                        // SAFETY: as for the raw launch.
                        unsafe { builder.launch(cudarc_config) }?;
                        Ok(())
                    })?,
                    2 => time(&mut || {
                        let name = format!("u{}_{}", black_box(op.as_str()), "f32");
                        let function = module.load_function(&name)?;
                        let mut builder = stream.launch_builder(&function);
                        builder
                            .arg(&numel)
                            .arg(&dims)
                            .arg(&null)
                            .arg(&src)
                            .arg(&mut out);
                        // SAFETY: as for the raw launch.
                        unsafe { builder.launch(cudarc_config) }?;
                        Ok(())
                    })?,
                    5 => time(&mut raw_packed)?,
                    6 => time(&mut || {
                        let config = Config::for_elements(N as u32, 256);
                        let mut buf = tensor_backend::kernels::Unary::<f32>::pack(N, 1, 0, ps, po);
                        // SAFETY: packed as the kernel's layout, from live buffers.
                        unsafe {
                            cuda_kernel::__private::launch_packed(
                                &loaded,
                                &entered_once,
                                &stream,
                                &config.into(),
                                &layout,
                                buf.bytes_mut(),
                                cuda_kernel::__private::Site::here(),
                            )?
                        };
                        Ok(())
                    })?,
                    7 => time(&mut || {
                        let config = Config::for_elements(N as u32, 256);
                        let entered = cuda_kernel::__private::enter(&stream)?;
                        let mut buf = tensor_backend::kernels::Unary::<f32>::pack(N, 1, 0, ps, po);
                        // SAFETY: as above.
                        unsafe {
                            cuda_kernel::__private::launch_packed(
                                &loaded,
                                &entered,
                                &stream,
                                &config.into(),
                                &layout,
                                buf.bytes_mut(),
                                cuda_kernel::__private::Site::here(),
                            )?
                        };
                        Ok(())
                    })?,
                    4 => time(&mut || {
                        let config = Config::for_elements(N as u32, 256);
                        // SAFETY: as for the raw launch.
                        unsafe { held.launch(&stream, config, N, 1, &Null, &src, &mut out)? };
                        Ok(())
                    })?,
                    _ => time(&mut || {
                        match dtype {
                            tensor_backend::DType::F32 => {
                                dispatch::<f32>(&kernels, &stream, &op, &src, &mut out)?
                            }
                            _ => unreachable!(),
                        }
                        Ok(())
                    })?,
                };
                results[t][v].push(seconds);
            }
        }
    }
    // SAFETY: as above.
    unsafe { ctx.enable_event_tracking() };

    let version = cuda_kernel::driver::version()?;
    println!(
        "device: {}; driver supports CUDA {}.{}; {LAUNCHES} launches a round, median of {ROUNDS} rounds",
        ctx.name()?,
        version / 1000,
        version % 1000 / 10
    );
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for (t, label) in ["on", "off"].into_iter().enumerate() {
        let r = &results[t];
        println!("event tracking {label}:");
        for (v, name) in variants.iter().enumerate() {
            let us = median(r[v].clone()) / LAUNCHES as f64 * 1e6;
            let ratio = |base: usize| median((0..ROUNDS).map(|i| r[v][i] / r[base][i]).collect());
            println!(
                "  {name:<52} {us:6.3} us/launch  {:5.3}x raw  {:5.3}x launch_builder",
                ratio(0),
                ratio(1)
            );
        }
    }
    Ok(())
}
