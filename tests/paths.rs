//! Every way to launch refuses what the others refuse, with the same error, and takes what they
//! take (dynamic shared memory above the kernel's default limit, which each raises): a launcher's
//! `launch` (module and library), a cooperative launch, a plan's recording and its update, and
//! an update of a captured graph's node all take the runtime's one launch check. Ignored without
//! a GPU. (The parameter-bytes limit cannot be exceeded by a declaration on a current GPU; the
//! check's unit test covers it with a legacy device's limits.)

mod support;

use cuda_kernel::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cuda_kernel::cudarc::driver::{CudaSlice, DevicePtr};
use cuda_kernel::{Config, Error, Kernel, Library, Plan};
use kernels::*;

/// What each path answered for one configuration, by path name: the refusal's root, or, where
/// `refused` is false, "taken" (the path must take it). Before each path the kernel's dynamic
/// shared-memory limit is set back to the default 48 KiB, so that each path meets it unraised.
fn answers(config: Config, refused: bool) -> Vec<(&'static str, String)> {
    let (ctx, stream, module) = support::setup(VECTOR_ADD_PTX);
    let add = VectorAdd::load(&module).unwrap();
    let library = Library::load_ptx(VECTOR_ADD_PTX).unwrap();
    let add_everywhere = VectorAdd::load_library(&library).unwrap();
    let n = 1024u32;
    let a = stream.clone_htod(&vec![1.0f32; n as usize]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n as usize).unwrap();
    let fine = Config::for_elements(n, 256);
    let mut answers = Vec::new();
    let lower = || {
        let default = cuda_kernel::DEFAULT_SHARED_MEMORY_LIMIT;
        cuda_kernel::raise_shared_memory_limit(add.function().unwrap(), &stream, default).unwrap();
    };
    lower();
    let mut note = |path, result: Result<(), Error>| {
        lower();
        if !refused {
            result.unwrap_or_else(|e| panic!("{path}: {e}"));
            answers.push((path, "taken".to_string()));
            return;
        }
        let error = result.expect_err(path);
        // Every path names the kernel and its own line around the same refusal.
        assert!(
            error
                .to_string()
                .starts_with("launch of `vector_add` at tests/paths.rs:"),
            "{path}: {error}"
        );
        answers.push((path, error.root().to_string()));
    };

    note("launch", unsafe {
        add.launch(&stream, config, &a, &a, &mut c, n)
    });
    note("library launch", unsafe {
        add_everywhere.launch(&stream, config, &a, &a, &mut c, n)
    });
    note("cooperative launch", unsafe {
        add.launch(&stream, config.cooperative(), &a, &a, &mut c, n)
    });
    {
        let mut plan = Plan::new(&stream).unwrap();
        let (ar, cw) = (plan.input(&a), plan.output(&mut c));
        note("plan record", unsafe {
            plan.record(&add, config, (ar, ar, cw, n)).map(drop)
        });
        let node = unsafe { plan.record(&add, fine, (ar, ar, cw, n)) }.unwrap();
        note("plan set", unsafe {
            plan.set(&node, config, (ar, ar, cw, n))
        });
    }
    stream.synchronize().unwrap();
    unsafe { ctx.disable_event_tracking() };
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    unsafe { add.launch(&stream, fine, &a, &a, &mut c, n) }.unwrap();
    let graph = stream
        .end_capture(CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        .unwrap()
        .expect("a graph");
    let nodes = cuda_kernel::graph::kernel_nodes(&graph, add.function().unwrap()).unwrap();
    let address = |s: &CudaSlice<f32>| s.device_ptr(&stream).0;
    let mut params = VectorAdd::pack(address(&a), address(&a), address(&c), n);
    note("graph node update", unsafe {
        cuda_kernel::graph::set_kernel_node(
            &graph,
            nodes[0],
            &add,
            &stream,
            config,
            params.bytes_mut(),
        )
    });
    unsafe { ctx.enable_event_tracking() };
    answers
}

fn assert_all_alike(what: &str, config: Config, expected: &str) {
    let answers = answers(config, true);
    for (path, error) in &answers {
        assert!(
            error.contains(expected),
            "{what}: {path} said {error:?}, expected it to contain {expected:?}"
        );
        assert_eq!(error, &answers[0].1, "{what}: {path} differs from launch");
    }
    eprintln!("{what}: {} paths, each: {}", answers.len(), answers[0].1);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_path_refuses_an_oversized_block_alike() {
    assert_all_alike(
        "oversized block",
        Config::new((1, 1, 1), (2048, 1, 1)),
        "block dimension x is 2048",
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_path_refuses_shared_memory_above_the_device_alike() {
    assert_all_alike(
        "shared memory above the device's maximum",
        Config::for_elements(1024, 256).shared_mem(4 << 20),
        "dynamic shared memory per block",
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_path_raises_the_kernels_shared_memory_limit_alike() {
    // 64 KiB fits the device but not the kernel's default limit of 48 KiB: every path raises
    // the limit itself and takes the launch.
    let taken = answers(Config::for_elements(1024, 256).shared_mem(64 << 10), false);
    assert_eq!(taken.len(), 6, "{taken:?}");
    eprintln!(
        "64 KiB of dynamic shared memory taken by: {}",
        taken.iter().map(|(p, _)| *p).collect::<Vec<_>>().join(", ")
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn generic_code_loads_and_launches_through_the_kernel_trait() {
    fn load_any<K: Kernel>(module: &std::sync::Arc<cuda_kernel::cudarc::driver::CudaModule>) -> K {
        K::load(module).unwrap_or_else(|e| panic!("{}: {e}", K::symbol()))
    }
    let (_ctx, stream, module) = support::setup(VECTOR_ADD_PTX);
    let add: VectorAdd = load_any(&module);
    assert_eq!(<VectorAdd as Kernel>::symbol(), "vector_add");
    let n = 256u32;
    let a = stream.clone_htod(&vec![2.0f32; n as usize]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(n as usize).unwrap();
    unsafe { add.launch(&stream, Config::for_elements(n, 128), &a, &a, &mut c, n) }.unwrap();
    assert!(stream.clone_dtoh(&c).unwrap().iter().all(|&x| x == 4.0));
}
