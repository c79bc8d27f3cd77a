//! Completion as a future: a point in a stream's work that async code can `.await`.
//!
//! A [`Completion`] is made right after the work it stands for is queued (a launch, a copy, a
//! plan's replay, or "everything queued so far"). How it learns that the GPU is there is a
//! [`Wakeup`]:
//!
//! - [`Wakeup::Notifier`] (the default): an event recorded after the work, watched by one
//!   thread of the process (started with the first completion; never one per stream or per
//!   launch). While completions are pending it queries the oldest event of each stream
//!   (`cuEventQuery`, about a tenth of a microsecond), yielding between rounds and backing off
//!   to short sleeps once nothing has finished for 200 us; with none pending it sleeps on a
//!   condition variable. It then stores the result, keeps the event for a later completion of
//!   the same context, and wakes the task.
//! - [`Wakeup::StreamCallback`]: the driver's stream callback (`cuStreamAddCallback`), on a
//!   thread of the driver's: no thread of ours, but the stream waits for the callback, and the
//!   driver's thread wakes late (measured below).
//!
//! Measured on an H100 (`examples/async_service.rs`, docs/BENCHMARKS.md): 1,000 requests of
//! two kernels and a copy back, at once on 4 tokio worker threads, ran at 1.82x the throughput
//! of `spawn_blocking` through the notifier (1.71x in a second run; 1.59x with cudarc's event
//! tracking off) and 1.20x through the stream callback; one request at a time took 1.23x a bare
//! synchronize's p50 through the notifier (6.8 us more, where one thread waking another that
//! sleeps took 6.3 us on the same machine: the cost of not spinning) and 4.0x through the
//! stream callback: the notifier is the default. Either way nothing spins on the caller's
//! thread and no async runtime is a dependency: the future is std's, woken through std's
//! `Waker`, so it runs under tokio, smol, async-std or a plain `block_on`.
//!
//! A completion borrows what its work uses for `'a` (a launch's outputs mutably), so nothing
//! can touch that memory from the host until the GPU is done. Dropping it before it resolves
//! waits for the GPU in `Drop` (a borrow cannot outlive its owner, so it is held until the
//! work is done; like `std::thread::scope`, whose scope waits for its threads).

use std::collections::VecDeque;
use std::future::Future;
use std::marker::PhantomData;
use std::panic::Location;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use cudarc::driver::{
    CudaContext, CudaStream, DevicePtr, DeviceRepr, DriverError, PinnedHostSlice, ValidAsZeroBits,
    sys,
};

use crate::Error;
use crate::driver::result;

/// What the callback and the future share: the stream's status once it reached the callback,
/// and the waker of the task that polled last.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    reached: Condvar,
}

