//! Contracts (`#[requires(...)]`): a launcher with one is safe to call, and checks it before
//! the driver is called. The checks need no GPU: `check_contract` runs them on memory of a
//! test type that reports its length.

use cuda_kernel::cudarc::driver::sys::CUdeviceptr;
use cuda_kernel::cudarc::driver::{CudaStream, SyncOnDrop};
use cuda_kernel::{Config, DeviceArg, DeviceArgMut, Error, ExactLength, Null, kernel};

/// Memory of `len` elements at a made-up address: enough for the checks, which read lengths.
struct Fake(usize);

impl<T> DeviceArg<T> for Fake {
    fn device_arg<'a>(&'a self, _: &'a CudaStream) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0x1000, None)
    }
    fn element_count(&self) -> Option<usize> {
        Some(self.0)
    }
}

impl<T> DeviceArgMut<T> for Fake {
    fn device_arg_mut<'a>(
        &'a mut self,
        _: &'a CudaStream,
    ) -> (CUdeviceptr, Option<SyncOnDrop<'a>>) {
        (0x2000, None)
    }
    fn element_count_mut(&self) -> Option<usize> {
        Some(self.0)
    }
}

// SAFETY: not launched; the length is the one given.
unsafe impl ExactLength for Fake {}

#[kernel(ptx = "$CARGO_MANIFEST_DIR/kernels/ptx/vector_add.ptx")]
unsafe extern "C" {
    #[requires(a.len() >= n, b.len() >= n, c.len() >= n)]
    fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: i32);
}

#[kernel]
unsafe extern "C" {
    #[requires(x.len() >= rows * cols, out.len() >= rows, config.threads() >= rows)]
    #[requires(bias.is_null() || bias.len() >= rows)]
    fn row_sums(x: *const f32, bias: *const f32, out: *mut f32, rows: u64, cols: u64);
}

fn message(e: &Error) -> String {
    e.to_string()
}

#[test]
fn a_launch_meeting_the_contract_passes_its_checks() {
    let cfg = Config::for_elements(100, 32);
    VectorAdd::check_contract(cfg, &Fake(100), &Fake(100), &Fake(100), 100).unwrap();
    VectorAdd::check_contract(cfg, &Fake(100), &Fake(200), &Fake(100), -5).unwrap();
    RowSums::check_contract(Config::for_elements(8, 8), &Fake(32), &Null, &Fake(8), 8, 4).unwrap();
    RowSums::check_contract(
        Config::for_elements(8, 8),
        &Fake(32),
        &Fake(8),
        &Fake(8),
        8,
        4,
    )
    .unwrap();
}

#[test]
fn a_broken_condition_is_named_with_its_values() {
    let cfg = Config::for_elements(100, 32);
    let e = VectorAdd::check_contract(cfg, &Fake(100), &Fake(100), &Fake(99), 100).unwrap_err();
    assert_eq!(
        message(&e),
        "the contract `c.len() >= n` does not hold: c.len() = 99, n = 100"
    );
    let e = RowSums::check_contract(
        Config::for_elements(8, 8),
        &Fake(32),
        &Fake(7),
        &Fake(8),
        8,
        4,
    )
    .unwrap_err();
    assert_eq!(
        message(&e),
        "the contract `bias.is_null() || bias.len() >= rows` does not hold: bias.len() = 7, rows = 8"
    );
    let e = RowSums::check_contract(Config::for_elements(4, 4), &Fake(32), &Null, &Fake(8), 8, 4)
        .unwrap_err();
    assert_eq!(
        message(&e),
        "the contract `config.threads() >= rows` does not hold: config.threads() = 4, rows = 8"
    );
}

#[test]
fn overflow_in_a_contract_is_a_violation_not_a_wrap() {
    let big = u64::MAX;
    // rows * cols wraps to 0 in u64 arithmetic; the contract refuses it.
    let e = RowSums::check_contract(
        Config::for_elements(8, 8),
        &Fake(0),
        &Null,
        &Fake(8),
        8,
        big / 4 + 1,
    )
    .unwrap_err();
    assert!(message(&e).starts_with("the contract `x.len() >= rows * cols` does not hold"));
    let e = RowSums::check_contract(
        Config::for_elements(8, 8),
        &Fake(0),
        &Null,
        &Fake(usize::MAX),
        big,
        big,
    )
    .unwrap_err();
    assert!(
        message(&e).ends_with("rows * cols overflows"),
        "{}",
        message(&e)
    );
}

