//! Hopper kernels: TMA descriptors and parameters aligned above 16 bytes, whose offsets the GPU
//! chooses, through every way to launch. The GPU tests are ignored without one (sm_90 or newer:
//! the PTX targets compute_90).

mod support;

use cuda_kernel::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cuda_kernel::cudarc::driver::{CudaSlice, DevicePtr};
use cuda_kernel::{
    Config, Double4_32a, Error, Kernel, KernelParam, Library, Plan, RawTensorMap, TensorMap,
    TensorMapMut, Tiled,
};
use kernels::params::Block64;
use kernels::*;
use support::setup;

#[test]
fn the_constant_part_of_a_layout_ends_at_the_first_parameter_aligned_above_16() {
    // (u32 a, CUtensorMap m, u8 *out): only `a` sits where the C rule puts it on every GPU.
    assert_eq!(TmaProbe::LAYOUT.fixed, 1);
    assert!(!TmaProbe::LAYOUT.is_fixed());
    assert_eq!(TmaProbe::LAYOUT.params[1].align, 128);
    assert_eq!(AlignedEcho::LAYOUT.fixed, 1);
    assert_eq!(
        (
            AlignedEcho::LAYOUT.params[1].size,
            AlignedEcho::LAYOUT.params[1].align
        ),
        (256, 64)
    );
    assert_eq!(TmaCopy2d::LAYOUT.fixed, 0);
    assert!(VectorAdd::LAYOUT.is_fixed());
    assert_eq!(
        (
            RawTensorMap::SIZE,
            RawTensorMap::ALIGN,
            align_of::<RawTensorMap>()
        ),
        (128, 128, 128)
    );
}

/// `len` bytes, each different from its neighbours, so a shift shows.
fn graffiti(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(7) ^ seed).collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_descriptor_arrives_whole_at_the_offset_the_driver_gives() {
    let (_ctx, stream, module) = setup(TMA_PTX);
    let probe = TmaProbe::load(&module).unwrap();
    let placed = probe_layout(&probe);
    eprintln!("tma_probe as the driver places it: {placed}");
    let x = stream.alloc_zeros::<f32>(64 * 64).unwrap();
    let map = TensorMap::<f32, 2>::tiled(&stream, &x, &Tiled::new([64, 64], [32, 32])).unwrap();
    let mut out = stream.alloc_zeros::<u8>(132).unwrap();
    unsafe {
        probe.launch(
            &stream,
            Config::new((1, 1, 1), (1, 1, 1)),
            0xa1b2_c3d4,
            &map,
            &mut out,
        )
    }
    .unwrap();
    let echoed = stream.clone_dtoh(&out).unwrap();
    assert_eq!(echoed[..4], 0xa1b2_c3d4u32.to_le_bytes());
    assert_eq!(echoed[4..], *bytemuck::bytes_of(&map.raw().opaque));
    assert_ne!(
        map.raw(),
        RawTensorMap::default(),
        "the driver encoded something"
    );

    // Loaded once for every GPU: the same placement, the same bytes.
    let library = Library::load_ptx(TMA_PTX).unwrap();
    let probe_everywhere = TmaProbe::load_library(&library).unwrap();
    let mut out = stream.alloc_zeros::<u8>(132).unwrap();
    unsafe {
        probe_everywhere.launch(
            &stream,
            Config::new((1, 1, 1), (1, 1, 1)),
            7,
            &map,
            &mut out,
        )
    }
    .unwrap();
    let echoed = stream.clone_dtoh(&out).unwrap();
    assert_eq!(echoed[..4], 7u32.to_le_bytes());
    assert_eq!(echoed[4..], *bytemuck::bytes_of(&map.raw().opaque));
}

fn probe_layout(probe: &TmaProbe) -> cuda_kernel::ParamLayout {
    *probe
        .__loaded()
        .layout()
        .expect("placed by the driver at load")
}