#[derive(Default)]
struct State {
    status: Option<sys::CUresult>,
    waker: Option<Waker>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Shared {
    /// Stores the stream's `status` at the completion and wakes the task that polled last.
    fn resolve(&self, status: sys::CUresult) {
        let waker = {
            let mut state = self.lock();
            state.status = Some(status);
            state.waker.take()
        };
        self.reached.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The driver's call once the stream reaches the completion ([`Wakeup::StreamCallback`]).
/// It makes no driver call (a stream callback must not).
unsafe extern "C" fn reached(
    _stream: sys::CUstream,
    status: sys::CUresult,
    data: *mut std::ffi::c_void,
) {
    // SAFETY: `data` is the `Arc<Shared>` `Completion::on` leaked for this call, once.
    let shared = unsafe { Arc::from_raw(data as *const Shared) };
    shared.resolve(status);
}

/// How completions learn that the GPU has reached them ([`Completion::set_wakeup`]). Either
/// way nothing spins on the caller's thread, and a failed stream resolves them with its error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wakeup {
    /// The default: an event recorded after the work, watched by one thread of the process
    /// (started with the first completion; never one per stream or per launch), which keeps
    /// finished events for the next completions of their context (up to 1024 per context), so
    /// that a completion costs the submitting thread one `cuEventRecord`. While
    /// completions are pending it queries the oldest event of each stream (`cuEventQuery`),
    /// yielding between rounds and sleeping 50 us between them once nothing has finished for
    /// 200 us; with none pending it stays awake 500 us more (yielding), then sleeps until one
    /// is made.
    Notifier,
    /// The driver's stream callback (`cuStreamAddCallback`), on a thread of the driver's: no
    /// thread of ours, but the stream waits for each callback and the driver's thread wakes
    /// late (docs/BENCHMARKS.md).
    StreamCallback,
}

static WAKEUP: AtomicU8 = AtomicU8::new(0);

/// A completion the notifier watches: its event, what it resolves, and the context the event
/// belongs to (kept alive until the event is destroyed).
struct Watched {
    event: sys::CUevent,
    shared: Arc<Shared>,
    ctx: Arc<CudaContext>,
}

// SAFETY: an event handle is a plain driver handle, usable from any thread.
unsafe impl Send for Watched {}

/// The notifier's queues: per stream (by handle), its pending completions in the order they
/// were recorded, which is the order they finish in.
#[derive(Default)]
struct Queues {
    streams: Vec<(usize, VecDeque<Watched>)>,
    pending: usize,
    /// When the last completion was made: the notifier polls eagerly for 200 us after it.
    last_push: Option<Instant>,
}

/// How long the notifier stays awake (yielding) after its last completion before it sleeps.
const LINGER: Duration = Duration::from_micros(500);

/// How many finished events the notifier keeps per context for the next completions.
const POOLED: usize = 1024;

/// Events of finished completions, kept for the next completions of their context: creating
/// and destroying one per completion would be two more driver calls per request, made by the
/// threads that submit work. Keyed by the context they belong to, which they do not keep
/// alive: a pooled event of a context that is gone is never used again (its context took it).
#[derive(Default)]
struct EventPool {
    contexts: Vec<(Weak<CudaContext>, Vec<sys::CUevent>)>,
}

// SAFETY: event handles are plain driver handles, usable from any thread.
unsafe impl Send for EventPool {}

impl EventPool {
    /// Where `ctx`'s events are kept, if any are.
    fn index(&self, ctx: &Arc<CudaContext>) -> Option<usize> {
        self.contexts
            .iter()
            .position(|(c, _)| std::ptr::eq(c.as_ptr(), Arc::as_ptr(ctx)))
    }

    /// A pooled event of `ctx`, if one is kept.
    fn take(&mut self, ctx: &Arc<CudaContext>) -> Option<sys::CUevent> {
        let index = self.index(ctx)?;
        self.contexts[index].1.pop()
    }

    /// Keeps a finished completion's event of `ctx` (`false`: the pool is full).
    fn keep(&mut self, ctx: &Arc<CudaContext>, event: sys::CUevent) -> bool {
        // Contexts that are gone leave the pool with their events.
        self.contexts.retain(|(c, _)| c.strong_count() > 0);
        let index = match self.index(ctx) {
            Some(index) => index,
            None => {
                self.contexts.push((Arc::downgrade(ctx), Vec::new()));
                self.contexts.len() - 1
            }
        };
        let events = &mut self.contexts[index].1;
        if events.len() >= POOLED {
            return false;
        }
        events.push(event);
        true
    }
}

/// The one thread that watches events for every stream of the process.
struct Notifier {
    queues: Mutex<Queues>,
    work: Condvar,
    pool: Mutex<EventPool>,
}

impl Notifier {
    /// The process's notifier, its thread started on first use.
    fn get() -> Result<&'static Notifier, Error> {
        static NOTIFIER: OnceLock<Result<&'static Notifier, String>> = OnceLock::new();
        NOTIFIER
            .get_or_init(|| {
                let notifier: &'static Notifier = Box::leak(Box::new(Notifier {
                    queues: Mutex::new(Queues::default()),
                    work: Condvar::new(),
                    pool: Mutex::new(EventPool::default()),
                }));
                std::thread::Builder::new()
                    .name("cuda-kernel-notifier".into())
                    .spawn(move || notifier.watch())
                    .map(|_| notifier)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .copied()
            .map_err(|_| Error::Unsupported("the completion notifier's thread could not start"))
    }

    fn push(&self, stream: usize, watched: Watched) {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        match queues.streams.iter_mut().find(|(s, _)| *s == stream) {
            Some((_, queue)) => queue.push_back(watched),
            None => queues.streams.push((stream, VecDeque::from([watched]))),
        }
        queues.pending += 1;
        queues.last_push = Some(Instant::now());
        if queues.pending == 1 {
            self.work.notify_one();
        }
    }

