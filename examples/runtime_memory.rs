//! A typed launch on memory the CUDA runtime allocated (`cudaMalloc`), as an application that
//! already uses the runtime, cuBLAS or another library would hand it over: the runtime and
//! cuda-kernel share device 0's primary context (Programming Guide §3.3.4), and
//! `DeviceMemory::from_raw` makes the runtime's pointer a typed argument.
//!
//! ```text
//! LD_LIBRARY_PATH=/usr/local/cuda/lib64 cargo run --release --example runtime_memory
//! ```

use std::ffi::c_void;
use std::process::ExitCode;

use cuda_kernel::{Config, DeviceMemory};
use kernels::{VECTOR_ADD_PTX, VectorAdd};

type Error = Box<dyn std::error::Error>;

type Malloc = unsafe extern "C" fn(*mut *mut c_void, usize) -> i32;
type Memcpy = unsafe extern "C" fn(*mut c_void, *const c_void, usize, i32) -> i32;
type Free = unsafe extern "C" fn(*mut c_void) -> i32;
const HOST_TO_DEVICE: i32 = 1;
const DEVICE_TO_HOST: i32 = 2;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("runtime_memory: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    // The toolkit's runtime library, as the application links or loads it.
    let cudart = [
        "libcudart.so",
        "libcudart.so.13",
        "libcudart.so.12",
        "cudart64_13.dll",
    ]
    .iter()
    .find_map(|name| unsafe { libloading::Library::new(name) }.ok())
    .ok_or("libcudart not found: put the CUDA toolkit's lib64 on LD_LIBRARY_PATH")?;
    // SAFETY: the runtime API's own signatures.
    let (malloc, memcpy, free) = unsafe {
        (
            *cudart.get::<Malloc>(b"cudaMalloc\0")?,
            *cudart.get::<Memcpy>(b"cudaMemcpy\0")?,
            *cudart.get::<Free>(b"cudaFree\0")?,
        )
    };
    let n = 1 << 20;
    let bytes = n * size_of::<f32>();
    let alloc = || -> Result<u64, Error> {
        let mut ptr = std::ptr::null_mut();
        match unsafe { malloc(&mut ptr, bytes) } {
            0 => Ok(ptr as u64),
            code => Err(format!("cudaMalloc failed: {code}").into()),
        }
    };
    let (pa, pb, pc) = (alloc()?, alloc()?, alloc()?);
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b = vec![0.5f32; n];
    unsafe {
        memcpy(pa as *mut c_void, a.as_ptr().cast(), bytes, HOST_TO_DEVICE);
        memcpy(pb as *mut c_void, b.as_ptr().cast(), bytes, HOST_TO_DEVICE);
    }

    // cuda-kernel on the same device: the runtime's context, not a second one.
    let ctx = cuda_kernel::driver::context(0)?;
    let stream = ctx.default_stream();
    let add = VectorAdd::load(&cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?)?;
    // SAFETY: each pointer holds n floats of device 0 from cudaMalloc, freed after the launch
    // has completed (the synchronize below).
    let (x, y, mut z) = unsafe {
        (
            DeviceMemory::<f32>::from_raw(pa, n, &ctx),
            DeviceMemory::<f32>::from_raw(pb, n, &ctx),
            DeviceMemory::<f32>::from_raw(pc, n, &ctx),
        )
    };
    // SAFETY: vector_add reads x and y and writes z below n.
    unsafe {
        add.launch(
            &stream,
            Config::for_elements(n as u32, 256),
            &x,
            &y,
            &mut z,
            n as u32,
        )?
    };
    stream.synchronize()?;

    let mut out = vec![0f32; n];
    unsafe {
        memcpy(
            out.as_mut_ptr().cast(),
            pc as *const c_void,
            bytes,
            DEVICE_TO_HOST,
        )
    };
    for p in [pa, pb, pc] {
        unsafe { free(p as *mut c_void) };
    }
    let wrong = out
        .iter()
        .enumerate()
        .filter(|(i, v)| **v != *i as f32 + 0.5)
        .count();
    println!(
        "vector_add on cudaMalloc memory: {} elements, {wrong} wrong",
        n
    );
    if wrong == 0 {
        Ok(())
    } else {
        Err("wrong results".into())
    }
}
