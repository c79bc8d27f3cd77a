//! Completions as futures (`launch_async`, `Completion::of_stream`, `copy_to_host`,
//! `copy_to_vec`, `Plan::replay_async`) under tokio, smol and a std-only `block_on`; many in
//! flight on several streams, dropped midway, and a faulting kernel's error through `.await`
//! (in a child process: a fault spoils the context). Ignored without a GPU.

mod support;

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use cuda_kernel::{Completion, Config, Error, Plan, Wakeup};
use kernels::{PLANS_PTX, PlanKernels};

/// Runs every future to completion on this thread, parking it while none is ready: each
/// future's waker queues its index and unparks the thread (no spinning, no runtime).
fn block_on_all<F: Future + Unpin>(mut futures: Vec<F>) -> Vec<F::Output> {
    struct Ready {
        queue: Mutex<VecDeque<usize>>,
        thread: std::thread::Thread,
    }
    struct One(Arc<Ready>, usize);
    impl Wake for One {
        fn wake(self: Arc<Self>) {
            self.0.queue.lock().unwrap().push_back(self.1);
            self.0.thread.unpark();
        }
    }
    let ready = Arc::new(Ready {
        queue: Mutex::new((0..futures.len()).collect()),
        thread: std::thread::current(),
    });
    let wakers: Vec<Waker> = (0..futures.len())
        .map(|i| Waker::from(Arc::new(One(Arc::clone(&ready), i))))
        .collect();
    let mut out: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    let mut left = futures.len();
    while left > 0 {
        let next = ready.queue.lock().unwrap().pop_front();
        let Some(i) = next else {
            std::thread::park();
            continue;
        };
        if out[i].is_some() {
            continue;
        }
        let mut cx = Context::from_waker(&wakers[i]);
        if let Poll::Ready(v) = Pin::new(&mut futures[i]).poll(&mut cx) {
            out[i] = Some(v);
            left -= 1;
        }
    }
    out.into_iter().map(Option::unwrap).collect()
}

