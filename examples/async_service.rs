//! A service answering requests on the GPU, three ways, on one tokio runtime of 4 worker
//! threads: each request is a short chain of kernels (`b = 2a + r`, then `c = b/2 + 1`, so
//! `c = a + r/2 + 1`) and a copy of the result back to page-locked memory, its result checked
//! on the host.
//!
//! - `async`: the copy's completion awaited (`copy_to_host`, queued after the launches on the
//!   same stream): no thread blocks while the GPU works;
//! - `spawn_blocking`: the same work in `tokio::task::spawn_blocking`, synchronizing the stream;
//! - `thread pool`: 4 threads of our own taking requests from a channel, synchronizing.
//!
//! First one request at a time (latency against a bare launch-and-synchronize on the calling
//! thread, and what one thread waking another that sleeps costs on the machine: the floor of
//! any wait that does not spin), then N requests at once (throughput, and p50 and p99 of each request's latency from
//! its submission to its checked result). Requests share a pool of streams (request i on stream
//! i % 32); each has its own buffers and staging, allocated before the clock starts. The async
//! way runs with each of the completions' wakeups (`cuda_kernel::Wakeup`): the notifier thread
//! (the default) and the driver's stream callback.
//!
//! ```text
//! cargo run --release --example async_service -- [concurrent requests, default 1000] [--no-tracking]
//! ```
//!
//! `--no-tracking` turns cudarc's multi-stream event tracking off (each request's buffers are
//! used on one stream only), as a service ordering its own streams does.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream, PinnedHostSlice};
use cuda_kernel::{Completion, Config, Error, Wakeup};
use kernels::{PLANS_PTX, PlanKernels};

/// Elements per request.
const N: usize = 4096;
/// Streams the requests share.
const STREAMS: usize = 32;

/// One request's memory: its output buffers and page-locked staging for the copy back.
struct Slot {
    stream: Arc<CudaStream>,
    b: CudaSlice<f32>,
    c: CudaSlice<f32>,
    staging: PinnedHostSlice<f32>,
    r: f32,
}

/// What every request shares: the launchers and the input.
struct Shared {
    k: PlanKernels,
    a: CudaSlice<f32>,
}

fn config() -> Config {
    Config::for_elements(N as u32, 256)
}

/// The chain, queued.
fn queue(shared: &Shared, slot: &mut Slot) -> Result<(), Error> {
    let Slot {
        stream, b, c, r, ..
    } = slot;
    // SAFETY: tagged_axpy touches indices below N of N-element buffers.
    unsafe {
        shared
            .k
            .tagged_axpy
            .launch(stream, config(), &shared.a, b, 2.0, *r, N as u32)?;
        shared
            .k
            .tagged_axpy
            .launch(stream, config(), &*b, c, 0.5, 1.0, N as u32)?;
    }
    Ok(())
}

fn check(slot: &Slot) {
    let expected = 1.0 + slot.r / 2.0 + 1.0;
    let host = slot.staging.as_slice().expect("the copy is done");
    assert!(
        host.iter().all(|&v| v == expected),
        "request with r = {}: {} != {expected}",
        slot.r,
        host[0]
    );
}

/// One request, awaited.
async fn serve_async(shared: &Shared, slot: &mut Slot) -> Result<(), Error> {
    queue(shared, slot)?;
    let Slot {
        stream, c, staging, ..
    } = slot;
    cuda_kernel::copy_to_host(stream, &*c, staging)?.await?;
    check(slot);
    Ok(())
}