    /// Queries the oldest completions of each stream until none is pending, then sleeps until
    /// one is. The driver is asked without the queues' lock held, so that threads making
    /// completions never wait for a round of queries.
    fn watch(&self) {
        // Reused round after round: the pending heads of each stream, flat, and how many of
        // each stream's finished.
        let mut heads: Vec<(usize, usize)> = Vec::new();
        let mut events: Vec<sys::CUevent> = Vec::new();
        let mut finished: Vec<(usize, usize, sys::CUresult)> = Vec::new();
        let mut done: Vec<(Watched, sys::CUresult)> = Vec::new();
        let mut last_progress = Instant::now();
        loop {
            // The pending events, stream by stream, in order (only this thread removes any).
            {
                let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
                if queues.pending == 0 {
                    // Lingers awake a little after the last completion (a service's next
                    // request is usually close), then sleeps until one is made.
                    if last_progress.elapsed() < LINGER {
                        drop(queues);
                        std::thread::yield_now();
                        continue;
                    }
                    while queues.pending == 0 {
                        queues = self
                            .work
                            .wait(queues)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                    last_progress = Instant::now();
                }
                if let Some(pushed) = queues.last_push {
                    last_progress = last_progress.max(pushed);
                }
                heads.clear();
                events.clear();
                for (stream, queue) in &queues.streams {
                    let before = events.len();
                    events.extend(queue.iter().take(8).map(|w| w.event));
                    heads.push((*stream, events.len() - before));
                }
            }
            // Each stream's finished prefix: its completions end in the order they were made.
            finished.clear();
            let mut at = 0;
            for &(stream, count) in &heads {
                let mut ended = 0;
                let mut last = sys::CUresult::CUDA_SUCCESS;
                for &event in &events[at..at + count] {
                    let status = result::event_query(event);
                    if status == sys::CUresult::CUDA_ERROR_NOT_READY {
                        break;
                    }
                    ended += 1;
                    last = status;
                    if status != sys::CUresult::CUDA_SUCCESS {
                        // A failed stream fails every later completion alike.
                        break;
                    }
                }
                if ended > 0 {
                    finished.push((stream, ended, last));
                }
                at += count;
            }
            if finished.is_empty() {
                // Nothing finished: yield while work is recent, then sleep a little, so a long
                // kernel does not keep a core busy.
                if last_progress.elapsed() < Duration::from_micros(200) {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(Duration::from_micros(50));
                }
                continue;
            }
            {
                let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
                for &(stream, ended, last) in &finished {
                    if let Some((_, queue)) = queues.streams.iter_mut().find(|(s, _)| *s == stream)
                    {
                        for i in 0..ended {
                            if let Some(watched) = queue.pop_front() {
                                let status = if i + 1 == ended {
                                    last
                                } else {
                                    sys::CUresult::CUDA_SUCCESS
                                };
                                done.push((watched, status));
                            }
                        }
                    }
                }
                queues.streams.retain(|(_, queue)| !queue.is_empty());
                queues.pending -= done.len();
            }
            last_progress = Instant::now();
            {
                let mut pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
                for (watched, _) in &done {
                    if !pool.keep(&watched.ctx, watched.event) {
                        result::event_destroy(watched.event);
                    }
                }
            }
            for (watched, status) in done.drain(..) {
                watched.shared.resolve(status);
            }
        }
    }
}

/// What a completion stands for, for its error.
#[derive(Debug)]
enum What {
    /// A plan's replay (its description), at this call site.
    Replay(String, &'static Location<'static>),
    /// A copy or the stream's work, at this call site.
    Work(&'static str, &'static Location<'static>),
}

/// The end of some work queued on a stream, as a future: it resolves once the GPU has done it,
/// to `Ok(())`, or to the error that stopped the stream (a kernel that faulted, a sticky
/// context error) as the synchronous path reports it: an [`Error::Launch`] naming the launch
/// (or replay) and its line, with `on_device` set.
///
/// It borrows what the work uses for `'a`: [`after`](Self::after) holds a launch's outputs
/// mutably until the GPU has written them, so reading them after
/// `.await` needs no synchronize. Dropped before it resolves, it waits for the GPU in `Drop`.
///
/// ```no_run
/// # async fn f(stream: std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>) -> Result<(), cuda_kernel::Error> {
/// // ... launches queued on `stream` ...
/// cuda_kernel::Completion::of_stream(&stream)?.await?;
/// # Ok(()) }
/// ```
#[must_use = "a completion does nothing unless awaited (dropping it waits for the GPU)"]
#[derive(Debug)]
pub struct Completion<'a> {
    shared: Arc<Shared>,
    what: What,
    wakeup: Wakeup,
    resolved: bool,
    _borrows: PhantomData<&'a mut ()>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("status", &self.lock().status)
            .finish()
    }
}