fn block_on<F: Future + Unpin>(f: F) -> F::Output {
    block_on_all(vec![f]).pop().unwrap()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_launch_resolves_after_the_gpu_ran_it_under_three_executors() {
    // Both wakeups; the notifier (the default) last, for the other tests.
    for wakeup in [Wakeup::StreamCallback, Wakeup::Notifier] {
        Completion::set_wakeup(wakeup);
        three_executors();
    }
}

fn three_executors() {
    let (_ctx, stream, module) = support::setup(PLANS_PTX);
    let k = PlanKernels::from_module(&module).unwrap();
    let n = 1 << 20;
    let x = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let config = Config::for_elements(n as u32, 256);
    // A std-only block_on.
    let mut y = stream.alloc_zeros::<f32>(n).unwrap();
    let done = Completion::after(&stream, || unsafe {
        k.tagged_axpy
            .launch(&stream, config, &x, &mut y, 2.0, 1.0, n as u32)
    })
    .unwrap();
    block_on(done).unwrap();
    assert!(stream.clone_dtoh(&y).unwrap().iter().all(|&v| v == 3.0));
    // tokio, with the copy back as a future too.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let host = rt.block_on(async {
        Completion::after(&stream, || unsafe {
            k.tagged_axpy
                .launch(&stream, config, &x, &mut y, 3.0, 2.0, n as u32)
        })?
        .await?;
        cuda_kernel::copy_to_vec(&stream, &y)?.await
    });
    assert!(host.unwrap().iter().all(|&v| v == 5.0));
    // smol, the stream's work so far, and a copy into staging the caller keeps.
    let mut staging = unsafe { stream.context().alloc_pinned_with_flags::<f32>(n, 0) }.unwrap();
    smol::block_on(async {
        unsafe {
            k.tagged_axpy
                .launch(&stream, config, &x, &mut y, 1.0, 6.0, n as u32)
        }?;
        Completion::of_stream(&stream)?.await?;
        cuda_kernel::copy_to_host(&stream, &y, &mut staging)?.await
    })
    .unwrap();
    assert!(staging.as_slice().unwrap().iter().all(|&v| v == 7.0));
    // Blocking code holding a completion.
    let done = Completion::after(&stream, || unsafe {
        k.tagged_axpy
            .launch(&stream, config, &x, &mut y, 1.0, 0.5, n as u32)
    })
    .unwrap();
    done.wait().unwrap();
    assert!(stream.clone_dtoh(&y).unwrap().iter().all(|&v| v == 1.5));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ten_thousand_futures_on_eight_streams_resolve_with_their_results() {
    let (ctx, _stream, module) = support::setup(PLANS_PTX);
    let k = PlanKernels::from_module(&module).unwrap();
    let streams: Vec<_> = (0..8).map(|_| ctx.new_stream().unwrap()).collect();
    let n = 256usize;
    let x = streams[0].clone_htod(&vec![1.0f32; n]).unwrap();
    streams[0].synchronize().unwrap();
    let count = 10_000;
    let mut outputs: Vec<_> = (0..count)
        .map(|i| streams[i % 8].alloc_zeros::<f32>(n).unwrap())
        .collect();
    let config = Config::for_elements(n as u32, 256);
    // Every launch queued first, each future holding its output until it resolves.
    let futures: Vec<Completion<'_>> = outputs
        .iter_mut()
        .enumerate()
        .map(|(i, y)| {
            {
                let (k, stream, x) = (&k, &streams[i % 8], &x);
                Completion::after(stream, move || unsafe {
                    k.tagged_axpy
                        .launch(stream, config, x, y, 2.0, i as f32, n as u32)
                })
            }
            .unwrap()
        })
        .collect();
    let results = block_on_all(futures);
    assert!(results.iter().all(Result::is_ok));
    for (i, y) in outputs.iter().enumerate() {
        let host = streams[i % 8].clone_dtoh(y).unwrap();
        assert!(host.iter().all(|&v| v == 2.0 + i as f32), "output {i}");
    }
    // The same under tokio on 4 worker threads, the futures spawned as tasks.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    let k = Arc::new(k);
    let x = Arc::new(x);
    let streams = Arc::new(streams);
    let checked: usize = rt.block_on(async {
        let mut tasks = Vec::new();
        for i in 0..count {
            let (k, x, streams) = (Arc::clone(&k), Arc::clone(&x), Arc::clone(&streams));
            tasks.push(tokio::spawn(async move {
                let stream = &streams[i % 8];
                let mut y = stream.alloc_zeros::<f32>(n)?;
                Completion::after(stream, || unsafe {
                    k.tagged_axpy
                        .launch(stream, config, &*x, &mut y, 3.0, i as f32, n as u32)
                })?
                .await?;
                let host = cuda_kernel::copy_to_vec(stream, &y)?.await?;
                assert!(host.iter().all(|&v| v == 3.0 + i as f32), "task {i}");
                Ok::<_, Error>(1usize)
            }));
        }
        let mut sum = 0;
        for t in tasks {
            sum += t.await.unwrap().unwrap();
        }
        sum
    });
    assert_eq!(checked, count);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn futures_dropped_midway_wait_for_the_gpu_and_the_rest_resolve() {
    let (_ctx, stream, module) = support::setup(PLANS_PTX);
    let k = PlanKernels::from_module(&module).unwrap();
    let n = 1 << 22;
    let x = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let config = Config::for_elements(n as u32, 256);
    let mut a = stream.alloc_zeros::<f32>(n).unwrap();
    let mut b = stream.alloc_zeros::<f32>(n).unwrap();
    let first = Completion::after(&stream, || unsafe {
        k.tagged_axpy
            .launch(&stream, config, &x, &mut a, 1.0, 1.0, n as u32)
    })
    .unwrap();
    let second = Completion::after(&stream, || unsafe {
        k.tagged_axpy
            .launch(&stream, config, &x, &mut b, 1.0, 2.0, n as u32)
    })
    .unwrap();
    // Polled once (pending or not), then dropped: Drop waits, so `a` is written when the
    // borrow ends.
    let mut first = first;
    let waker = Waker::noop();
    let _ = Pin::new(&mut first).poll(&mut Context::from_waker(waker));
    drop(first);
    assert!(stream.clone_dtoh(&a).unwrap().iter().all(|&v| v == 2.0));
    // Never polled, dropped: the same.
    drop(second);
    assert!(stream.clone_dtoh(&b).unwrap().iter().all(|&v| v == 3.0));
    // A plan's replay as a future, dropped once and awaited once.
    let mut plan = Plan::new(&stream).unwrap();
    let (xr, yw) = (plan.input(&x), plan.output(&mut a));
    unsafe { plan.record(&k.tagged_axpy, config, (xr, yw, 4.0, 0.0, n as u32)) }.unwrap();
    drop(plan.replay_async(&stream).unwrap());
    block_on(plan.replay_async(&stream).unwrap()).unwrap();
    drop(plan);
    assert!(stream.clone_dtoh(&a).unwrap().iter().all(|&v| v == 4.0));
}

/// Runs `fault_child` in a child process (the context is lost after a fault), with the stream
/// callback wakeup or the default.
fn in_child(callback: bool) -> String {
    let mut env = vec![("CUDA_KERNEL_ASYNC_FAULT", "1")];
    if callback {
        env.push(("CUDA_KERNEL_ASYNC_CALLBACK", "1"));
    }
    support::in_child("fault_child", &env)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_faulting_kernel_is_named_through_await() {
    for callback in [false, true] {
        faulting_kernel_named(&in_child(callback));
    }
}

fn faulting_kernel_named(text: &str) {
    assert!(
        text.contains("awaited: `the work queued`, launched at tests/completion.rs:"),
        "{text}"
    );
    assert!(
        text.contains("CUDA_ERROR_ILLEGAL_ADDRESS") || text.contains("CUDA_ERROR_LAUNCH_FAILED"),
        "{text}"
    );
    assert!(text.contains("on device: true"), "{text}");
    let after = text.split("the stream after: ").nth(1).unwrap_or_default();
    assert!(after.contains("CUDA_ERROR_"), "{text}");
}

/// The child of the fault test: does nothing unless `CUDA_KERNEL_ASYNC_FAULT` is set.
#[test]
#[ignore = "needs a CUDA GPU"]
fn fault_child() {
    if std::env::var_os("CUDA_KERNEL_ASYNC_FAULT").is_none() {
        return;
    }
    let (_ctx, stream, module) = support::setup(PLANS_PTX);
    let k = PlanKernels::from_module(&module).unwrap();
    let mut y = stream.alloc_zeros::<f32>(16).unwrap();
    let one = Config::for_elements(1, 1);
    let err = smol::block_on(async {
        Completion::after(&stream, || unsafe {
            k.write_far.launch(&stream, one, &mut y)
        })?
        .await
    })
    .unwrap_err();
    let launch = err.launch().expect("an Error::Launch");
    println!("awaited: {err}");
    println!("on device: {}", launch.failed_on_device());
    // The context is spoilt: the next completion resolves to the sticky error too.
    let next = match Completion::of_stream(&stream) {
        Ok(done) => block_on(done).unwrap_err(),
        Err(e) => e,
    };
    println!("the stream after: {next}");
    std::mem::forget((y, k, module, stream));
}