/// One request, blocking the calling thread until the GPU is done.
fn serve_blocking(shared: &Shared, slot: &mut Slot) -> Result<(), Error> {
    queue(shared, slot)?;
    let Slot {
        stream, c, staging, ..
    } = slot;
    stream.memcpy_dtoh(&*c, staging)?;
    stream.synchronize()?;
    check(slot);
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn report(way: &str, total: Duration, mut latencies: Vec<Duration>) -> f64 {
    latencies.sort();
    let throughput = latencies.len() as f64 / total.as_secs_f64();
    println!(
        "  {way:<15} {:>8.0} requests/s  p50 {:>9.1} us  p99 {:>9.1} us",
        throughput,
        percentile(&latencies, 0.5).as_secs_f64() * 1e6,
        percentile(&latencies, 0.99).as_secs_f64() * 1e6
    );
    throughput
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("async_service: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Error> {
    let requests: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let ctx = cuda_kernel::driver::context(0)?;
    let tracking = !std::env::args().any(|a| a == "--no-tracking");
    if !tracking {
        // SAFETY: every buffer is used on one stream (the input, written before any request,
        // is synchronized first).
        unsafe { ctx.disable_event_tracking() };
    }
    let module = cuda_kernel::driver::load_ptx(&ctx, PLANS_PTX)?;
    let streams: Vec<Arc<CudaStream>> = (0..STREAMS)
        .map(|_| ctx.new_stream())
        .collect::<Result<_, _>>()?;
    let shared = Arc::new(Shared {
        k: PlanKernels::from_module(&module)?,
        a: streams[0].clone_htod(&vec![1.0f32; N])?,
    });
    streams[0].synchronize()?;
    let slots = |count: usize| -> Result<Vec<Slot>, Error> {
        (0..count)
            .map(|i| {
                let stream = Arc::clone(&streams[i % STREAMS]);
                Ok(Slot {
                    b: stream.alloc_zeros::<f32>(N)?,
                    c: stream.alloc_zeros::<f32>(N)?,
                    // SAFETY: written by the copy before it is read.
                    staging: unsafe { ctx.alloc_pinned_with_flags::<f32>(N, 0)? },
                    r: (i % 1000) as f32,
                    stream,
                })
            })
            .collect()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .expect("a tokio runtime");
    let device = ctx.name().unwrap_or_default();
    println!(
        "async_service on {device}: {N} floats a request, 2 kernels and a copy back, \
         cudarc's event tracking {}",
        if tracking { "on" } else { "off" }
    );

    for (wakeup, rounds_at_once) in [(Wakeup::Notifier, 3), (Wakeup::StreamCallback, 1)] {
        Completion::set_wakeup(wakeup);
        println!("== completions woken by {wakeup:?}");
        latency(&runtime, &shared, &slots)?;
        at_once(&runtime, &shared, &slots, requests, rounds_at_once)?;
    }
    Completion::set_wakeup(Wakeup::Notifier);
    Ok(())
}

/// One request at a time, alternating a bare launch-and-synchronize with the awaited way.
fn latency(
    runtime: &tokio::runtime::Runtime,
    shared: &Arc<Shared>,
    slots: &dyn Fn(usize) -> Result<Vec<Slot>, Error>,
) -> Result<(), Error> {
    let rounds = 2000;
    let mut one = slots(1)?.pop().expect("one slot");
    let mut bare = Vec::with_capacity(rounds);
    let mut awaited = Vec::with_capacity(rounds);
    for _ in 0..200 {
        serve_blocking(shared, &mut one)?;
        runtime.block_on(serve_async(shared, &mut one))?;
    }
    // Alternating, so that both see the same clocks and the same GPU state.
    for _ in 0..rounds {
        let start = Instant::now();
        serve_blocking(shared, &mut one)?;
        bare.push(start.elapsed());
        let start = Instant::now();
        runtime.block_on(serve_async(shared, &mut one))?;
        awaited.push(start.elapsed());
    }
    bare.sort();
    awaited.sort();
    let (b50, a50) = (percentile(&bare, 0.5), percentile(&awaited, 0.5));
    println!(
        "one request at a time ({rounds} each, alternating): bare synchronize p50 {:.1} us, \
         async p50 {:.1} us: {:.3}x",
        b50.as_secs_f64() * 1e6,
        a50.as_secs_f64() * 1e6,
        a50.as_secs_f64() / b50.as_secs_f64()
    );

    // The floor of any wait that does not spin: one thread waking another that sleeps in the
    // kernel (the way an executor's parked thread is woken), on this machine.
    let (to_sleeper, sleeper) = std::sync::mpsc::channel::<Instant>();
    let (from_sleeper, woken) = std::sync::mpsc::channel::<Duration>();
    let handle = std::thread::spawn(move || {
        while let Ok(sent) = sleeper.recv() {
            let _ = from_sleeper.send(sent.elapsed());
        }
    });
    let mut wakes = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        std::thread::sleep(Duration::from_micros(50));
        to_sleeper.send(Instant::now()).expect("the sleeper runs");
        wakes.push(woken.recv().expect("the sleeper answers"));
    }
    drop(to_sleeper);
    handle.join().expect("the sleeper");
    wakes.sort();
    println!(
        "  a sleeping thread woken by another (the floor of a wait that does not spin): p50 {:.1} us",
        percentile(&wakes, 0.5).as_secs_f64() * 1e6
    );
    Ok(())
}

/// `requests` at once, the three ways, `rounds` times.
fn at_once(
    runtime: &tokio::runtime::Runtime,
    shared: &Arc<Shared>,
    slots: &dyn Fn(usize) -> Result<Vec<Slot>, Error>,
    requests: usize,
    rounds: usize,
) -> Result<(), Error> {
    println!("{requests} requests at once, 4 tokio worker threads, {STREAMS} streams:");
    let mut results = Vec::new();
    for round in 0..rounds {
        // async
        let pool = slots(requests)?;
        let start = Instant::now();
        let latencies = runtime.block_on(async {
            let tasks: Vec<_> = pool
                .into_iter()
                .map(|mut slot| {
                    let shared = Arc::clone(shared);
                    let begun = Instant::now();
                    tokio::spawn(async move {
                        serve_async(&shared, &mut slot)
                            .await
                            .map(|()| begun.elapsed())
                    })
                })
                .collect();
            let mut latencies = Vec::new();
            for t in tasks {
                latencies.push(t.await.expect("the task ran")?);
            }
            Ok::<_, Error>(latencies)
        })?;
        let total = start.elapsed();
        let async_rate = report("async", total, latencies);
        // spawn_blocking
        let pool = slots(requests)?;
        let start = Instant::now();
        let latencies = runtime.block_on(async {
            let tasks: Vec<_> = pool
                .into_iter()
                .map(|mut slot| {
                    let shared = Arc::clone(shared);
                    let begun = Instant::now();
                    tokio::task::spawn_blocking(move || {
                        serve_blocking(&shared, &mut slot).map(|()| begun.elapsed())
                    })
                })
                .collect();
            let mut latencies = Vec::new();
            for t in tasks {
                latencies.push(t.await.expect("the task ran")?);
            }
            Ok::<_, Error>(latencies)
        })?;
        let total = start.elapsed();
        let blocking_rate = report("spawn_blocking", total, latencies);
        // a thread pool of 4 that synchronizes
        let pool = slots(requests)?;
        let start = Instant::now();
        let (send, receive) = std::sync::mpsc::channel::<(Instant, Slot)>();
        let receive = Arc::new(std::sync::Mutex::new(receive));
        let (done_send, done_receive) = std::sync::mpsc::channel::<Result<Duration, Error>>();
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let (receive, done, shared) =
                    (Arc::clone(&receive), done_send.clone(), Arc::clone(shared));
                std::thread::spawn(move || {
                    loop {
                        let next = receive.lock().expect("the queue").recv();
                        let Ok((begun, mut slot)) = next else { break };
                        let served = serve_blocking(&shared, &mut slot).map(|()| begun.elapsed());
                        let _ = done.send(served);
                    }
                })
            })
            .collect();
        for slot in pool {
            send.send((Instant::now(), slot)).expect("the workers run");
        }
        drop(send);
        let latencies = (0..requests)
            .map(|_| done_receive.recv().expect("a result"))
            .collect::<Result<Vec<_>, _>>()?;
        let total = start.elapsed();
        for w in workers {
            w.join().expect("a worker");
        }
        let pool_rate = report("thread pool", total, latencies);
        println!(
            "  round {round}: async {:.2}x spawn_blocking, {:.2}x the thread pool",
            async_rate / blocking_rate,
            async_rate / pool_rate
        );
        results.push(async_rate / blocking_rate);
    }
    results.sort_by(f64::total_cmp);
    println!(
        "median of {rounds} rounds: async throughput {:.2}x spawn_blocking",
        results[results.len() / 2]
    );
    Ok(())
}