/// The arguments of `aligned_echo` and the 291 bytes it should echo.
fn echo_args() -> (u8, Block64, Double4_32a, u16, Vec<u8>) {
    let b = graffiti(256, 0x5a);
    let d = graffiti(32, 0xc3);
    let block = Block64 {
        words: bytemuck::pod_read_unaligned(&b),
    };
    let double4: Double4_32a = bytemuck::pod_read_unaligned(&d);
    let mut expected = vec![0x11];
    expected.extend_from_slice(&b);
    expected.extend_from_slice(&d);
    expected.extend_from_slice(&0xbeefu16.to_le_bytes());
    (0x11, block, double4, 0xbeef, expected)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn parameters_aligned_above_16_arrive_byte_exact_through_every_launch_path() {
    let (ctx, stream, module) = setup(TMA_PTX);
    let echo = AlignedEcho::load(&module).unwrap();
    let placed = *echo.__loaded().layout().unwrap();
    eprintln!(
        "aligned_echo as the C rule places it: {}",
        AlignedEcho::LAYOUT
    );
    eprintln!("aligned_echo as the driver places it: {placed}");
    let (a, b, d, t, expected) = echo_args();
    let one = Config::new((1, 1, 1), (1, 1, 1));
    let mut checked = Vec::new();
    let mut check = |path: &str, out: &CudaSlice<u8>| {
        let echoed = stream.clone_dtoh(out).unwrap();
        assert_eq!(
            echoed, expected,
            "{path}: a parameter arrived shifted or torn"
        );
        checked.push(path.to_string());
    };

    let mut out = stream.alloc_zeros::<u8>(291).unwrap();
    unsafe { echo.launch(&stream, one, a, b, d, t, &mut out) }.unwrap();
    check("launch", &out);

    let mut out = stream.alloc_zeros::<u8>(291).unwrap();
    unsafe { echo.launch(&stream, one.cooperative(), a, b, d, t, &mut out) }.unwrap();
    check("cooperative launch", &out);

    let library = Library::load_ptx(TMA_PTX).unwrap();
    let everywhere = AlignedEcho::load_library(&library).unwrap();
    let mut out = stream.alloc_zeros::<u8>(291).unwrap();
    unsafe { everywhere.launch(&stream, one, a, b, d, t, &mut out) }.unwrap();
    check("library launch", &out);

    let cache = cuda_kernel::KernelCache::new(&module);
    let cached: &AlignedEcho = cache.get().unwrap();
    let mut out = stream.alloc_zeros::<u8>(291).unwrap();
    unsafe { cached.launch(&stream, one, a, b, d, t, &mut out) }.unwrap();
    check("kernel cache", &out);

    let mut out = stream.alloc_zeros::<u8>(291).unwrap();
    let mut spare = stream.alloc_zeros::<u8>(291).unwrap();
    {
        let mut plan = Plan::new(&stream).unwrap();
        let ow = plan.output(&mut out);
        let sw = plan.output(&mut spare);
        let node = unsafe { plan.record(&echo, one, (0, b, d, 0, sw)) }.unwrap();
        plan.replay(&stream).unwrap();
        unsafe { plan.set(&node, one, (a, b, d, t, ow)) }.unwrap();
        plan.replay(&stream).unwrap();
    }
    check("plan record and set", &out);

    // A captured graph's node, updated with the buffer `pack` makes (the C rule's offsets,
    // placed at the update).
    let out = stream.alloc_zeros::<u8>(291).unwrap();
    let mut scratch = stream.alloc_zeros::<u8>(291).unwrap();
    stream.synchronize().unwrap();
    unsafe { ctx.disable_event_tracking() };
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    unsafe { echo.launch(&stream, one, 0, b, d, 0, &mut scratch) }.unwrap();
    let graph = stream
        .end_capture(CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        .unwrap()
        .expect("a graph");
    let nodes = cuda_kernel::graph::kernel_nodes(&graph, echo.function().unwrap()).unwrap();
    let mut params = AlignedEcho::pack(a, b, d, t, out.device_ptr(&stream).0);
    unsafe {
        cuda_kernel::graph::set_kernel_node(
            &graph,
            nodes[0],
            &echo,
            &stream,
            one,
            params.bytes_mut(),
        )
    }
    .unwrap();
    graph.launch().unwrap();
    stream.synchronize().unwrap();
    unsafe { ctx.enable_event_tracking() };
    check("graph node update", &out);
    eprintln!("aligned_echo byte-exact through: {}", checked.join(", "));
}

/// `rows` x `cols` floats copied through the TMA, tile by tile, equal the source.
fn tma_copy(rows: usize, cols: usize) {
    let (_ctx, stream, module) = setup(TMA_PTX);
    let copy = TmaCopy2d::load(&module).unwrap();
    let host: Vec<f32> = (0..rows * cols).map(|i| i as f32 * 0.5 - 3.0).collect();
    let x = stream.clone_htod(&host).unwrap();
    let mut y = stream.alloc_zeros::<f32>(rows * cols).unwrap();
    let tiles = Tiled::new([cols as u64, rows as u64], [64, 64]);
    let src = TensorMap::tiled(&stream, &x, &tiles).unwrap();
    let mut dst = TensorMapMut::tiled(&stream, &mut y, &tiles).unwrap();
    let grid = (cols.div_ceil(64) as u32, rows.div_ceil(64) as u32, 1);
    unsafe { copy.launch(&stream, Config::new(grid, (32, 1, 1)), &src, &mut dst) }.unwrap();
    let back = stream.clone_dtoh(&y).unwrap();
    assert!(
        back == host,
        "{rows} x {cols}: the TMA copy differs from its source"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_tma_tiled_copy_equals_its_source() {
    tma_copy(1024, 1024);
    // Edges the hardware clips: neither dimension a multiple of the box.
    tma_copy(1000, 776);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_plan_holds_the_memory_of_its_descriptors() {
    let (_ctx, stream, module) = setup(TMA_PTX);
    let copy = TmaCopy2d::load(&module).unwrap();
    let (rows, cols) = (256usize, 512usize);
    let host: Vec<f32> = (0..rows * cols).map(|i| (i % 1009) as f32).collect();
    let x = stream.clone_htod(&host).unwrap();
    let mut y = stream.alloc_zeros::<f32>(rows * cols).unwrap();
    let tiles = Tiled::new([cols as u64, rows as u64], [64, 64]);
    {
        let src = TensorMap::tiled(&stream, &x, &tiles).unwrap();
        let dst = TensorMapMut::tiled(&stream, &mut y, &tiles).unwrap();
        let mut plan = Plan::new(&stream).unwrap();
        let (s, d) = (plan.tensor_map(&src), plan.tensor_map_mut(dst));
        let grid = ((cols / 64) as u32, (rows / 64) as u32, 1);
        unsafe { plan.record(&copy, Config::new(grid, (32, 1, 1)), (s, d)) }.unwrap();
        plan.replay(&stream).unwrap();
    }
    assert!(stream.clone_dtoh(&y).unwrap() == host);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_bad_descriptor_is_refused_before_the_driver_naming_its_field() {
    let (_ctx, stream, _module) = setup(TMA_PTX);
    let x = stream.alloc_zeros::<f32>(64 * 64).unwrap();
    let refused = |tiles: Tiled<2>| match TensorMap::<f32, 2>::tiled(&stream, &x, &tiles) {
        Err(e @ Error::TensorMap { .. }) => e.to_string(),
        other => panic!("{tiles:?}: expected a TensorMap error, got {other:?}"),
    };
    // A box whose inner dimension is 8 bytes, a tensor larger than its memory, a view off 16.
    assert!(refused(Tiled::new([64, 64], [2, 8])).contains("multiple of 16 bytes"));
    assert!(refused(Tiled::new([64, 65], [32, 8])).contains("its memory holds 4096 elements"));
    let view = x.slice(1..);
    let err = TensorMap::<f32, 1>::tiled(&stream, &view, &Tiled::new([16], [16])).unwrap_err();
    assert!(err.to_string().contains("global address"), "{err}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_im2col_descriptor_encodes_for_a_convolutions_input() {
    let (_ctx, stream, _module) = setup(TMA_PTX);
    // NHWC: 2 images of 16 x 16 pixels of 64 channels of f16; a 3 x 3 filter, padding 1.
    let x = stream
        .alloc_zeros::<cuda_kernel::half::f16>(2 * 16 * 16 * 64)
        .unwrap();
    let shape = cuda_kernel::Im2col::new([64, 16, 16, 2], [-1, -1], [-1, -1], 64, 128);
    let map = TensorMap::<cuda_kernel::half::f16, 4>::im2col(&stream, &x, &shape).unwrap();
    assert_ne!(map.raw(), RawTensorMap::default());
    // `pack` writes its bytes where the C rule puts the descriptor (128).
    let raw = map.raw();
    let params = TmaProbe::pack(1, raw, 0);
    assert_eq!(params.bytes()[128..256], *bytemuck::bytes_of(&raw.opaque));
    let wrong = cuda_kernel::Im2col::new([64, 16, 16, 2], [-1], [-1], 64, 128);
    let err = TensorMap::<cuda_kernel::half::f16, 4>::im2col(&stream, &x, &wrong).unwrap_err();
    assert!(err.to_string().contains("corners"), "{err}");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_namespaced_template_over_tile_sizes_takes_descriptors_and_raises_its_shared_memory() {
    let (_ctx, stream, module) = setup(TMA_PTX);
    let x = stream.alloc_zeros::<f32>(64 * 64).unwrap();
    let tiles = Tiled::new([64, 64], [32, 32]);
    let a = TensorMap::<f32, 2>::tiled(&stream, &x, &tiles).unwrap();
    let b = TensorMap::<f32, 2>::tiled(&stream, &x, &tiles).unwrap();
    let mut c = stream.alloc_zeros::<f32>(4).unwrap();
    for (bm, bn) in [(64, 128), (128, 256)] {
        let k: i32 = 100 * 1024 / 4; // 100 KiB of dynamic shared memory: above the default 48
        let config = Config::new((1, 1, 1), (32, 1, 1)).shared_mem(k as u32 * 4);
        if bm == 64 {
            let tile = Tile::<64, 128>::load(&module).unwrap();
            unsafe { tile.launch(&stream, config, &a, &b, &mut c, k) }.unwrap();
        } else {
            let tile = Tile::<128, 256>::load(&module).unwrap();
            unsafe { tile.launch(&stream, config, &a, &b, &mut c, k) }.unwrap();
        }
        let got = stream.clone_dtoh(&c).unwrap();
        assert_eq!(got, [bm as f32, bn as f32, k as f32, bm as f32]);
    }
}
