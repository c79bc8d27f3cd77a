//! One job over every GPU of the host: SAXPY and a dot product over 2^30 floats, split in equal
//! parts. The kernels are loaded once for the process (`Library`), the same typed launchers run
//! on each GPU's stream, and the partial dot products are summed by an NCCL all-reduce. Prints
//! time and throughput on one GPU and on all of them, and verifies both.
//!
//! ```text
//! cargo run --release --example multi_gpu                  # one process, every GPU
//! cargo run --release --example multi_gpu -- --processes   # one process per GPU
//! multi_gpu --rank R --world W --id FILE                   # one rank (what --processes starts)
//! ```
//!
//! Across hosts, start one `--rank` process per GPU on every host, ranks 0 to W-1 in all, each
//! on its host's GPU `R % (GPUs per host)`. The one step that differs from one host is how the
//! NCCL unique id reaches every rank: rank 0 writes it to `--id FILE` and the others wait for
//! that file, so FILE must be on a filesystem every host sees (or copied to the same path on
//! each, say with `scp`, before the other ranks start). NCCL then finds the hosts' network
//! itself (`NCCL_SOCKET_IFNAME` picks the interface).
//!
//! NCCL's library (`libnccl.so.2`) is looked for where the dynamic loader finds it, in
//! `$NCCL_LIB_DIR`, and in the `nvidia-nccl` Python wheel of `python3`; without it the example
//! says so in one line and runs the single-GPU part.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream};
use cuda_kernel::cudarc::nccl::{Comm, Id, ReduceOp};
use cuda_kernel::{Config, Library};
use kernels::{DotPartial, FillF32, MULTI_GPU_PTX, SaxpyN};

type Error = Box<dyn std::error::Error>;

