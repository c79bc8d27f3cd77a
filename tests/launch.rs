//! Launch configuration, extended launches and CUDA graphs on a real GPU. Ignored without one.

mod support;

use cuda_kernel::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cuda_kernel::{Config, Error};
use kernels::*;
use support::setup;

#[test]
#[ignore = "needs a CUDA GPU"]
fn clusters_report_their_rank() {
    let (_ctx, stream, module) = setup(LAUNCH_FEATURES_PTX);
    let kernel = ClusterRank::load(&module).unwrap();
    for cluster in [2u32, 4] {
        let blocks = 16u32;
        let mut rank = stream.alloc_zeros::<u32>(blocks as usize).unwrap();
        let mut size = stream.alloc_zeros::<u32>(blocks as usize).unwrap();
        let config = Config::new((blocks, 1, 1), (32, 1, 1)).cluster((cluster, 1, 1));
        unsafe {
            kernel
                .launch(&stream, config, &mut rank, &mut size)
                .unwrap()
        };
        let rank = stream.clone_dtoh(&rank).unwrap();
        let size = stream.clone_dtoh(&size).unwrap();
        for b in 0..blocks as usize {
            assert_eq!(
                rank[b],
                b as u32 % cluster,
                "block {b}, clusters of {cluster}"
            );
            assert_eq!(size[b], cluster);
        }
    }
    // A cluster that does not divide the grid is refused before the driver.
    let mut r = stream.alloc_zeros::<u32>(6).unwrap();
    let mut s = stream.alloc_zeros::<u32>(6).unwrap();
    let bad = Config::new((6, 1, 1), (32, 1, 1)).cluster((4, 1, 1));
    let e = unsafe { kernel.launch(&stream, bad, &mut r, &mut s) }.unwrap_err();
    assert!(matches!(e.root(), Error::ClusterMismatch { .. }), "{e}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cooperative_launch_synchronizes_the_grid() {
    let (ctx, stream, module) = setup(LAUNCH_FEATURES_PTX);
    let kernel = GridSyncNeighbour::load(&module).unwrap();
    let sms = ctx
        .attribute(cuda_kernel::cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .unwrap() as u32;
    let blocks = sms * 2;
    let mut slots = stream.alloc_zeros::<u32>(blocks as usize).unwrap();
    let mut seen = stream.alloc_zeros::<u32>(blocks as usize).unwrap();
    let config = Config::new((blocks, 1, 1), (128, 1, 1)).cooperative();
    unsafe {
        kernel
            .launch(&stream, config, &mut slots, &mut seen)
            .unwrap()
    };
    let seen = stream.clone_dtoh(&seen).unwrap();
    for b in 0..blocks {
        assert_eq!(
            seen[b as usize],
            (b + 1) % blocks + 1,
            "block {b} of {blocks}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn priority_launches_run() {
    let (ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let a = stream.clone_htod(&[1.0f32, 2.0]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(2).unwrap();
    let (mut least, mut greatest) = (0, 0);
    ctx.bind_to_thread().unwrap();
    unsafe {
        cuda_kernel::cudarc::driver::sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest)
    }
    .result()
    .unwrap();
    assert!(greatest <= least);
    let config = Config::for_elements(2, 32).priority(greatest);
    unsafe { kernel.launch(&stream, config, &a, &a, &mut c, 2).unwrap() };
    assert_eq!(stream.clone_dtoh(&c).unwrap(), [2.0, 4.0]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn configurations_are_checked_before_the_driver() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let a = stream.alloc_zeros::<f32>(1).unwrap();
    let mut c = stream.alloc_zeros::<f32>(1).unwrap();
    let launch =
        |config: Config, c: &mut _| unsafe { kernel.launch(&stream, config, &a, &a, c, 1) };
    let e = launch(Config::new((0, 1, 1), (32, 1, 1)), &mut c).unwrap_err();
    // Every launch error names the kernel and the line of the launch, then the launch.
    let text = e.to_string();
    let line = line!() - 4;
    assert!(
        text.starts_with(&format!(
            "launch of `vector_add` at tests/launch.rs:{line}:"
        )),
        "{text}"
    );
    assert!(
        text.contains("\n  grid (0, 1, 1), block (32, 1, 1), 0 bytes of shared memory"),
        "{text}"
    );
    assert!(text.contains("n = 1"), "{text}");
    assert_eq!(
        e.root().to_string(),
        "grid dimension x is 0: every grid, block and cluster dimension must be at least 1"
    );
    let e = launch(Config::new((1, 1, 1), (32, 32, 2)), &mut c).unwrap_err();
    assert_eq!(
        e.root().to_string(),
        "threads per block is 2048 but this device allows at most 1024"
    );
    let e = launch(
        Config::new((1, 1, 1), (1, 1, 1)).shared_mem(10 << 20),
        &mut c,
    )
    .unwrap_err();
    assert!(matches!(e.root(), Error::InvalidConfig { .. }), "{e}");
    // 100 KiB is above the kernel's default limit of 48 KiB: the launch raises it.
    let big = Config::new((1, 1, 1), (32, 1, 1)).shared_mem(100 * 1024);
    launch(big, &mut c).unwrap();
    stream.synchronize().unwrap();
    // Lowered again by hand, it is raised again by the next launch.
    cuda_kernel::raise_shared_memory_limit(
        kernel.function().expect("loaded from a module"),
        &stream,
        64 * 1024,
    )
    .unwrap();
    launch(big, &mut c).unwrap();
    stream.synchronize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn occupancy_picks_a_block_size_that_launches() {
    let (_ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let (min_grid, block) =
        cuda_kernel::occupancy_block_size(kernel.function().expect("loaded from a module"), 0)
            .unwrap();
    assert!(
        min_grid > 0 && block > 0 && block <= 1024 && block % 32 == 0,
        "{min_grid} {block}"
    );
    let n = 100_000u32;
    let a = stream.clone_htod(&vec![1.5f32; n as usize]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n as usize).unwrap();
    unsafe {
        kernel
            .launch(&stream, Config::for_elements(n, block), &a, &a, &mut c, n)
            .unwrap()
    };
    assert!(stream.clone_dtoh(&c).unwrap().iter().all(|&x| x == 3.0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn captured_launches_replay_and_typed_node_updates_take_effect() {
    let (ctx, stream, module) = setup(VECTOR_ADD_PTX);
    let kernel = VectorAdd::load(&module).unwrap();
    let n = 4096usize;
    let a = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let b = stream.clone_htod(&vec![2.0f32; n]).unwrap();
    let x = stream.clone_htod(&vec![10.0f32; n]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n).unwrap();
    let mut d = stream.alloc_zeros::<f32>(n).unwrap();
    stream.synchronize().unwrap();
    // Event tracking records events on the stream, which a capture does not allow.
    unsafe { ctx.disable_event_tracking() };
    let config = Config::for_elements(n as u32, 256);
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    unsafe {
        kernel
            .launch(&stream, config, &a, &b, &mut c, n as u32)
            .unwrap(); // c = 3
        kernel
            .launch(&stream, config, &c, &b, &mut d, n as u32)
            .unwrap(); // d = c + 2 = 5
    }
    let graph = stream
        .end_capture(CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        .unwrap()
        .expect("a graph");
    graph.launch().unwrap();
    assert!(stream.clone_dtoh(&d).unwrap().iter().all(|&v| v == 5.0));

    // The first node now adds x instead of a, over half the elements: c = 12 there, d = 14.
    let nodes =
        cuda_kernel::graph::kernel_nodes(&graph, kernel.function().expect("loaded from a module"))
            .unwrap();
    assert_eq!(nodes.len(), 2);
    let half = (n / 2) as u32;
    let address = |s: &cuda_kernel::cudarc::driver::CudaSlice<f32>| {
        cuda_kernel::cudarc::driver::DevicePtr::device_ptr(s, &stream).0
    };
    let mut params = VectorAdd::pack(address(&x), address(&b), address(&c), half);
    unsafe {
        cuda_kernel::graph::set_kernel_node(
            &graph,
            nodes[0],
            &kernel,
            &stream,
            Config::for_elements(half, 256),
            params.bytes_mut(),
        )
        .unwrap()
    };
    graph.launch().unwrap();
    let d_host = stream.clone_dtoh(&d).unwrap();
    assert!(
        d_host[..n / 2].iter().all(|&v| v == 14.0),
        "{:?}",
        &d_host[..4]
    );
    assert!(
        d_host[n / 2..].iter().all(|&v| v == 5.0),
        "{:?}",
        &d_host[n / 2..n / 2 + 4]
    );
    unsafe { ctx.enable_event_tracking() };
}