impl Completion<'static> {
    /// Everything queued on `stream` so far, as a future: what `stream.synchronize()` waits
    /// for, without blocking a thread.
    ///
    /// ```no_run
    /// # fn f(stream: std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>) -> Result<(), cuda_kernel::Error> {
    /// let done = cuda_kernel::Completion::of_stream(&stream)?;
    /// // in async code: done.await?; in blocking code:
    /// done.wait()?;
    /// # Ok(()) }
    /// ```
    #[track_caller]
    pub fn of_stream(stream: &CudaStream) -> Result<Completion<'static>, Error> {
        Completion::on(stream, What::Work("the stream's work", Location::caller()))
    }
}

impl<'a> Completion<'a> {
    /// The work `queue` puts on `stream` (launches, copies, anything queued there), as a
    /// future that holds every borrow `queue` captured until the GPU has done it: a launch's
    /// outputs stay mutably borrowed, so reading them after `.await` needs no synchronize.
    ///
    /// `queue` runs at once, on the calling thread; its error (a refused launch, named as the
    /// launch names it) is returned without a completion. Works for any launcher, a chain of
    /// them, and cudarc's own calls alike:
    ///
    /// ```no_run
    /// # use cuda_kernel::{Completion, Config, kernel};
    /// # use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream};
    /// #[kernel]
    /// unsafe extern "C" {
    ///     fn scale(x: *mut f32, a: f32, n: u32);
    /// }
    /// # async fn f(k: &Scale, stream: &CudaStream, x: &mut CudaSlice<f32>) -> Result<(), cuda_kernel::Error> {
    /// let n = x.len() as u32;
    /// // SAFETY: `scale` writes x[i] for i < n, the slice's length.
    /// let done = Completion::after(stream, || unsafe {
    ///     k.launch(stream, Config::for_elements(n, 256), x, 2.0, n)
    /// })?;
    /// // `x` is borrowed by `done` until here:
    /// done.await?;
    /// # Ok(()) }
    /// ```
    #[track_caller]
    pub fn after<F>(stream: &CudaStream, queue: F) -> Result<Completion<'a>, Error>
    where
        F: FnOnce() -> Result<(), Error> + 'a,
    {
        let location = Location::caller();
        queue()?;
        Completion::on(stream, What::Work("the work queued", location))
    }

