//! Launch attributes on a real GPU, each with an effect one can see: the completion event
//! recorded while its kernel still runs, the memory synchronization domain, carveout, L2 window
//! and NVLink-centric scheduling as the driver reports them for a stream launch and for a plan,
//! preferred clusters formed, a plan's device-updatable node updated and replayed, and the
//! refusals before the driver. Ignored without a GPU:
//! `cargo test --release --test attributes -- --ignored` (scripts/device-run.sh).

use std::sync::Arc;
use std::time::{Duration, Instant};

use cuda_kernel::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cuda_kernel::cudarc::driver::{CudaContext, CudaStream, sys};
use cuda_kernel::{
    AccessProperty, AttributeLimits, Config, DeviceMemory, Error, L2Window, MemSyncDomain, Plan,
};
use kernels::*;

mod support;

fn setup() -> (Arc<CudaContext>, Arc<CudaStream>, AttributeKernels) {
    let (ctx, stream) = support::gpu();
    let kernels = AttributeKernels::load(&ctx).expect("attributes.ptx loads");
    (ctx, stream, kernels)
}

/// One `u32` of pinned host memory mapped into the device's address space: what the host
/// writes there, a kernel sees.
struct HostFlag {
    host: *mut u32,
    device: sys::CUdeviceptr,
}

impl HostFlag {
    fn new(ctx: &Arc<CudaContext>) -> HostFlag {
        ctx.bind_to_thread().unwrap();
        // CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP
        let host = unsafe { cuda_kernel::cudarc::driver::result::malloc_host(4, 0x1 | 0x2) }
            .unwrap()
            .cast::<u32>();
        unsafe { host.write_volatile(0) };
        let mut device = 0;
        let status = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host.cast(), 0) };
        assert_eq!(status, sys::CUresult::CUDA_SUCCESS);
        HostFlag { host, device }
    }

    fn set(&self) {
        unsafe { self.host.write_volatile(1) };
    }

    fn view(&self, ctx: &CudaContext) -> DeviceMemory<u32> {
        // SAFETY: 4 bytes of mapped host memory, alive until the flag drops (after the kernel).
        unsafe { DeviceMemory::from_raw(self.device, 1, ctx) }
    }
}

impl Drop for HostFlag {
    fn drop(&mut self) {
        unsafe { cuda_kernel::cudarc::driver::result::free_host(self.host.cast()) }.unwrap();
    }
}

/// A view of all of `x` without cudarc's events (a capture does not allow them) and without
/// its borrow (so that a test can read `x` while a plan holds the view).
///
/// # Safety
/// `x` outlives every launch given the view, and is read only after they have run.
unsafe fn view_of(
    x: &cuda_kernel::cudarc::driver::CudaSlice<f32>,
    stream: &CudaStream,
    ctx: &CudaContext,
) -> DeviceMemory<f32> {
    let address = cuda_kernel::cudarc::driver::DevicePtr::device_ptr(x, stream).0;
    // SAFETY: the caller's; the address and length of a live allocation of `ctx`.
    unsafe { DeviceMemory::from_raw(address, x.len(), ctx) }
}