// ---------------------------------------------------------------------------------------------
// On the GPU: the repository's kernels and llm.c's, declared with contracts in
// kernels/src/checked.rs. For each, a launch meeting the contract runs (clean under
// compute-sanitizer's memcheck, docs/gpu-results.md) and one breaking it is refused before the
// driver is called.

mod support;

use cuda_kernel::Plan;
use cuda_kernel::cudarc::driver::{CudaSlice, CudaStream as Stream};
use kernels::checked::*;

/// The launch was refused for the condition `condition`, and the stream is still usable.
#[track_caller]
fn assert_refused(result: Result<(), Error>, condition: &str, stream: &Stream) {
    let e = result.expect_err("the contract refuses this launch");
    println!("refused: {e}");
    match e.root() {
        Error::ContractViolated { condition: c, .. } => assert_eq!(*c, condition, "{e}"),
        other => panic!("not a contract violation: {other}"),
    }
    stream.synchronize().expect("nothing reached the GPU");
}

fn zeros(stream: &Arc<Stream>, n: usize) -> CudaSlice<f32> {
    stream.alloc_zeros::<f32>(n).unwrap()
}

fn filled(stream: &Arc<Stream>, n: usize) -> CudaSlice<f32> {
    let host: Vec<f32> = (0..n).map(|i| (i % 17) as f32 * 0.25 - 2.0).collect();
    stream.clone_htod(&host).unwrap()
}

use std::sync::Arc;