    /// The end of a plan's replay just queued on `stream`.
    pub(crate) fn after_replay(
        stream: &CudaStream,
        plan: String,
        location: &'static Location<'static>,
    ) -> Result<Completion<'a>, Error> {
        Completion::on(stream, What::Replay(plan, location))
    }

    /// The end of a copy just queued on `stream`.
    pub(crate) fn after_copy(
        stream: &CudaStream,
        location: &'static Location<'static>,
    ) -> Result<Completion<'a>, Error> {
        Completion::on(stream, What::Work("a device-to-host copy", location))
    }

    fn on(stream: &CudaStream, what: What) -> Result<Completion<'a>, Error> {
        crate::driver::require()?;
        let shared = Arc::new(Shared::default());
        let wakeup = Completion::wakeup();
        match wakeup {
            Wakeup::Notifier => {
                let notifier = Notifier::get()?;
                let ctx = stream.context();
                let _entered = result::enter(ctx)?;
                let pooled = notifier
                    .pool
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take(ctx);
                let event = match pooled {
                    Some(event) => event,
                    None => result::event_create()?,
                };
                if let Err(e) = result::event_record(event, stream.cu_stream()) {
                    result::event_destroy(event);
                    return Err(e);
                }
                let watched = Watched {
                    event,
                    shared: Arc::clone(&shared),
                    ctx: Arc::clone(ctx),
                };
                notifier.push(stream.cu_stream() as usize, watched);
            }
            Wakeup::StreamCallback => {
                let _entered = crate::launch::enter(stream)?;
                let data = Arc::into_raw(Arc::clone(&shared)) as *mut std::ffi::c_void;
                // SAFETY: `reached` takes back the Arc leaked as `data`, once, when the driver
                // calls it.
                let added =
                    unsafe { result::stream_add_callback(stream.cu_stream(), reached, data) };
                if let Err(e) = added {
                    // The driver will not call back: the leaked reference is ours to drop.
                    // SAFETY: `data` came from `Arc::into_raw` above and was not handed over.
                    drop(unsafe { Arc::from_raw(data as *const Shared) });
                    return Err(e);
                }
            }
        }
        Ok(Completion {
            shared,
            what,
            wakeup,
            resolved: false,
            _borrows: PhantomData,
        })
    }

    /// How completions made from now on learn that the GPU is done (process-wide; the default
    /// is [`Wakeup::Notifier`]). For measuring the two, as `examples/async_service.rs` does.
    ///
    /// ```
    /// use cuda_kernel::{Completion, Wakeup};
    /// Completion::set_wakeup(Wakeup::StreamCallback);
    /// assert_eq!(Completion::wakeup(), Wakeup::StreamCallback);
    /// Completion::set_wakeup(Wakeup::Notifier);
    /// ```
    pub fn set_wakeup(wakeup: Wakeup) {
        WAKEUP.store(wakeup as u8, Ordering::Relaxed);
    }

    /// How completions learn that the GPU is done ([`set_wakeup`](Self::set_wakeup)).
    pub fn wakeup() -> Wakeup {
        match WAKEUP.load(Ordering::Relaxed) {
            0 => Wakeup::Notifier,
            _ => Wakeup::StreamCallback,
        }
    }

    /// Whether the GPU has done the work (the future would resolve now).
    pub fn is_done(&self) -> bool {
        self.shared.lock().status.is_some()
    }

    /// Blocks the calling thread until the GPU has done the work: for synchronous code holding
    /// a completion.
    pub fn wait(mut self) -> Result<(), Error> {
        let status = self.block();
        self.resolved = true;
        self.result(status)
    }

    /// Waits for the callback, returning the status it stored.
    fn block(&self) -> sys::CUresult {
        let mut state = self.shared.lock();
        loop {
            if let Some(status) = state.status {
                return status;
            }
            state = self
                .shared
                .reached
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The status as the synchronous path reports it.
    fn result(&self, status: sys::CUresult) -> Result<(), Error> {
        if status == sys::CUresult::CUDA_SUCCESS {
            return Ok(());
        }
        // The call that saw the stream's error: the notifier's query, or the driver's callback.
        let call = match self.wakeup {
            Wakeup::Notifier => "cuEventQuery",
            Wakeup::StreamCallback => "cuStreamAddCallback",
        };
        let error = Error::Driver {
            call,
            source: DriverError(status),
        };
        let site = |location| crate::launch::Site::new(location, &[]);
        Err(match &self.what {
            What::Replay(plan, location) => {
                crate::launch::observe::replay_failed(plan, &site(location), None, true, error)
            }
            What::Work(what, location) => {
                crate::launch::observe::failed(what, &site(location), None, true, error)
            }
        })
    }
}

impl Future for Completion<'_> {
    type Output = Result<(), Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let status = {
            let mut state = self.shared.lock();
            match state.status {
                Some(status) => status,
                None => {
                    match &state.waker {
                        Some(waker) if waker.will_wake(cx.waker()) => {}
                        _ => state.waker = Some(cx.waker().clone()),
                    }
                    return Poll::Pending;
                }
            }
        };
        self.resolved = true;
        Poll::Ready(self.result(status))
    }
}

impl Drop for Completion<'_> {
    fn drop(&mut self) {
        if !self.resolved {
            // The borrows end here: the GPU must be done with them first.
            self.block();
        }
    }
}