const A: f32 = 3.0;
const X: f32 = 1.0;
const Y: f32 = 2.0;
/// Bytes moved per element: SAXPY reads x and y and writes y, the dot product reads both.
const BYTES_PER_ELEMENT: f64 = 20.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("--rank") => rank_main(&args),
        Some("--processes") => processes_main(),
        _ => single_process_main(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("multi_gpu: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The launchers, loaded once for every GPU.
struct Kernels {
    fill: FillF32,
    saxpy: SaxpyN,
    dot: DotPartial,
}

impl Kernels {
    fn load() -> Result<Kernels, Error> {
        let library = Library::load_ptx(MULTI_GPU_PTX)?;
        Ok(Kernels {
            fill: FillF32::load_library(&library)?,
            saxpy: SaxpyN::load_library(&library)?,
            dot: DotPartial::load_library(&library)?,
        })
    }
}

/// One GPU's part: its stream and its slices of x and y, filled.
struct Part {
    stream: Arc<CudaStream>,
    x: CudaSlice<f32>,
    y: CudaSlice<f32>,
    sum: CudaSlice<f64>,
    len: usize,
}

const GRID: Config = Config::new((1056, 1, 1), (256, 1, 1));

impl Part {
    fn new(k: &Kernels, ordinal: usize, len: usize) -> Result<Part, Error> {
        let ctx = cuda_kernel::driver::context(ordinal)?;
        let stream = ctx.new_stream()?;
        let mut x = stream.alloc_zeros::<f32>(len)?;
        let mut y = stream.alloc_zeros::<f32>(len)?;
        let sum = stream.alloc_zeros::<f64>(1)?;
        unsafe {
            k.fill.launch(&stream, GRID, &mut x, X, len)?;
            k.fill.launch(&stream, GRID, &mut y, Y, len)?;
        }
        stream.synchronize()?;
        Ok(Part {
            stream,
            x,
            y,
            sum,
            len,
        })
    }

    /// Resets y and the sum, then queues y = a x + y and sum = x . y.
    fn queue(&mut self, k: &Kernels) -> Result<(), Error> {
        let n = self.len;
        unsafe {
            k.fill.launch(&self.stream, GRID, &mut self.y, Y, n)?;
            self.stream.memset_zeros(&mut self.sum)?;
            k.saxpy
                .launch(&self.stream, GRID, &self.x, &mut self.y, A, n)?;
            k.dot
                .launch(&self.stream, GRID, &self.x, &self.y, &mut self.sum, n)?;
        }
        Ok(())
    }
}

fn elements(args: &[String]) -> Result<usize, Error> {
    match args.iter().position(|a| a == "--elements") {
        Some(i) => Ok(args
            .get(i + 1)
            .ok_or("--elements takes a number")?
            .parse()?),
        None => Ok(1 << 30),
    }
}

fn expected(n: usize) -> f64 {
    n as f64 * f64::from(X) * f64::from(A * X + Y)
}

fn single_process_main(args: &[String]) -> Result<(), Error> {
    let n = elements(args)?;
    let gpus = cuda_kernel::driver::device_count()?;
    let k = Kernels::load()?;
    println!(
        "{n} elements (SAXPY then a dot product, {BYTES_PER_ELEMENT} bytes each), {gpus} GPU(s)"
    );
    let one = run_parts(&k, &[0], n, None)?;
    report("1 GPU", n, one, one);
    if gpus < 2 {
        return Ok(());
    }
    let all: Vec<usize> = (0..gpus).collect();
    match find_nccl() {
        Ok(()) => {
            let t = run_parts(&k, &all, n, Some(()))?;
            report(&format!("{gpus} GPUs, NCCL all-reduce"), n, t, one);
        }
        Err(why) => println!("NCCL not found ({why}): only the 1-GPU figure"),
    }
    Ok(())
}

/// Splits `n` over `gpus`, runs the job 5 times, verifies, and returns the median seconds.
fn run_parts(k: &Kernels, gpus: &[usize], n: usize, nccl: Option<()>) -> Result<f64, Error> {
    let chunk = n.div_ceil(gpus.len());
    let mut parts = Vec::new();
    for (i, &ordinal) in gpus.iter().enumerate() {
        let len = chunk.min(n - (i * chunk).min(n));
        parts.push(Part::new(k, ordinal, len)?);
    }
    let comms = match nccl {
        Some(()) => Some(
            Comm::from_devices(parts.iter().map(|p| Arc::clone(&p.stream)).collect())
                .map_err(|e| format!("NCCL communicators: {e:?}"))?,
        ),
        None => None,
    };
    let mut totals: Vec<CudaSlice<f64>> = parts
        .iter()
        .map(|p| p.stream.alloc_zeros::<f64>(1))
        .collect::<Result<_, _>>()?;
    let mut times = Vec::new();
    for _ in 0..5 {
        for p in &parts {
            p.stream.synchronize()?;
        }
        let start = Instant::now();
        for p in &mut parts {
            p.queue(k)?;
        }
        let total = match &comms {
            Some(comms) => {
                // One all-reduce per rank, in one NCCL group: every GPU gets the sum.
                cuda_kernel::cudarc::nccl::group_start().map_err(|e| format!("{e:?}"))?;
                for ((comm, part), total) in comms.iter().zip(&parts).zip(&mut totals) {
                    comm.all_reduce(&part.sum, total, &ReduceOp::Sum)
                        .map_err(|e| format!("ncclAllReduce: {e:?}"))?;
                }
                cuda_kernel::cudarc::nccl::group_end().map_err(|e| format!("{e:?}"))?;
                parts[0].stream.clone_dtoh(&totals[0])?[0]
            }
            None => {
                let mut total = 0.0;
                for p in &parts {
                    total += p.stream.clone_dtoh(&p.sum)?[0];
                }
                total
            }
        };
        for p in &parts {
            p.stream.synchronize()?;
        }
        times.push(start.elapsed().as_secs_f64());
        if total != expected(n) {
            return Err(format!("wrong result: {total}, expected {}", expected(n)).into());
        }
        if let Some(comms) = &comms {
            for (i, t) in totals.iter().enumerate() {
                let on_gpu = comms[i].stream().clone_dtoh(t)?[0];
                if on_gpu != expected(n) {
                    return Err(format!("GPU {i} holds {on_gpu} after the all-reduce").into());
                }
            }
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

fn report(what: &str, n: usize, seconds: f64, one_gpu: f64) {
    let gbs = n as f64 * BYTES_PER_ELEMENT / seconds / 1e9;
    println!(
        "  {what:<28} verified, {:8.3} ms (median of 5), {gbs:8.1} GB/s, {:.2}x one GPU",
        seconds * 1e3,
        one_gpu / seconds
    );
}

/// `--processes`: one `--rank` process per GPU of this host, sharing an id file.
fn processes_main() -> Result<(), Error> {
    let gpus = cuda_kernel::driver::device_count()?;
    if let Err(why) = find_nccl() {
        println!("NCCL not found ({why}): the multi-process form needs it");
        return Ok(());
    }
    let id_file = std::env::temp_dir().join(format!("cuda-kernel-nccl-id-{}", std::process::id()));
    spawn_ranks(&std::env::current_exe()?, gpus, &id_file)
}

/// Starts every rank, then waits for all (NCCL's initialization needs them all running).
fn spawn_ranks(exe: &Path, world: usize, id_file: &Path) -> Result<(), Error> {
    let _ = std::fs::remove_file(id_file);
    let mut children = Vec::new();
    for rank in 0..world {
        children.push(
            std::process::Command::new(exe)
                .args([
                    "--rank",
                    &rank.to_string(),
                    "--world",
                    &world.to_string(),
                    "--id",
                ])
                .arg(id_file)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()?,
        );
    }
    let mut ok = true;
    for (rank, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output()?;
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            ok = false;
            eprintln!(
                "rank {rank} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim_end()
            );
        }
    }
    let _ = std::fs::remove_file(id_file);
    if ok {
        Ok(())
    } else {
        Err("a rank failed".into())
    }
}

/// `--rank R --world W --id FILE`: one rank of the job.
fn rank_main(args: &[String]) -> Result<(), Error> {
    let value = |flag: &str| -> Result<&String, Error> {
        let i = args
            .iter()
            .position(|a| a == flag)
            .ok_or(format!("{flag} is needed"))?;
        Ok(args.get(i + 1).ok_or(format!("{flag} takes a value"))?)
    };
    let rank: usize = value("--rank")?.parse()?;
    let world: usize = value("--world")?.parse()?;
    let id_file = PathBuf::from(value("--id")?);
    let n = elements(args)?;
    find_nccl().map_err(|why| format!("NCCL not found ({why})"))?;
    let id = if rank == 0 {
        let id = Id::new().map_err(|e| format!("ncclGetUniqueId: {e:?}"))?;
        let bytes: Vec<u8> = id.internal().iter().map(|&c| c as u8).collect();
        let tmp = id_file.with_extension("partial");
        std::fs::write(&tmp, &bytes)?;
        std::fs::rename(&tmp, &id_file)?;
        id
    } else {
        let start = Instant::now();
        let bytes = loop {
            match std::fs::read(&id_file) {
                Ok(bytes) if bytes.len() == 128 => break bytes,
                _ if start.elapsed() > Duration::from_secs(120) => {
                    return Err(format!("no NCCL id in {} after 120 s", id_file.display()).into());
                }
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        let mut internal = [0 as std::ffi::c_char; 128];
        for (slot, byte) in internal.iter_mut().zip(bytes) {
            *slot = byte as std::ffi::c_char;
        }
        Id::uninit(internal)
    };
    let k = Kernels::load()?;
    let gpus = cuda_kernel::driver::device_count()?;
    let chunk = n.div_ceil(world);
    let len = chunk.min(n - (rank * chunk).min(n));
    let mut part = Part::new(&k, rank % gpus, len)?;
    let comm = Comm::from_rank(Arc::clone(&part.stream), rank, world, id)
        .map_err(|e| format!("ncclCommInitRank: {e:?}"))?;
    let mut total = part.stream.alloc_zeros::<f64>(1)?;
    let mut times = Vec::new();
    for _ in 0..5 {
        part.stream.synchronize()?;
        let start = Instant::now();
        part.queue(&k)?;
        comm.all_reduce(&part.sum, &mut total, &ReduceOp::Sum)
            .map_err(|e| format!("ncclAllReduce: {e:?}"))?;
        let value = part.stream.clone_dtoh(&total)?[0];
        times.push(start.elapsed().as_secs_f64());
        if value != expected(n) {
            return Err(format!(
                "rank {rank}: wrong result {value}, expected {}",
                expected(n)
            )
            .into());
        }
    }
    times.sort_by(f64::total_cmp);
    if rank == 0 {
        println!("{n} elements over {world} processes (NCCL ranks from a unique id in a file)");
        let t = times[2];
        println!(
            "  rank 0 of {world}: verified, {:8.3} ms (median of 5), {:8.1} GB/s for the whole job",
            t * 1e3,
            n as f64 * BYTES_PER_ELEMENT / t / 1e9
        );
    }
    Ok(())
}

/// Makes `libnccl.so.2` loadable: already on the loader's path, or in `$NCCL_LIB_DIR`, or in
/// the `nvidia-nccl` wheel of `python3` (loaded by full path, after which cudarc's load by name
/// finds it).
fn find_nccl() -> Result<(), String> {
    // SAFETY: loading NCCL runs its initializers, as any NCCL program does.
    if unsafe { cuda_kernel::cudarc::nccl::sys::is_culib_present() } {
        return Ok(());
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("NCCL_LIB_DIR")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    let python = std::process::Command::new("python3")
        .args([
            "-c",
            "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib'))",
        ])
        .output();
    if let Ok(out) = python {
        if out.status.success() {
            dirs.push(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
        }
    }
    for dir in &dirs {
        let path = dir.join("libnccl.so.2");
        if path.is_file() {
            // SAFETY: as above; RTLD_GLOBAL so later loads by name resolve to this library.
            let lib = unsafe {
                libloading::os::unix::Library::open(
                    Some(&path),
                    libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL,
                )
            };
            if let Ok(lib) = lib {
                std::mem::forget(lib);
                // SAFETY: as above.
                if unsafe { cuda_kernel::cudarc::nccl::sys::is_culib_present() } {
                    return Ok(());
                }
            }
        }
    }
    Err(
        "no libnccl.so.2 on the loader's path, in $NCCL_LIB_DIR, or in python3's nvidia-nccl wheel"
            .into(),
    )
}