#[test]
#[ignore = "needs a CUDA GPU"]
fn repository_kernels_launch_safely_within_their_contracts() {
    let (ctx, stream) = support::gpu();
    let add =
        VectorAdd::load(&cuda_kernel::driver::load_ptx(&ctx, kernels::VECTOR_ADD_PTX).unwrap())
            .unwrap();
    let (a, b, mut c) = (
        filled(&stream, 1000),
        filled(&stream, 1000),
        zeros(&stream, 1000),
    );
    add.launch(
        &stream,
        Config::for_elements(1000, 256),
        &a,
        &b,
        &mut c,
        1000,
    )
    .unwrap();
    let (ha, hc) = (
        stream.clone_dtoh(&a).unwrap(),
        stream.clone_dtoh(&c).unwrap(),
    );
    assert!(ha.iter().zip(&hc).all(|(x, y)| 2.0 * x == *y));
    let short = stream.alloc_zeros::<f32>(999).unwrap();
    let e = add.launch(
        &stream,
        Config::for_elements(1000, 256),
        &a,
        &short.slice(..),
        &mut c,
        1000,
    );
    assert_refused(e, "b.len() >= n", &stream);
    // A view counts by its own length.
    let mut view = c.slice_mut(10..);
    let e = add.launch(
        &stream,
        Config::for_elements(1000, 256),
        &a,
        &b,
        &mut view,
        1000,
    );
    assert_refused(e, "c.len() >= n", &stream);

    let templates = cuda_kernel::driver::load_ptx(&ctx, kernels::TEMPLATES_PTX).unwrap();
    let reduce = Reduce0::<f32>::load(&templates).unwrap();
    let x = stream.clone_htod(&vec![1.0f32; 1024]).unwrap();
    let mut partial = zeros(&stream, 4);
    let config = Config::new((4, 1, 1), (256, 1, 1));
    reduce
        .launch(&stream, config.shared::<f32>(512), &x, &mut partial, 1024)
        .unwrap();
    assert_eq!(stream.clone_dtoh(&partial).unwrap(), [256.0; 4]);
    // cuda-samples gives one float per thread, which only a power-of-two block keeps inside.
    let e = reduce.launch(&stream, config.shared::<f32>(256), &x, &mut partial, 1024);
    assert_refused(
        e,
        "config.shared_mem_bytes >= 2 * config.block.0 * size_of::<T>()",
        &stream,
    );
    let e = reduce.launch(
        &stream,
        Config::new((5, 1, 1), (256, 1, 1)).shared::<f32>(512),
        &x,
        &mut partial,
        1024,
    );
    assert_refused(e, "g_odata.len() >= config.grid.0", &stream);

    let matmul = MatrixMulCUDA::<16>::load(&templates).unwrap();
    let (w_a, w_b, h_a) = (32usize, 48usize, 32usize);
    let ha: Vec<f32> = (0..h_a * w_a).map(|i| (i % 7) as f32).collect();
    let hb: Vec<f32> = (0..w_a * w_b).map(|i| (i % 5) as f32 - 1.0).collect();
    let (ma, mb) = (
        stream.clone_htod(&ha).unwrap(),
        stream.clone_htod(&hb).unwrap(),
    );
    let mut mc = zeros(&stream, h_a * w_b);
    let config = Config::new((3, 2, 1), (16, 16, 1));
    matmul
        .launch(&stream, config, &mut mc, &ma, &mb, 32, 48)
        .unwrap();
    let hc = stream.clone_dtoh(&mc).unwrap();
    for (row, col) in [(0, 0), (5, 47), (31, 20)] {
        let want: f32 = (0..w_a)
            .map(|k| ha[row * w_a + k] * hb[k * w_b + col])
            .sum();
        assert_eq!(hc[row * w_b + col], want);
    }
    let e = matmul.launch(
        &stream,
        Config::new((4, 2, 1), (16, 16, 1)),
        &mut mc,
        &ma,
        &mb,
        32,
        48,
    );
    assert_refused(e, "config.grid.0 * BLOCK_SIZE <= w_b", &stream);
    let e = matmul.launch(
        &stream,
        Config::new((3, 2, 1), (32, 8, 1)),
        &mut mc,
        &ma,
        &mb,
        32,
        48,
    );
    assert_refused(
        e,
        "config.block.0 == BLOCK_SIZE && config.block.1 == BLOCK_SIZE",
        &stream,
    );
    let e = matmul.launch(&stream, config, &mut mc, &ma, &mb, 40, 48);
    assert_refused(e, "w_a % BLOCK_SIZE == 0", &stream);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn llm_c_kernels_launch_safely_within_their_contracts() {
    let (ctx, stream) = support::gpu();
    let m = cuda_kernel::driver::load_ptx(&ctx, LLMC_PTX).unwrap();
    let ok = |r: Result<(), Error>| {
        r.unwrap();
        stream.synchronize().unwrap();
    };

    // layernorm_forward_kernel3: 64 rows of 128, one warp per row.
    let k = LayernormForwardKernel3::load(&m).unwrap();
    let (n, c) = (64usize, 128usize);
    let (inp, w, bias) = (
        filled(&stream, n * c),
        filled(&stream, c),
        filled(&stream, c),
    );
    let (mut out, mut mean, mut rstd) =
        (zeros(&stream, n * c), zeros(&stream, n), zeros(&stream, n));
    let config = Config::new((16, 1, 1), (128, 1, 1));
    ok(k.launch(
        &stream, config, &mut out, &mut mean, &mut rstd, &inp, &w, &bias, 64, 128,
    ));
    ok(k.launch(
        &stream, config, &mut out, &mut Null, &mut Null, &inp, &w, &bias, 64, 128,
    ));
    let short = filled(&stream, 64);
    let e = k.launch(
        &stream, config, &mut out, &mut mean, &mut rstd, &inp, &short, &bias, 64, 128,
    );
    assert_refused(e, "weight.len() >= c", &stream);
    let e = k.launch(
        &stream,
        Config::new((16, 1, 1), (100, 1, 1)),
        &mut out,
        &mut Null,
        &mut Null,
        &inp,
        &w,
        &bias,
        64,
        128,
    );
    assert_refused(e, "config.block_threads() % 32 == 0", &stream);

    // permute and unpermute: B=2, N=8, NH=4, d=16.
    let (b, nn, nh, d) = (2i32, 8i32, 4i32, 16i32);
    let each = (b * nn * nh * d) as usize;
    let qkv = filled(&stream, 3 * each);
    let (mut q, mut kk, mut v) = (
        zeros(&stream, each),
        zeros(&stream, each),
        zeros(&stream, each),
    );
    let config = Config::for_elements(each as u32, 256);
    let permute = PermuteKernel::load(&m).unwrap();
    ok(permute.launch(&stream, config, &mut q, &mut kk, &mut v, &qkv, b, nn, nh, d));
    let e = permute.launch(
        &stream,
        config,
        &mut q,
        &mut kk,
        &mut v,
        &qkv.slice(1..),
        b,
        nn,
        nh,
        d,
    );
    assert_refused(e, "inp.len() >= b * n * 3 * nh * d", &stream);
    let e = permute.launch(
        &stream, config, &mut q, &mut kk, &mut v, &qkv, -2, -8, nh, d,
    );
    assert_refused(e, "b >= 0 && n >= 0 && nh >= 0 && d >= 0", &stream);
    let back = PermuteKernelBackward::load(&m).unwrap();
    let mut dqkv = zeros(&stream, 3 * each);
    ok(back.launch(&stream, config, &mut dqkv, &q, &kk, &v, b, nn, nh, d));
    let e = back.launch(
        &stream,
        config,
        &mut dqkv,
        &q,
        &kk,
        &v.slice(..each - 1),
        b,
        nn,
        nh,
        d,
    );
    assert_refused(e, "dv.len() >= b * nh * n * d", &stream);
    let unpermute = UnpermuteKernel::load(&m).unwrap();
    let mut flat = zeros(&stream, each);
    ok(unpermute.launch(&stream, config, &q, &mut flat, b, nn, nh, d));
    let e = unpermute.launch(&stream, config, &q, &mut flat, b, nn + 1, nh, d);
    assert_refused(e, "inp.len() >= b * nh * n * d", &stream);
    let unback = UnpermuteKernelBackward::load(&m).unwrap();
    ok(unback.launch(&stream, config, &mut q, &flat, b, nn, nh, d));
    let e = unback.launch(&stream, config, &mut q, &flat, b, nn, nh, d + 1);
    assert_refused(e, "dinp.len() >= b * nh * n * d", &stream);

    // Elementwise kernels over 1000 elements.
    let n = 1000i32;
    let config = Config::for_elements(1000, 256);
    let (x, y) = (filled(&stream, 1000), filled(&stream, 1000));
    let mut out = zeros(&stream, 1000);
    let residual = ResidualForwardKernel::load(&m).unwrap();
    ok(residual.launch(&stream, config, &mut out, &x, &y, n));
    let (hx, hout) = (
        stream.clone_dtoh(&x).unwrap(),
        stream.clone_dtoh(&out).unwrap(),
    );
    assert!(hx.iter().zip(&hout).all(|(a, o)| 2.0 * a == *o));
    let e = residual.launch(&stream, config, &mut out, &x, &y.slice(..500), n);
    assert_refused(e, "inp2.len() >= n", &stream);
    let gelu = GeluForwardKernel::load(&m).unwrap();
    ok(gelu.launch(&stream, config, &mut out, &x, n));
    let e = gelu.launch(&stream, config, &mut out.slice_mut(1..), &x, n);
    assert_refused(e, "out.len() >= n", &stream);
    let gelu_back = GeluBackwardKernel::load(&m).unwrap();
    let mut dinp = zeros(&stream, 1000);
    ok(gelu_back.launch(&stream, config, &mut dinp, &x, &y, n));
    let e = gelu_back.launch(&stream, config, &mut dinp, &x, &y, n + 1);
    assert_refused(e, "dinp.len() >= n", &stream);

    // matmul_backward_bias_kernel4: B=2, T=8, OC=64; two blocks of 128 threads, 32 columns each.
    let bias_grad = MatmulBackwardBiasKernel4::load(&m).unwrap();
    let dout = stream.clone_htod(&vec![1.0f32; 2 * 8 * 64]).unwrap();
    let mut dbias = zeros(&stream, 64);
    let config = Config::new((2, 1, 1), (128, 1, 1)).shared::<f32>(128);
    ok(bias_grad.launch(&stream, config, &mut dbias, &dout, 2, 8, 64));
    assert_eq!(stream.clone_dtoh(&dbias).unwrap(), vec![16.0; 64]);
    let e = bias_grad.launch(
        &stream,
        Config::new((2, 1, 1), (128, 1, 1)),
        &mut dbias,
        &dout,
        2,
        8,
        64,
    );
    assert_refused(e, "config.shared_mem_bytes >= 4 * config.block.0", &stream);
    let e = bias_grad.launch(
        &stream,
        Config::new((3, 1, 1), (128, 1, 1)).shared::<f32>(128),
        &mut dbias,
        &dout,
        2,
        8,
        64,
    );
    assert_refused(e, "config.grid.0 * 32 <= oc", &stream);

    // layernorm_backward_kernel2: B=2, T=4, C=64; two warps per block, 2 * C floats of shared.
    let ln_back = LayernormBackwardKernel2::load(&m).unwrap();
    let (bt, c) = (8usize, 64usize);
    let (dout, inp, w) = (
        filled(&stream, bt * c),
        filled(&stream, bt * c),
        filled(&stream, c),
    );
    let (mean, rstd) = (
        filled(&stream, bt),
        stream.clone_htod(&vec![1.0f32; bt]).unwrap(),
    );
    let (mut dinp, mut dw, mut db) = (zeros(&stream, bt * c), zeros(&stream, c), zeros(&stream, c));
    let config = Config::new((4, 1, 1), (64, 1, 1)).shared::<f32>(128);
    ok(ln_back.launch(
        &stream, config, &mut dinp, &mut dw, &mut db, &dout, &inp, &w, &mean, &rstd, 2, 4, 64,
    ));
    let e = ln_back.launch(
        &stream,
        Config::new((4, 1, 1), (64, 1, 1)).shared::<f32>(64),
        &mut dinp,
        &mut dw,
        &mut db,
        &dout,
        &inp,
        &w,
        &mean,
        &rstd,
        2,
        4,
        64,
    );
    assert_refused(e, "config.shared_mem_bytes >= 8 * c", &stream);
    let e = ln_back.launch(
        &stream,
        config,
        &mut dinp,
        &mut dw,
        &mut db,
        &dout,
        &inp,
        &w,
        &mean.slice(..4),
        &rstd,
        2,
        4,
        64,
    );
    assert_refused(e, "mean.len() >= b * t", &stream);

    // softmax_autoregressive_backward_kernel: two 8-by-8 matrices, blocks of 256 threads.
    let sm_back = SoftmaxAutoregressiveBackwardKernel::load(&m).unwrap();
    let (att, datt) = (filled(&stream, 2 * 64), filled(&stream, 2 * 64));
    let mut dpre = zeros(&stream, 2 * 64);
    let config = Config::new((2, 2, 1), (256, 1, 1));
    ok(sm_back.launch(&stream, config, &mut dpre, &datt, &att, 1, 8, 64, 0.125));
    let e = sm_back.launch(
        &stream,
        Config::new((2, 3, 1), (256, 1, 1)),
        &mut dpre,
        &datt,
        &att,
        1,
        8,
        64,
        0.125,
    );
    assert_refused(e, "dpreatt.len() >= config.grid.1 * t * t", &stream);
    let e = sm_back.launch(
        &stream,
        Config::new((2, 2, 1), (128, 1, 1)),
        &mut dpre,
        &datt,
        &att,
        1,
        8,
        64,
        0.125,
    );
    assert_refused(
        e,
        "config.block.0 == 256 && config.block.1 == 1 && config.block.2 == 1",
        &stream,
    );

    // adamw_kernel2 over 1000 parameters.
    let adamw = AdamwKernel2::load(&m).unwrap();
    let (mut p, g) = (filled(&stream, 1000), filled(&stream, 1000));
    let (mut m1, mut v1) = (zeros(&stream, 1000), zeros(&stream, 1000));
    let config = Config::for_elements(1000, 256);
    ok(adamw.launch(
        &stream, config, &mut p, &g, &mut m1, &mut v1, 1000, 1e-3, 0.9, 0.999, 0.1, 0.001, 1e-8,
        0.0,
    ));
    let e = adamw.launch(
        &stream,
        config,
        &mut p,
        &g,
        &mut m1.slice_mut(..999),
        &mut v1,
        1000,
        1e-3,
        0.9,
        0.999,
        0.1,
        0.001,
        1e-8,
        0.0,
    );
    assert_refused(e, "m_memory.len() >= num_parameters", &stream);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn library_launchers_check_contracts_on_every_device() {
    let library = cuda_kernel::Library::load_ptx(kernels::VECTOR_ADD_PTX).unwrap();
    let add = VectorAdd::load_library(&library).unwrap();
    for ordinal in 0..cuda_kernel::driver::device_count().unwrap() {
        let ctx = cuda_kernel::driver::context(ordinal).unwrap();
        let stream = ctx.new_stream().unwrap();
        let (a, b, mut c) = (filled(&stream, 64), filled(&stream, 64), zeros(&stream, 64));
        add.launch(&stream, Config::for_elements(64, 64), &a, &b, &mut c, 64)
            .unwrap();
        stream.synchronize().unwrap();
        let e = add.launch(&stream, Config::for_elements(65, 64), &a, &b, &mut c, 65);
        assert_refused(e, "a.len() >= n", &stream);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn plans_check_contracts_when_they_record_and_update() {
    let (ctx, stream) = support::gpu();
    let add =
        VectorAdd::load(&cuda_kernel::driver::load_ptx(&ctx, kernels::VECTOR_ADD_PTX).unwrap())
            .unwrap();
    let (a, b, mut c) = (
        filled(&stream, 1000),
        filled(&stream, 1000),
        zeros(&stream, 1000),
    );
    let mut plan = Plan::new(&stream).unwrap();
    let (ar, br, cw) = (plan.input(&a), plan.input(&b), plan.output(&mut c));
    let config = Config::for_elements(1000, 256);
    // SAFETY: the contract is checked; vector_add touches indices below n.
    let node = unsafe { plan.record(&add, config, (ar, br, cw, 1000)) }.unwrap();
    let e = unsafe { plan.record(&add, config, (ar, br, cw, 1001)) }.map(|_| ());
    assert_refused(e, "a.len() >= n", &stream);
    let e = unsafe { plan.set(&node, config, (ar, br, cw, 2000)) };
    assert_refused(e, "a.len() >= n", &stream);
    plan.replay(&stream).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(plan.len(), 1);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn candle_kernels_launch_safely_within_their_contracts() {
    let (ctx, stream) = support::gpu();
    let ok = |r: Result<(), Error>| {
        r.unwrap();
        stream.synchronize().unwrap();
    };
    let fills = cuda_kernel::driver::load_ptx(&ctx, CANDLE_FILL_PTX).unwrap();

    let fill = Fill::<f32>::load(&fills).unwrap();
    let mut buf = zeros(&stream, 1000);
    let config = Config::for_elements(1000, 256);
    ok(fill.launch(&stream, config, &mut buf, 1.5, 1000));
    assert!(stream.clone_dtoh(&buf).unwrap().iter().all(|v| *v == 1.5));
    let e = fill.launch(&stream, config, &mut buf, 1.5, 1001);
    assert_refused(e, "buf.len() >= numel", &stream);

    let copy = Copy2d::<f32>::load(&fills).unwrap();
    let src = filled(&stream, 40);
    let mut dst = zeros(&stream, 32);
    ok(copy.launch(
        &stream,
        Config::for_elements(24, 32),
        &src,
        &mut dst,
        4,
        6,
        10,
        8,
    ));
    let (hs, hd) = (
        stream.clone_dtoh(&src).unwrap(),
        stream.clone_dtoh(&dst).unwrap(),
    );
    assert_eq!(hd[3 * 8 + 5], hs[3 * 10 + 5]);
    let mut short = zeros(&stream, 29);
    let e = copy.launch(
        &stream,
        Config::for_elements(24, 32),
        &src,
        &mut short,
        4,
        6,
        10,
        8,
    );
    assert_refused(
        e,
        "d1 * d2 == 0 || dst.len() >= (d1 - 1) * dst_s + d2",
        &stream,
    );

    let set = ConstSet::<f32>::load(&fills).unwrap();
    let mut out = zeros(&stream, 100);
    ok(set.launch(
        &stream,
        Config::for_elements(100, 64),
        100,
        1,
        &Null,
        2.0,
        &mut out,
    ));
    let info = stream.clone_htod(&[100usize, 1]).unwrap();
    let e = set.launch(
        &stream,
        Config::for_elements(100, 64),
        100,
        1,
        &Some(info),
        2.0,
        &mut out,
    );
    assert_refused(e, "info.is_null()", &stream);

    let reduces = cuda_kernel::driver::load_ptx(&ctx, CANDLE_REDUCE_PTX).unwrap();
    let (rows, cols) = (8usize, 64i32);
    let x = filled(&stream, rows * 64);
    let mut y = zeros(&stream, rows * 64);

    let softmax = Softmax::<f32>::load(&reduces).unwrap();
    ok(softmax.launch(
        &stream,
        Config::new((8, 1, 1), (1, 32, 1)),
        &x,
        &mut y,
        cols,
    ));
    let hy = stream.clone_dtoh(&y).unwrap();
    let row_sum: f32 = hy[64..128].iter().sum();
    assert!((row_sum - 1.0).abs() < 1e-4, "{row_sum}");
    let e = softmax.launch(
        &stream,
        Config::new((9, 1, 1), (1, 32, 1)),
        &x,
        &mut y,
        cols,
    );
    assert_refused(e, "src.len() >= config.grid.0 * n_cols", &stream);

    let rms = Rmsnorm::<f32>::load(&reduces).unwrap();
    let alpha = filled(&stream, 64);
    let config = Config::new((8, 1, 1), (32, 1, 1));
    ok(rms.launch(&stream, config, &x, &mut y, &alpha, cols, 32, 1e-5));
    ok(rms.launch(&stream, config, &x, &mut y, &Null, cols, 32, 1e-5));
    let e = rms.launch(
        &stream,
        Config::new((8, 1, 1), (48, 1, 1)),
        &x,
        &mut y,
        &alpha,
        cols,
        48,
        1e-5,
    );
    assert_refused(e, "block_size % 32 == 0", &stream);

    let ln = Layernorm::<f32>::load(&reduces).unwrap();
    ok(ln.launch(&stream, config, &x, &mut y, &alpha, &alpha, cols, 32, 1e-5));
    let e = ln.launch(
        &stream,
        config,
        &x,
        &mut y,
        &alpha.slice(..63),
        &Null,
        cols,
        32,
        1e-5,
    );
    assert_refused(e, "alpha.is_null() || alpha.len() >= n_cols", &stream);

    // Rotary embeddings: 4 rows of 16 values; cos and sin of 8 (one table) or per batch.
    let (src, cos, sin) = (
        filled(&stream, 128),
        filled(&stream, 32),
        filled(&stream, 32),
    );
    let mut dst = zeros(&stream, 128);
    let rope_i = RopeI::<f32>::load(&reduces).unwrap();
    ok(rope_i.launch(
        &stream,
        Config::for_elements(32, 32),
        &src,
        &cos.slice(..8),
        &sin,
        &mut dst,
        4,
        16,
        0,
    ));
    let e = rope_i.launch(
        &stream,
        Config::for_elements(32, 32),
        &src,
        &cos.slice(..7),
        &sin,
        &mut dst,
        4,
        16,
        0,
    );
    assert_refused(
        e,
        "stride_b > 0 || cos.len() >= td / 2 && sin.len() >= td / 2",
        &stream,
    );
    let rope = Rope::<f32>::load(&reduces).unwrap();
    ok(rope.launch(
        &stream,
        Config::for_elements(32, 32),
        &src,
        &cos,
        &sin,
        &mut dst,
        4,
        16,
        8,
        0,
    ));
    let e = rope.launch(
        &stream,
        Config::for_elements(32, 32),
        &src,
        &cos,
        &sin,
        &mut dst,
        4,
        16,
        6,
        0,
    );
    assert_refused(e, "td % d == 0", &stream);
    let rope_thd = RopeThd::<f32>::load(&reduces).unwrap();
    ok(rope_thd.launch(
        &stream,
        Config::for_elements(64, 64),
        &src,
        &cos,
        &sin,
        &mut dst,
        2,
        4,
        2,
        8,
        64,
    ));
    let e = rope_thd.launch(
        &stream,
        Config::for_elements(64, 64),
        &src,
        &cos.slice(..31),
        &sin,
        &mut dst,
        2,
        4,
        2,
        8,
        64,
    );
    assert_refused(
        e,
        "stride_b == 0 || b * t * h * d == 0 || cos.len() >= ((b * t * h * d - 1) / stride_b + 1) * (t * d / 2)",
        &stream,
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_samples_kernels_launch_safely_within_their_contracts() {
    let (ctx, stream) = support::gpu();
    let m = cuda_kernel::driver::load_ptx(&ctx, CUDA_SAMPLES_PTX).unwrap();
    let ok = |r: Result<(), Error>| {
        r.unwrap();
        stream.synchronize().unwrap();
    };
    let add = SamplesVectorAdd::load(&m).unwrap();
    let (a, b, mut c) = (
        filled(&stream, 500),
        filled(&stream, 500),
        zeros(&stream, 500),
    );
    ok(add.launch(&stream, Config::for_elements(500, 128), &a, &b, &mut c, 500));
    let e = add.launch(&stream, Config::for_elements(500, 128), &a, &b, &mut c, 501);
    assert_refused(e, "a.len() >= num_elements", &stream);

    // A 96 by 64 matrix (width 96, height 64), as the sample launches its kernels: a block of
    // (32, 16) per 32 by 32 tile.
    let (w, h) = (96usize, 64usize);
    let host: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let idata = stream.clone_htod(&host).unwrap();
    let mut odata = zeros(&stream, w * h);
    let config = Config::new((3, 2, 1), (32, 16, 1));
    let (wi, hi) = (w as i32, h as i32);
    macro_rules! each {
        ($($k:ident: $transposes:expr),* $(,)?) => {$({
            let k = $k::load(&m).unwrap();
            ok(k.launch(&stream, config, &mut odata, &idata, wi, hi));
            if $transposes {
                let out = stream.clone_dtoh(&odata).unwrap();
                assert_eq!(out[5 * h + 7], host[7 * w + 5], stringify!($k));
            }
            let e = k.launch(&stream, Config::new((4, 2, 1), (32, 16, 1)), &mut odata, &idata, wi, hi);
            assert_refused(e, "config.grid.0 * 32 <= width", &stream);
            let e = k.launch(&stream, Config::new((3, 2, 1), (32, 32, 1)), &mut odata, &idata, wi, hi);
            assert_refused(e, "config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1", &stream);
            let e = k.launch(&stream, config, &mut odata, &idata.slice(1..), wi, hi);
            assert_refused(e, "idata.len() >= width * height", &stream);
        })*};
    }
    each!(
        Copy: false,
        CopySharedMem: false,
        TransposeNaive: true,
        TransposeCoalesced: true,
        TransposeNoBankConflicts: true,
        TransposeDiagonal: true,
        TransposeCoarseGrained: false,
    );
    // The fine-grained partial transpose writes inside only for height <= width.
    let fine = TransposeFineGrained::load(&m).unwrap();
    ok(fine.launch(&stream, config, &mut odata, &idata, wi, hi));
    let e = fine.launch(
        &stream,
        Config::new((2, 3, 1), (32, 16, 1)),
        &mut odata,
        &idata,
        hi,
        wi,
    );
    assert_refused(e, "height <= width", &stream);
}