/// Queues a copy of `src` into `staging` (page-locked host memory, which the copy needs to be
/// asynchronous) on `stream`, and returns its completion: once it resolves, `staging` holds the
/// data (`staging.as_slice()` returns at once). Both stay borrowed until then.
///
/// ```no_run
/// # async fn f(stream: std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>, y: cuda_kernel::cudarc::driver::CudaSlice<f32>) -> Result<(), Box<dyn std::error::Error>> {
/// // Page-locked memory, allocated once and reused (0: not write-combined, for reading).
/// let mut staging = unsafe { stream.context().alloc_pinned_with_flags::<f32>(y.len(), 0)? };
/// cuda_kernel::copy_to_host(&stream, &y, &mut staging)?.await?;
/// let host: &[f32] = staging.as_slice()?;
/// # Ok(()) }
/// ```
#[track_caller]
pub fn copy_to_host<'a, T, Src>(
    stream: &Arc<CudaStream>,
    src: &'a Src,
    staging: &'a mut PinnedHostSlice<T>,
) -> Result<Completion<'a>, Error>
where
    T: DeviceRepr,
    Src: DevicePtr<T>,
{
    if staging.len() < src.len() {
        return Err(Error::Unsupported(
            "copy_to_host: the staging buffer is shorter than the device memory copied",
        ));
    }
    let location = Location::caller();
    crate::driver::require()?;
    stream
        .memcpy_dtoh(src, staging)
        .map_err(|source| Error::Driver {
            call: "cuMemcpyDtoHAsync",
            source,
        })?;
    Completion::after_copy(stream, location)
}

/// [`copy_to_host`] into page-locked memory of its own, as a future resolving to the data in a
/// `Vec`. Each call allocates the staging memory (`cuMemHostAlloc`, tens of microseconds and
/// more for large copies): a service copying often reuses a buffer with [`copy_to_host`].
///
/// ```no_run
/// # async fn f(stream: std::sync::Arc<cuda_kernel::cudarc::driver::CudaStream>, y: cuda_kernel::cudarc::driver::CudaSlice<f32>) -> Result<(), cuda_kernel::Error> {
/// let host: Vec<f32> = cuda_kernel::copy_to_vec(&stream, &y)?.await?;
/// # Ok(()) }
/// ```
#[track_caller]
pub fn copy_to_vec<'a, T, Src>(
    stream: &Arc<CudaStream>,
    src: &'a Src,
) -> Result<HostCopy<'a, T>, Error>
where
    T: DeviceRepr + ValidAsZeroBits,
    Src: DevicePtr<T>,
{
    let location = Location::caller();
    crate::driver::require()?;
    // SAFETY: the memory is written by the copy before it is read (after the completion).
    let mut staging = unsafe { stream.context().alloc_pinned_with_flags::<T>(src.len(), 0) }
        .map_err(|source| Error::Driver {
            call: "cuMemHostAlloc",
            source,
        })?;
    stream
        .memcpy_dtoh(src, &mut staging)
        .map_err(|source| Error::Driver {
            call: "cuMemcpyDtoHAsync",
            source,
        })?;
    let done = Completion::after_copy(stream, location)?;
    Ok(HostCopy {
        done,
        staging: Some(staging),
    })
}

/// A device-to-host copy into page-locked memory of its own, resolving to the data
/// ([`copy_to_vec`]). Dropped before it resolves, it waits for the copy.
#[must_use = "a copy's future does nothing unless awaited (dropping it waits for the GPU)"]
#[derive(Debug)]
pub struct HostCopy<'a, T> {
    done: Completion<'a>,
    staging: Option<PinnedHostSlice<T>>,
}

impl<T: ValidAsZeroBits + Clone> Future for HostCopy<'_, T> {
    type Output = Result<Vec<T>, Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        match Pin::new(&mut this.done).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Ready(Ok(())) => {
                let staging = this.staging.take().expect("a HostCopy resolves once");
                // The copy is done: `as_slice` finds its event complete and returns at once.
                let data = staging
                    .as_slice()
                    .map(<[T]>::to_vec)
                    .map_err(|source| Error::Driver {
                        call: "cuEventSynchronize",
                        source,
                    });
                Poll::Ready(data)
            }
        }
    }
}

// The futures hold no self-references.
impl<T> Unpin for HostCopy<'_, T> {}
