//! cuda-kernel inside an application that owns its contexts (Programming Guide §3.3.1 to
//! §3.3.4): the caller's current context survives every kind of call, a refused PTX says what
//! the JIT said, memory from the CUDA runtime launches as a typed argument, memory of another
//! context is refused, and the runtime and cuda-kernel share device 0's primary context.

use std::ffi::c_void;
use std::sync::Arc;

use cuda_kernel::cudarc::driver::result as cu;
use cuda_kernel::cudarc::driver::{CudaContext, sys};
use cuda_kernel::{Config, DeviceMemory, Error, Library, Plan};
use kernels::{FirKernels, MultiGpuKernels, PlanKernels, VECTOR_ADD_PTX, VectorAdd};

mod support;

fn current() -> sys::CUcontext {
    cu::ctx::get_current()
        .unwrap()
        .unwrap_or(std::ptr::null_mut())
}

/// An application's own context on device 0 (not the primary one), made current.
fn own_context() -> Arc<CudaContext> {
    let own = CudaContext::new_non_primary(0, 0).expect("a context of our own");
    unsafe { cu::ctx::set_current(own.cu_ctx()) }.unwrap();
    own
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_callers_context_survives_every_kind_of_call() {
    let ctx = cuda_kernel::driver::context(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let own = own_context();
    let mine = own.cu_ctx();
    assert_ne!(mine, ctx.cu_ctx());
    let kept = |what: &str| assert_eq!(current(), mine, "{what} changed the current context");
    // cudarc's own calls (allocations, copies) bind their context and leave it: the application
    // makes its own current again after them, before each call of cuda-kernel's under test.
    let mine_again = || unsafe { cu::ctx::set_current(mine) }.unwrap();

    let again = cuda_kernel::driver::context(0).unwrap();
    kept("driver::context");
    assert_eq!(again.cu_ctx(), ctx.cu_ctx());
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX).unwrap();
    kept("load_ptx");
    let add = VectorAdd::load(&module).unwrap();
    kept("Kernel::load");
    let n = 4096;
    let a = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let b = stream.clone_htod(&vec![2.0f32; n]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n).unwrap();
    mine_again();
    unsafe {
        add.launch(
            &stream,
            Config::for_elements(n as u32, 256),
            &a,
            &b,
            &mut c,
            n as u32,
        )
    }
    .unwrap();
    kept("a typed launch");

    let fir = FirKernels::load(&ctx).unwrap();
    kept("a module type's load");
    fir.calls.write(&stream, &7).unwrap();
    kept("DeviceGlobal::write");
    assert_eq!(fir.calls.read(&stream).unwrap(), 7);
    kept("DeviceGlobal::read");

    let plans = PlanKernels::load(&ctx).unwrap();
    let mut x = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let mut y = stream.alloc_zeros::<f32>(n).unwrap();
    mine_again();
    {
        let mut plan = Plan::new(&stream).unwrap();
        kept("Plan::new");
        let (xr, yw) = (plan.input(&x), plan.output(&mut y));
        let config = Config::for_elements(n as u32, 256);
        unsafe { plan.record(&plans.chain_step, config, (xr, yw, n as u32)) }.unwrap();
        kept("Plan::record");
        plan.replay(&stream).unwrap();
        kept("Plan::replay");
    }
    kept("dropping a plan");

    let library = Library::load_ptx(kernels::MULTI_GPU_PTX).unwrap();
    kept("Library::load_ptx");
    let fill = kernels::FillF32::load_library(&library).unwrap();
    kept("load_library");
    unsafe { fill.launch(&stream, Config::for_elements(n as u32, 256), &mut x, 5.0, n) }.unwrap();
    kept("a library launch");
    // Kept alive: dropping a module is cudarc's `CudaModule::drop`, which binds its context.
    let _multi = MultiGpuKernels::load(&ctx).unwrap();
    kept("another module type");

    assert!(stream.clone_dtoh(&c).unwrap().iter().all(|&v| v == 3.0));
    assert!(stream.clone_dtoh(&y).unwrap().iter().all(|&v| v == 2.0));
    assert!(stream.clone_dtoh(&x).unwrap().iter().all(|&v| v == 5.0));
    unsafe { cu::ctx::set_current(ctx.cu_ctx()) }.unwrap();
    drop(own);
}

/// The ways a launch treats the thread's context. On a stream of its own, with a CUDA 13
/// driver and no event tracking for cudarc to manage, it asks nothing of the thread: it runs
/// with no context current and leaves none, and with another one current leaves that. On the
/// null stream, and where cudarc's event tracking is on (its borrow guards bind the context),
/// it pushes the stream's context over the caller's and pops it after. Each launch computes.
/// The context is one of the test's own, so that switching its event tracking off touches no
/// other test.
#[test]
#[ignore = "needs a CUDA GPU"]
fn launches_leave_the_threads_context_as_they_found_it_on_every_kind_of_stream() {
    let ctx = CudaContext::new_non_primary(0, 0).unwrap();
    unsafe { cu::ctx::set_current(ctx.cu_ctx()) }.unwrap();
    // SAFETY: the test's own context; no other thread uses it.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let null = ctx.default_stream();
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX).unwrap();
    let add = VectorAdd::load(&module).unwrap();
    let n = 1000;
    let a = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let b = stream.clone_htod(&vec![2.0f32; n]).unwrap();
    let mut outs: Vec<_> = (0..4)
        .map(|_| stream.alloc_zeros::<f32>(n).unwrap())
        .collect();
    stream.synchronize().unwrap();
    let config = Config::for_elements(n as u32, 128);
    let version = cuda_kernel::driver::version().unwrap();
    let launch = |on: &cuda_kernel::cudarc::driver::CudaStream, c: &mut _| {
        unsafe { add.launch(on, config, &a, &b, c, n as u32) }.unwrap()
    };
    let own = CudaContext::new_non_primary(0, 0).unwrap();
    let mine = own.cu_ctx();

    // A stream of its own, no context current: on a 13.0 driver neither entering nor the
    // launch makes one current.
    // (Creating a context pushed it: the thread's stack is emptied, not only its top.)
    while !current().is_null() {
        let mut popped = std::ptr::null_mut();
        assert_eq!(
            unsafe { sys::cuCtxPopCurrent_v2(&mut popped) },
            sys::CUresult::CUDA_SUCCESS
        );
    }
    let entered = cuda_kernel::__private::enter(&stream).unwrap();
    if version >= 13_000 {
        assert!(current().is_null(), "entering made a context current");
    }
    drop(entered);
    launch(&stream, &mut outs[0]);
    let after = current();
    if version >= 13_000 {
        assert!(
            after.is_null(),
            "a launch on a stream made {after:?} current"
        );
    } else {
        assert_eq!(
            after,
            ctx.cu_ctx(),
            "a thread with none is given the stream's"
        );
    }
    // A stream of its own and the null stream, another context current.
    unsafe { cu::ctx::set_current(mine) }.unwrap();
    launch(&stream, &mut outs[1]);
    assert_eq!(
        current(),
        mine,
        "a launch on a stream changed the current context"
    );
    launch(&null, &mut outs[2]);
    assert_eq!(
        current(),
        mine,
        "a launch on the null stream changed the current context"
    );
    // Event tracking on: cudarc's guards bind the context, so the launch pushes it first.
    unsafe { cu::ctx::set_current(ctx.cu_ctx()) }.unwrap();
    // SAFETY: as above.
    unsafe { ctx.enable_event_tracking() };
    assert!(ctx.is_managing_stream_synchronization());
    let mut tracked = stream.alloc_zeros::<f32>(n).unwrap();
    stream.synchronize().unwrap();
    unsafe { cu::ctx::set_current(mine) }.unwrap();
    launch(&stream, &mut tracked);
    assert_eq!(
        current(),
        mine,
        "a tracked launch changed the current context"
    );

    unsafe { cu::ctx::set_current(ctx.cu_ctx()) }.unwrap();
    null.synchronize().unwrap();
    for out in outs.iter().take(3).chain([&tracked]) {
        assert!(stream.clone_dtoh(out).unwrap().iter().all(|&v| v == 3.0));
    }
    drop(own);
    unsafe { cu::ctx::set_current(ctx.cu_ctx()) }.unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_refused_ptx_carries_the_jits_reason() {
    let (ctx, _stream) = support::gpu();
    // A valid header, then an instruction on an undeclared register at line 9.
    let ptx = ".version 8.0\n.target sm_75\n.address_size 64\n\n.visible .entry broken(\n    .param .u32 n\n)\n{\n    add.u32 %r1, %r2, 1;\n    ret;\n}\n";
    let err = cuda_kernel::driver::load_ptx(&ctx, ptx).unwrap_err();
    let text = err.to_string();
    let Error::Jit { log, .. } = &err else {
        panic!("not a JIT error: {text}");
    };
    assert!(log.contains("line 9") || log.contains("%r"), "{text}");
    assert!(text.contains("the JIT says"), "{text}");
    eprintln!("module: {text}");
    // A library compiles lazily: its load succeeds and the JIT's refusal comes at the kernel's
    // lookup, with the same log.
    #[cuda_kernel::kernel]
    unsafe extern "C" {
        fn broken(n: u32);
    }
    let err = match Library::load_ptx(ptx) {
        Err(err) => err,
        Ok(library) => match Broken::load_library(&library) {
            Err(err) => err,
            Ok(broken) => {
                unsafe { broken.launch(&_stream, Config::for_elements(1, 1), 1) }.unwrap_err()
            }
        },
    };
    let text = err.to_string();
    // (At the launch, within an `Error::Launch` naming it.)
    assert!(matches!(err.root(), Error::Jit { .. }), "{text}");
    assert!(text.contains("the JIT says"), "{text}");
    eprintln!("library: {text}");
}

/// libcudart from the toolkit (LD_LIBRARY_PATH on the GPU machine), for the runtime API.
struct Runtime {
    lib: libloading::Library,
}

impl Runtime {
    fn load() -> Runtime {
        let lib = ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]
            .iter()
            .find_map(|name| unsafe { libloading::Library::new(name) }.ok())
            .expect("libcudart (put the toolkit's lib64 on LD_LIBRARY_PATH)");
        Runtime { lib }
    }

    fn call<F: Copy>(&self, name: &[u8]) -> F {
        *unsafe { self.lib.get::<F>(name) }.expect("a runtime entry point")
    }

    fn malloc(&self, bytes: usize) -> u64 {
        let f: unsafe extern "C" fn(*mut *mut c_void, usize) -> i32 = self.call(b"cudaMalloc\0");
        let mut ptr = std::ptr::null_mut();
        assert_eq!(unsafe { f(&mut ptr, bytes) }, 0, "cudaMalloc");
        ptr as u64
    }

    fn copy(&self, dst: *mut c_void, src: *const c_void, bytes: usize, kind: i32) {
        let f: unsafe extern "C" fn(*mut c_void, *const c_void, usize, i32) -> i32 =
            self.call(b"cudaMemcpy\0");
        assert_eq!(unsafe { f(dst, src, bytes, kind) }, 0, "cudaMemcpy");
    }

    fn free(&self, ptr: u64) {
        let f: unsafe extern "C" fn(*mut c_void) -> i32 = self.call(b"cudaFree\0");
        assert_eq!(unsafe { f(ptr as *mut c_void) }, 0, "cudaFree");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn runtime_and_cuda_kernel_share_one_context_and_runtime_memory_launches() {
    // The runtime first, as an application that was there before cuda-kernel.
    let rt = Runtime::load();
    let n = 10_000usize;
    let bytes = n * 4;
    let (pa, pb, pc) = (rt.malloc(bytes), rt.malloc(bytes), rt.malloc(bytes));
    let runtime_context = current();
    assert!(
        !runtime_context.is_null(),
        "the runtime made its context current"
    );

    // cuda-kernel on the same device: the same primary context, one context in all.
    let ctx = cuda_kernel::driver::context(0).unwrap();
    assert_eq!(ctx.cu_ctx(), runtime_context);
    let (mut flags, mut active) = (0u32, 0i32);
    let device = cu::device::get(0).unwrap();
    unsafe { sys::cuDevicePrimaryCtxGetState(device, &mut flags, &mut active) }
        .result()
        .unwrap();
    assert_eq!(active, 1);

    let host_a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let host_b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    rt.copy(pa as *mut c_void, host_a.as_ptr().cast(), bytes, 1);
    rt.copy(pb as *mut c_void, host_b.as_ptr().cast(), bytes, 1);
    let stream = ctx.default_stream();
    let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX).unwrap();
    let add = VectorAdd::load(&module).unwrap();
    let (a, b, mut c) = unsafe {
        (
            DeviceMemory::<f32>::from_raw(pa, n, &ctx),
            DeviceMemory::<f32>::from_raw(pb, n, &ctx),
            DeviceMemory::<f32>::from_raw(pc, n, &ctx),
        )
    };
    unsafe {
        add.launch(
            &stream,
            Config::for_elements(n as u32, 256),
            &a,
            &b,
            &mut c,
            n as u32,
        )
    }
    .unwrap();
    stream.synchronize().unwrap();
    let mut out = vec![0f32; n];
    rt.copy(out.as_mut_ptr().cast(), pc as *const c_void, bytes, 2);
    assert!(out.iter().enumerate().all(|(i, &v)| v == 3.0 * i as f32));

    // The same memory claimed for another context: refused before the driver sees it.
    let other = CudaContext::new_non_primary(0, 0).unwrap();
    unsafe { cu::ctx::set_current(ctx.cu_ctx()) }.unwrap();
    let foreign = unsafe { DeviceMemory::<f32>::from_raw(pc, n, &other) };
    let mut foreign_out = foreign;
    let err = unsafe {
        add.launch(
            &stream,
            Config::for_elements(n as u32, 256),
            &foreign,
            &b,
            &mut foreign_out,
            n as u32,
        )
    }
    .unwrap_err();
    assert!(matches!(err.root(), Error::WrongContext { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("launch of `vector_add` at tests/context.rs:"),
        "{err}"
    );
    assert_eq!(current(), ctx.cu_ctx());
    drop(other);
    unsafe { cu::ctx::set_current(ctx.cu_ctx()) }.unwrap();
    for p in [pa, pb, pc] {
        rt.free(p);
    }
}