/// Waits up to 10 s for `done`.
fn within_10_s(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

/// Whether all the work queued on `stream` is done (`cuStreamQuery`).
fn stream_idle(stream: &CudaStream) -> bool {
    let status = unsafe { sys::cuStreamQuery(stream.cu_stream()) };
    assert!(
        matches!(
            status,
            sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_NOT_READY
        ),
        "{status:?}"
    );
    status == sys::CUresult::CUDA_SUCCESS
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_completion_event_is_recorded_while_the_kernel_still_runs() {
    let (ctx, stream, k) = setup();
    let flag = HostFlag::new(&ctx);
    let mut done = stream.alloc_zeros::<u32>(1).unwrap();
    let started = ctx.new_event(None).unwrap(); // timing disabled, as the driver asks
    let blocks = 8;
    let config = Config::new((blocks, 1, 1), (32, 1, 1)).completion_event(&started);
    unsafe {
        k.wait_for_flag
            .launch(&stream, config, &flag.view(&ctx), &mut done)
    }
    .unwrap();
    // Every block has begun (they all fit at once), so the event completes; the kernel is
    // still spinning on the flag, so the stream is not done.
    assert!(
        within_10_s(|| started.is_complete()),
        "the completion event never completed"
    );
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !stream_idle(&stream),
        "the kernel finished without its flag"
    );
    flag.set();
    stream.synchronize().unwrap();
    assert_eq!(stream.clone_dtoh(&done).unwrap(), [blocks]);
    println!(
        "completion event: complete while the kernel ran; {blocks} blocks counted after the flag"
    );
}

/// A programmatic event (triggered as each block begins) completes, and a kernel on another
/// stream that waits for it (`cuStreamWaitEvent`) runs after it. Whether the waiting kernel may
/// start before the first kernel ends is printed: on an H200 with a CUDA 13.0 driver (580) it
/// did not, whether launched plainly or as a programmatic dependent launch (the driver
/// documents the host's view of the event as best effort), so the host lets the first kernel go
/// after 2 s.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_programmatic_event_completes_and_orders_another_streams_kernel() {
    let (ctx, stream, k) = setup();
    let other = ctx.new_stream().unwrap();
    for (how, second) in [
        ("plain", Config::new((1, 1, 1), (1, 1, 1))),
        (
            "programmatic dependent",
            Config::new((1, 1, 1), (1, 1, 1)).programmatic_dependent(),
        ),
    ] {
        let flag = HostFlag::new(&ctx);
        let second_flag = HostFlag::new(&ctx);
        let mut done = stream.alloc_zeros::<u32>(1).unwrap();
        let triggered = ctx.new_event(None).unwrap();
        let config = Config::new((4, 1, 1), (32, 1, 1)).programmatic_event(&triggered, true);
        unsafe {
            k.wait_for_flag
                .launch(&stream, config, &flag.view(&ctx), &mut done)
        }
        .unwrap();
        other.wait(&triggered).unwrap();
        unsafe {
            k.set_flag
                .launch(&other, second, &mut second_flag.view(&ctx))
        }
        .unwrap();
        let start = Instant::now();
        let mut early = false;
        while start.elapsed() < Duration::from_secs(2) {
            if unsafe { second_flag.host.read_volatile() } != 0 {
                early = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        flag.set();
        stream.synchronize().unwrap();
        other.synchronize().unwrap();
        assert!(triggered.is_complete());
        assert_eq!(stream.clone_dtoh(&done).unwrap(), [4]);
        assert_eq!(unsafe { second_flag.host.read_volatile() }, 1);
        println!(
            "programmatic event, the waiting kernel launched {how}: ran before the first kernel ended: {early}"
        );
    }
}

/// A launch's attributes as a node of a graph captured from its stream reports them.
#[test]
#[ignore = "needs a CUDA GPU"]
fn stream_launch_attributes_take_effect_as_the_driver_reports_them() {
    let (ctx, stream, k) = setup();
    let n = 1 << 16;
    let x = stream.alloc_zeros::<f32>(n).unwrap();
    stream.synchronize().unwrap();
    let view = unsafe { view_of(&x, &stream, &ctx) };
    let window = L2Window::persisting(&stream, &view)
        .hit_ratio(0.5)
        .miss(AccessProperty::Streaming);
    let config = Config::for_elements(n as u32, 256)
        .shared_carveout(25)
        .mem_sync_domain(MemSyncDomain::Remote)
        .mem_sync_domain_map(0, 1)
        .nvlink_centric()
        .l2_window(window);
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    let launched = unsafe {
        k.add_value
            .launch(&stream, config, &mut view.clone(), 1.0, n as u32)
    };
    let graph = stream
        .end_capture(CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        .unwrap()
        .expect("a graph");
    launched.unwrap();
    let nodes = cuda_kernel::graph::kernel_nodes(&graph, k.add_value.function().unwrap()).unwrap();
    assert_eq!(nodes.len(), 1);
    let reported = nodes[0].attributes().unwrap();
    println!("stream launch, as the captured node reports it: {reported:?}");
    assert_eq!(reported.mem_sync_domain, Some(1));
    assert_eq!(reported.mem_sync_domain_map, Some((0, 1)));
    assert_eq!(reported.l2_window, Some((view.device_ptr(), n * 4)));
    // Reported where the driver keeps them for a node (a launch-only attribute is `None`).
    assert!(
        matches!(reported.shared_carveout, None | Some(25)),
        "{reported:?}"
    );
    graph.launch().unwrap();
    stream.synchronize().unwrap();
    assert!(stream.clone_dtoh(&x).unwrap().iter().all(|&v| v == 1.0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_plan_records_attributes_and_updates_a_device_updatable_node() {
    let (_ctx, stream, k) = setup();
    let n = 4096usize;
    let mut x = stream.alloc_zeros::<f32>(n).unwrap();
    let lookup = stream.alloc_zeros::<f32>(n).unwrap();
    let config = Config::for_elements(n as u32, 256);
    let event = stream.context().new_event(None).unwrap();
    {
        let mut plan = Plan::new(&stream).unwrap();
        let window = L2Window::persisting(&stream, &lookup);
        let xw = plan.output(&mut x);
        let updatable = unsafe {
            plan.record(
                &k.add_value,
                config
                    .device_updatable()
                    .mem_sync_domain(MemSyncDomain::Remote),
                (xw, 1.0, n as u32),
            )
        }
        .unwrap();
        let windowed =
            unsafe { plan.record(&k.add_value, config.l2_window(window), (xw, 10.0, n as u32)) }
                .unwrap();
        let reported = plan.attributes(&updatable).unwrap();
        println!("plan node: {reported:?}");
        assert!(
            matches!(reported.device_node, Some(Some(_))),
            "{reported:?}"
        );
        assert_eq!(reported.mem_sync_domain, Some(1));
        let (base, bytes) = plan.attributes(&windowed).unwrap().l2_window.unwrap();
        assert_eq!((base != 0, bytes), (true, n * 4));
        plan.replay(&stream).unwrap(); // 11
        // Updated from the host: the node stays device-updatable, the graph is uploaded again.
        unsafe {
            plan.set(
                &updatable,
                config
                    .device_updatable()
                    .mem_sync_domain(MemSyncDomain::Remote),
                (xw, 100.0, n as u32),
            )
        }
        .unwrap();
        plan.replay(&stream).unwrap(); // 121
        // A device-updatable node cannot stop being one.
        let e = unsafe { plan.set(&updatable, config, (xw, 1.0, n as u32)) }.unwrap_err();
        assert!(e.to_string().contains("device_updatable"), "{e}");
        // Events are for stream launches.
        let e = unsafe { plan.record(&k.add_value, config.completion_event(&event), (xw, 1.0, 1)) }
            .unwrap_err();
        assert!(e.to_string().contains("completion_event"), "{e}");
    }
    assert!(stream.clone_dtoh(&x).unwrap().iter().all(|&v| v == 121.0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn preferred_clusters_launch_and_the_required_shape_is_the_fallback() {
    let (ctx, stream) = support::gpu();
    let kernels = LaunchFeatureKernels::load(&ctx).unwrap();
    let blocks = 64usize;
    let mut rank = stream.alloc_zeros::<u32>(blocks).unwrap();
    let mut size = stream.alloc_zeros::<u32>(blocks).unwrap();
    let config = Config::new((blocks as u32, 1, 1), (32, 1, 1))
        .cluster((2, 1, 1))
        .preferred_cluster((4, 1, 1));
    match unsafe {
        kernels
            .cluster_rank
            .launch(&stream, config, &mut rank, &mut size)
    } {
        Ok(()) => {
            let sizes = stream.clone_dtoh(&size).unwrap();
            let ranks = stream.clone_dtoh(&rank).unwrap();
            assert!(sizes.iter().all(|&s| s == 2 || s == 4), "{sizes:?}");
            assert!(ranks.iter().zip(&sizes).all(|(r, s)| r < s));
            let preferred = sizes.iter().filter(|&&s| s == 4).count();
            println!(
                "preferred cluster: {preferred} of {blocks} blocks in clusters of 4, the rest of 2"
            );
        }
        Err(e) => panic!("{e}"),
    }
    // Refused before the driver: not a multiple of the required cluster.
    let bad = Config::new((64, 1, 1), (32, 1, 1))
        .cluster((4, 1, 1))
        .preferred_cluster((6, 1, 1));
    let e = unsafe {
        kernels
            .cluster_rank
            .launch(&stream, bad, &mut rank, &mut size)
    }
    .unwrap_err();
    assert!(
        matches!(
            e.root(),
            Error::LaunchAttribute {
                attribute: "preferred_cluster",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn attributes_the_device_cannot_take_are_refused_before_the_driver() {
    let (ctx, stream, k) = setup();
    let limits = AttributeLimits::of(&stream).unwrap();
    println!(
        "limits: driver {}, {} memory sync domains, largest window {} bytes, persisting L2 at most {} bytes",
        limits.driver_version,
        limits.mem_sync_domains,
        limits.max_window_bytes,
        limits.max_persisting_l2_bytes
    );
    let big = stream
        .alloc_zeros::<u8>(limits.max_window_bytes as usize + 4096)
        .unwrap();
    let mut x = stream.alloc_zeros::<f32>(256).unwrap();
    let config = Config::for_elements(256, 256);
    let refused = |e: Error| match e.root() {
        Error::LaunchAttribute { attribute, .. } => *attribute,
        other => panic!("{other:?}"),
    };
    let window = L2Window::persisting(&stream, &big);
    let e = unsafe {
        k.add_value
            .launch(&stream, config.l2_window(window), &mut x, 1.0, 256)
    };
    let e = e.unwrap_err();
    println!("{e}");
    assert_eq!(refused(e), "l2_window");
    let e = unsafe {
        k.add_value
            .launch(&stream, config.shared_carveout(101), &mut x, 1.0, 256)
    };
    assert_eq!(refused(e.unwrap_err()), "shared_carveout");
    let e = unsafe {
        k.add_value
            .launch(&stream, config.device_updatable(), &mut x, 1.0, 256)
    };
    assert_eq!(refused(e.unwrap_err()), "device_updatable");
    let e = unsafe {
        k.add_value.launch(
            &stream,
            config.preferred_cluster((1, 1, 1)),
            &mut x,
            1.0,
            256,
        )
    };
    assert_eq!(refused(e.unwrap_err()), "preferred_cluster");
    let domains = limits.mem_sync_domains as u8;
    let e = unsafe {
        k.add_value.launch(
            &stream,
            config.mem_sync_domain_map(0, domains),
            &mut x,
            1.0,
            256,
        )
    };
    assert_eq!(refused(e.unwrap_err()), "mem_sync_domain_map");
    // Accepted ones run.
    let window = L2Window::persisting(&stream, &x);
    unsafe {
        k.add_value.launch(
            &stream,
            config
                .shared_carveout(100)
                .nvlink_centric()
                .l2_window(window),
            &mut view_of(&x, &stream, &ctx),
            1.0,
            256,
        )
    }
    .unwrap();
    assert!(stream.clone_dtoh(&x).unwrap().iter().all(|&v| v == 1.0));
}

/// The attributes a plan's node takes beyond those the driver reports back: recorded, replayed.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_plan_records_nvlink_centric_and_preferred_cluster_launches() {
    let (ctx, stream) = support::gpu();
    let features = LaunchFeatureKernels::load(&ctx).unwrap();
    let k = AttributeKernels::load(&ctx).unwrap();
    let n = 1024usize;
    let mut x = stream.alloc_zeros::<f32>(n).unwrap();
    let mut rank = stream.alloc_zeros::<u32>(16).unwrap();
    let mut size = stream.alloc_zeros::<u32>(16).unwrap();
    {
        let mut plan = Plan::new(&stream).unwrap();
        let xw = plan.output(&mut x);
        let (rw, sw) = (plan.output(&mut rank), plan.output(&mut size));
        let nvlink = unsafe {
            plan.record(
                &k.add_value,
                Config::for_elements(n as u32, 256).nvlink_centric(),
                (xw, 1.0, n as u32),
            )
        };
        println!(
            "nvlink_centric in a plan: {:?}",
            nvlink.as_ref().map(|_| ())
        );
        nvlink.unwrap();
        let clustered = Config::new((16, 1, 1), (32, 1, 1))
            .cluster((2, 1, 1))
            .preferred_cluster((4, 1, 1));
        // Taken, or refused by the driver for graph nodes (a CUDA 13.0 driver on an H200 does),
        // named as the attribute.
        match unsafe { plan.record(&features.cluster_rank, clustered, (rw, sw)) } {
            Ok(_) => println!("preferred_cluster in a plan: taken"),
            Err(e) => {
                println!("preferred_cluster in a plan: {e}");
                assert!(matches!(
                    e.root(),
                    Error::LaunchAttribute {
                        attribute: "preferred_cluster",
                        ..
                    }
                ));
                unsafe {
                    plan.record(
                        &features.cluster_rank,
                        Config::new((16, 1, 1), (32, 1, 1)).cluster((2, 1, 1)),
                        (rw, sw),
                    )
                }
                .unwrap();
            }
        }
        plan.replay(&stream).unwrap();
    }
    assert!(stream.clone_dtoh(&x).unwrap().iter().all(|&v| v == 1.0));
    let sizes = stream.clone_dtoh(&size).unwrap();
    assert!(sizes.iter().all(|&s| s == 2 || s == 4), "{sizes:?}");
}

mod device_update {
    use cuda_kernel::kernel;

    #[kernel]
    unsafe extern "C" {
        /// Adds `value` to the first `n` elements of `x`.
        pub fn du_add_value(x: *mut f32, value: f32, n: u32);
        /// Sets the `value` parameter of the device-updatable node `node` (a launch of
        /// `du_add_value`) to `value`, from the device.
        pub fn du_set_value(node: u64, value: f32);
    }
}

/// A kernel of the plan updates the plan's device-updatable node from the device
/// (`cudaGraphKernelNodeSetParam` with the handle `Plan::attributes` reports); the next replay
/// runs the node with the new value. The kernels need the device runtime, so they come as a
/// linked cubin (kernels/cuda-rdc/device_update.cu, which scripts/device-run.sh builds).
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_updates_a_plans_device_updatable_node_from_the_device() {
    use device_update::{DuAddValue, DuSetValue};
    let path = std::env::var("CUDA_KERNEL_TEST_DEVICE_UPDATE_CUBIN").expect(
        "CUDA_KERNEL_TEST_DEVICE_UPDATE_CUBIN names the linked cubin of kernels/cuda-rdc/device_update.cu (scripts/device-run.sh builds it)",
    );
    let image = std::fs::read(&path).expect("the cubin is readable");
    let (ctx, stream) = support::gpu();
    let module = cuda_kernel::driver::load_image(&ctx, &image).unwrap();
    let (add, set) = (
        DuAddValue::load(&module).unwrap(),
        DuSetValue::load(&module).unwrap(),
    );
    let n = 1024usize;
    let x = stream.alloc_zeros::<f32>(n).unwrap();
    stream.synchronize().unwrap();
    // The plan takes a view, so that the test can read `x` between replays (each after a
    // synchronization).
    let mut view = unsafe { view_of(&x, &stream, &ctx) };
    let mut seen = Vec::new();
    {
        let mut plan = Plan::new(&stream).unwrap();
        let xw = plan.output(&mut view);
        let config = Config::for_elements(n as u32, 256);
        let node =
            unsafe { plan.record(&add, config.device_updatable(), (xw, 1.0, n as u32)) }.unwrap();
        let handle = plan
            .attributes(&node)
            .unwrap()
            .device_node
            .flatten()
            .expect("a device-updatable node has a device handle");
        unsafe { plan.record(&set, Config::new((1, 1, 1), (1, 1, 1)), (handle, 100.0)) }.unwrap();
        for _ in 0..3 {
            plan.replay(&stream).unwrap();
            stream.synchronize().unwrap();
            seen.push(stream.clone_dtoh(&x).unwrap()[0]);
        }
    }
    println!("device-side update: x[0] after each replay {seen:?}");
    // The first replay adds 1 and the device sets the node's value to 100; the next add 100.
    assert_eq!(seen, [1.0, 101.0, 201.0]);
    assert!(stream.clone_dtoh(&x).unwrap().iter().all(|&v| v == 201.0));
}
