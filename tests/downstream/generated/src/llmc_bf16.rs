//! llm.c's bf16 training kernels (`kernels/cuda/llmc_bf16.cu`, its `llmc/*.cuh` headers with
//! `floatX = __nv_bfloat16`), through the declarations generated from those headers and two
//! declared by hand, launched as llm.c's host code launches them and compared with a CPU
//! reference. Tolerances are per kernel: exact for data movement; for arithmetic, what rounding
//! a float result to bf16 (8 significant bits: half a unit is 2^-9 of the value) allows, plus
//! the float arithmetic's own order of operations.

use cuda_kernel::cudarc::driver::CudaStream;
use cuda_kernel::half::bf16;
use cuda_kernel::{Config, Error, kernel};
use std::sync::Arc;

pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/cuda-kernel/llmc_bf16.rs"));
}

// Declared by hand (the generated block of llmc_bf16.cu leaves them out; llmc.cu's fp32 kernel
// of the same name stays generated): llm.c's `residual_forward_kernel` and
// `gelu_forward_kernel2`, as the headers write them, with contracts on the memory a launch
// touches (x128: 8 bf16 per thread).
#[kernel(ptx = "$OUT_DIR/llmc_bf16.ptx")]
unsafe extern "C" {
    #[kernel(cpp)]
    #[requires(out.len() >= config.threads() * 8, inp1.len() >= config.threads() * 8, inp2.len() >= config.threads() * 8)]
    pub fn residual_forward_kernel(out: *mut bf16, inp1: *const bf16, inp2: *const bf16);

    #[kernel(cpp)]
    #[requires(out.len() >= config.threads() * 8, inp.len() >= config.threads() * 8)]
    pub fn gelu_forward_kernel2(out: *mut bf16, inp: *const bf16);
}

/// Inputs of a fixed pattern in [-2, 2), as bf16.
fn pattern(n: usize, seed: usize) -> Vec<bf16> {
    (0..n)
        .map(|i| bf16::from_f32((((i * 7919 + seed * 104729) % 1000) as f32) / 250.0 - 2.0))
        .collect()
}

fn f(v: &[bf16]) -> Vec<f32> {
    v.iter().map(|x| x.to_f32()).collect()
}

/// Every `got[i]` within `abs + rel * |want[i]|` of `want[i]`; the largest error seen.
fn close(what: &str, got: &[f32], want: &[f32], abs: f32, rel: f32) -> f32 {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let mut worst = 0.0f32;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let err = (g - w).abs();
        assert!(
            err <= abs + rel * w.abs(),
            "{what}: element {i} is {g}, the CPU's {w} (error {err}, allowed {abs} + {rel} * |{w}|)"
        );
        worst = worst.max(err);
    }
    worst
}

const BF16_HALF_ULP: f32 = 1.0 / 256.0; // relative: 2^-9 rounding, doubled for the float ops

fn gelu(x: f32) -> f32 {
    let s = (2.0f32 / std::f32::consts::PI).sqrt();
    0.5 * x * (1.0 + (s * (x + 0.044715 * x * x * x)).tanh())
}

fn gelu_grad(x: f32) -> f32 {
    let s = (2.0f32 / std::f32::consts::PI).sqrt();
    let arg = s * (x + 0.044715 * x * x * x);
    let sech = 1.0 / (arg.cosh() * arg.cosh());
    0.5 * (1.0 + arg.tanh()) + x * 0.5 * sech * s * (1.0 + 3.0 * 0.044715 * x * x)
}

/// Launches each kernel and compares it with the CPU; prints one line per kernel.
pub fn run(ctx: &Arc<cuda_kernel::cudarc::driver::CudaContext>) -> Result<(), Error> {
    let stream: Arc<CudaStream> = ctx.default_stream();
    let k = generated::Kernels::load(ctx)?; // every generated declaration checked at load
    let module = k.module.clone();
    let report = |name: &str, worst: f32, tol: &str| println!("llmc bf16: {name}: ok (largest error {worst:e}, allowed {tol})");

    // encoder_forward_kernel3: out[b,t,:] = wte[inp[b,t],:] + wpe[t,:], rounded to bf16.
    let (b, t, c, v) = (2usize, 16usize, 64usize, 50usize);
    let tokens: Vec<i32> = (0..b * t).map(|i| ((i * 13) % v) as i32).collect();
    let wte = pattern(v * c, 1);
    let wpe = pattern(t * c, 2);
    let (d_tokens, d_wte, d_wpe) = (stream.clone_htod(&tokens)?, stream.clone_htod(&wte)?, stream.clone_htod(&wpe)?);
    let mut out = stream.alloc_zeros::<bf16>(b * t * c)?;
    let n = b * t * c;
    let config = Config::new(((n as u32).div_ceil(256 * 8), 1, 1), (256, 1, 1));
    unsafe { k.encoder_forward_kernel3.launch(&stream, config, &mut out, &d_tokens, &d_wte, &d_wpe, b as i32, t as i32, c as i32)? };
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let (bt, ch) = (i / c, i % c);
            let tok = tokens[bt] as usize;
            bf16::from_f32(wte[tok * c + ch].to_f32() + wpe[(bt % t) * c + ch].to_f32()).to_f32()
        })
        .collect();
    report("encoder_forward_kernel3", close("encoder_forward_kernel3", &f(&stream.clone_dtoh(&out)?), &want, 0.0, 0.0), "exact");

    // residual_forward_kernel (by hand, contract-checked): out = inp1 + inp2.
    let n = 256 * 8 * 3;
    let (x1, x2) = (pattern(n, 3), pattern(n, 4));
    let (d1, d2) = (stream.clone_htod(&x1)?, stream.clone_htod(&x2)?);
    let mut out = stream.alloc_zeros::<bf16>(n)?;
    let residual = ResidualForwardKernel::load(&module)?;
    residual.launch(&stream, Config::new((3, 1, 1), (256, 1, 1)), &mut out, &d1, &d2)?;
    let want: Vec<f32> = x1.iter().zip(&x2).map(|(a, b)| bf16::from_f32(a.to_f32() + b.to_f32()).to_f32()).collect();
    report("residual_forward_kernel (by hand)", close("residual_forward_kernel", &f(&stream.clone_dtoh(&out)?), &want, 0.0, 0.0), "exact");

    // gelu_forward_kernel2 (by hand) and the generated one: the same kernel, the same bits.
    let n = 512 * 8 * 2;
    let x = pattern(n, 5);
    let d_x = stream.clone_htod(&x)?;
    let mut out = stream.alloc_zeros::<bf16>(n)?;
    let gelu_by_hand = GeluForwardKernel2::load(&module)?;
    gelu_by_hand.launch(&stream, Config::new((2, 1, 1), (512, 1, 1)), &mut out, &d_x)?;
    let got = stream.clone_dtoh(&out)?;
    let want: Vec<f32> = x.iter().map(|v| gelu(v.to_f32())).collect();
    let worst = close("gelu_forward_kernel2", &f(&got), &want, 1e-3, BF16_HALF_ULP);
    report("gelu_forward_kernel2 (by hand)", worst, "1e-3 + 2^-8 relative");

    // gelu_backward_inplace_kernel: d = gelu'(x) * d.
    let n = 128 * 8 * 4;
    let (x, d) = (pattern(n, 6), pattern(n, 7));
    let d_x = stream.clone_htod(&x)?;
    let mut d_d = stream.clone_htod(&d)?;
    unsafe { k.gelu_backward_inplace_kernel.launch(&stream, Config::new((4, 1, 1), (128, 1, 1)), &mut d_d, &d_x)? };
    let want: Vec<f32> = x.iter().zip(&d).map(|(x, d)| gelu_grad(x.to_f32()) * d.to_f32()).collect();
    report("gelu_backward_inplace_kernel", close("gelu_backward_inplace_kernel", &f(&stream.clone_dtoh(&d_d)?), &want, 1e-3, BF16_HALF_ULP), "1e-3 + 2^-8 relative");

    // layernorm_forward_kernel3: one warp per row; mean and rstd in float.
    let (rows, c) = (37usize, 96usize);
    let (x, w, bias) = (pattern(rows * c, 8), pattern(c, 9), pattern(c, 10));
    let (d_x, d_w, d_b) = (stream.clone_htod(&x)?, stream.clone_htod(&w)?, stream.clone_htod(&bias)?);
    let mut out = stream.alloc_zeros::<bf16>(rows * c)?;
    let mut mean = stream.alloc_zeros::<f32>(rows)?;
    let mut rstd = stream.alloc_zeros::<f32>(rows)?;
    let config = Config::new(((rows as u32 * 32).div_ceil(256), 1, 1), (256, 1, 1));
    unsafe { k.layernorm_forward_kernel3.launch(&stream, config, &mut out, &mut mean, &mut rstd, &d_x, &d_w, &d_b, rows as i32, c as i32)? };
    let (mut want_out, mut want_mean, mut want_rstd) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rows {
        let row: Vec<f32> = x[r * c..(r + 1) * c].iter().map(|v| v.to_f32()).collect();
        let m = row.iter().sum::<f32>() / c as f32;
        let var = row.iter().map(|v| (v - m) * (v - m)).sum::<f32>() / c as f32;
        let s = 1.0 / (var + 1e-5).sqrt();
        want_mean.push(m);
        want_rstd.push(s);
        want_out.extend(row.iter().enumerate().map(|(i, v)| s * (v - m) * w[i].to_f32() + bias[i].to_f32()));
    }
    close("layernorm mean", &stream.clone_dtoh(&mean)?, &want_mean, 1e-5, 1e-5);
    close("layernorm rstd", &stream.clone_dtoh(&rstd)?, &want_rstd, 0.0, 1e-4);
    report("layernorm_forward_kernel3", close("layernorm out", &f(&stream.clone_dtoh(&out)?), &want_out, 1e-2, BF16_HALF_ULP), "mean 1e-5, rstd 1e-4 relative, out 1e-2 + 2^-8 relative");

    // permute_kernel then unpermute_kernel: (B, N, 3, NH, d) to q, k, v of (B, NH, N, d) and back.
    let (b, nn, nh, d) = (2usize, 8usize, 4usize, 16usize);
    let total = b * nh * nn * d;
    let inp = pattern(3 * total, 11);
    let d_inp = stream.clone_htod(&inp)?;
    let (mut q, mut kk, mut vv) = (stream.alloc_zeros::<bf16>(total)?, stream.alloc_zeros::<bf16>(total)?, stream.alloc_zeros::<bf16>(total)?);
    let config = Config::for_elements(total as u32, 256);
    unsafe { k.permute_kernel.launch(&stream, config, &mut q, &mut kk, &mut vv, &d_inp, b as i32, nn as i32, nh as i32, d as i32)? };
    let (gq, gk, gv) = (stream.clone_dtoh(&q)?, stream.clone_dtoh(&kk)?, stream.clone_dtoh(&vv)?);
    for idx in 0..total {
        let (bi, rest) = (idx / (nh * nn * d), idx % (nh * nn * d));
        let (h, rest) = (rest / (nn * d), rest % (nn * d));
        let (n_, d_) = (rest / d, rest % d);
        let at = bi * nn * 3 * nh * d + n_ * 3 * nh * d + h * d + d_;
        assert_eq!((gq[idx], gk[idx], gv[idx]), (inp[at], inp[at + nh * d], inp[at + 2 * nh * d]), "permute_kernel at {idx}");
    }
    let mut back = stream.alloc_zeros::<bf16>(total)?;
    unsafe { k.unpermute_kernel.launch(&stream, config, &mut q, &mut back, b as i32, nn as i32, nh as i32, d as i32)? };
    let gb = stream.clone_dtoh(&back)?;
    for idx in 0..total {
        let (bi, rest) = (idx / (nh * nn * d), idx % (nh * nn * d));
        let (h, rest) = (rest / (nn * d), rest % (nn * d));
        let (n_, d_) = (rest / d, rest % d);
        assert_eq!(gb[bi * nh * nn * d + n_ * nh * d + h * d + d_], gq[idx], "unpermute_kernel at {idx}");
    }
    report("permute_kernel, unpermute_kernel", 0.0, "exact");

    // permute_kernel_backward and unpermute_kernel_backward: the same moves, backwards.
    let mut dinp = stream.alloc_zeros::<bf16>(3 * total)?;
    unsafe { k.permute_kernel_backward.launch(&stream, config, &mut dinp, &q, &kk, &vv, b as i32, nn as i32, nh as i32, d as i32)? };
    assert_eq!(stream.clone_dtoh(&dinp)?, inp, "permute_kernel_backward undoes permute_kernel");
    let mut undone = stream.alloc_zeros::<bf16>(total)?;
    unsafe { k.unpermute_kernel_backward.launch(&stream, config, &mut undone, &back, b as i32, nn as i32, nh as i32, d as i32)? };
    assert_eq!(stream.clone_dtoh(&undone)?, gq, "unpermute_kernel_backward undoes unpermute_kernel");
    report("permute_kernel_backward, unpermute_kernel_backward", 0.0, "exact");

    // layernorm_forward_kernel6 and fused_residual_forward_kernel5: a warp per row, blockDim.y
    // rows a block, weights, biases and the rows in (2 + blockDim.y) * C bf16 of shared memory
    // (llm.c's launch). 40 rows: a multiple of blockDim.y, as the residual kernel's guard
    // (`idx > N`) lets row N through otherwise.
    let (rows, c) = (40usize, 256usize);
    let (x1, x2, w, bias) = (pattern(rows * c, 20), pattern(rows * c, 21), pattern(c, 22), pattern(c, 23));
    let (d1, d2, d_w, d_b) = (stream.clone_htod(&x1)?, stream.clone_htod(&x2)?, stream.clone_htod(&w)?, stream.clone_htod(&bias)?);
    let smem = ((2 + 8) * c * 2) as u32;
    let config = Config::new(((rows as u32).div_ceil(8), 1, 1), (32, 8, 1)).shared_mem(smem);
    let norm = |x: &[f32]| -> (Vec<f32>, f32, f32) {
        let m = x.iter().sum::<f32>() / x.len() as f32;
        let var = x.iter().map(|v| (v - m) * (v - m)).sum::<f32>() / x.len() as f32;
        let s = 1.0 / (var + 1e-5).sqrt();
        let out = x.iter().enumerate().map(|(i, v)| s * (v - m) * w[i].to_f32() + bias[i].to_f32()).collect();
        (out, m, s)
    };
    let mut out = stream.alloc_zeros::<bf16>(rows * c)?;
    let (mut mean, mut rstd) = (stream.alloc_zeros::<f32>(rows)?, stream.alloc_zeros::<f32>(rows)?);
    unsafe { k.layernorm_forward_kernel6.launch(&stream, config, &mut out, &mut mean, &mut rstd, &d1, &d_w, &d_b, rows as i32, c as i32)? };
    let (mut want, mut want_m, mut want_s) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rows {
        let (o, m, s) = norm(&f(&x1[r * c..(r + 1) * c]));
        want.extend(o);
        want_m.push(m);
        want_s.push(s);
    }
    close("layernorm6 mean", &stream.clone_dtoh(&mean)?, &want_m, 1e-5, 1e-5);
    close("layernorm6 rstd", &stream.clone_dtoh(&rstd)?, &want_s, 0.0, 1e-4);
    report("layernorm_forward_kernel6", close("layernorm6 out", &f(&stream.clone_dtoh(&out)?), &want, 1e-2, BF16_HALF_ULP), "mean 1e-5, rstd 1e-4 relative, out 1e-2 + 2^-8 relative");
    let mut residual = stream.alloc_zeros::<bf16>(rows * c)?;
    let mut normed = stream.alloc_zeros::<bf16>(rows * c)?;
    unsafe { k.fused_residual_forward_kernel5.launch(&stream, config, &mut residual, &mut normed, &mut mean, &mut rstd, &d1, &d2, &d_w, &d_b, rows as i32, c as i32)? };
    let summed: Vec<f32> = x1.iter().zip(&x2).map(|(a, b)| bf16::from_f32(a.to_f32() + b.to_f32()).to_f32()).collect();
    assert_eq!(f(&stream.clone_dtoh(&residual)?), summed, "fused_residual_forward_kernel5 residual");
    let mut want = Vec::new();
    for r in 0..rows {
        want.extend(norm(&summed[r * c..(r + 1) * c]).0);
    }
    report("fused_residual_forward_kernel5", close("fused residual normed", &f(&stream.clone_dtoh(&normed)?), &want, 1e-2, BF16_HALF_ULP), "residual exact, normed 1e-2 + 2^-8 relative");

    // wpe_backward_kernel: dwpe[t, c] += the sum over the batch of dout[b, t, c], stochastically
    // rounded to bf16.
    let (b, t, c) = (3usize, 16usize, 64usize);
    let (dout, dwpe0) = (pattern(b * t * c, 24), pattern(t * c, 25));
    let tokens = stream.clone_htod(&vec![0i32; b * t])?;
    let d_dout = stream.clone_htod(&dout)?;
    let mut d_dwpe = stream.clone_htod(&dwpe0)?;
    let n = (t * c / 8) as u32;
    unsafe { k.wpe_backward_kernel.launch(&stream, Config::new((n.div_ceil(256), 1, 1), (256, 1, 1)), &mut d_dwpe, &d_dout, &tokens, b as i32, t as i32, c as i32, 11)? };
    let got = stream.clone_dtoh(&d_dwpe)?;
    for i in 0..t * c {
        let sum: f32 = (0..b).map(|bi| dout[bi * t * c + i].to_f32()).sum::<f32>() + dwpe0[i].to_f32();
        let (lo, hi) = bracket(sum);
        assert!(got[i] == lo || got[i] == hi, "wpe_backward_kernel: {i} is {}, not {lo} or {hi} around {sum}", got[i]);
    }
    report("wpe_backward_kernel", 0.0, "one of the two bf16 values around the float sum");

    // softmax_forward_kernel5: causal softmax of (N, T, T) rows, scaled, one warp per row.
    let (rows_n, t) = (3usize, 32usize);
    let pre = pattern(rows_n * t * t, 12);
    let d_pre = stream.clone_htod(&pre)?;
    let mut att = stream.alloc_zeros::<bf16>(rows_n * t * t)?;
    let scale = 0.25f32;
    let config = Config::new((((rows_n * t * 32) as u32).div_ceil(256), 1, 1), (256, 1, 1));
    unsafe { k.softmax_forward_kernel5.launch(&stream, config, &mut att, scale, &d_pre, rows_n as i32, t as i32)? };
    let mut want = vec![0.0f32; rows_n * t * t];
    for row in 0..rows_n * t {
        let own = row % t;
        let x: Vec<f32> = pre[row * t..row * t + own + 1].iter().map(|v| v.to_f32()).collect();
        let max = x.iter().cloned().fold(f32::MIN, f32::max);
        let sum: f32 = x.iter().map(|v| (scale * (v - max)).exp()).sum();
        for (i, v) in x.iter().enumerate() {
            want[row * t + i] = (scale * (v - max)).exp() / sum;
        }
    }
    report("softmax_forward_kernel5", close("softmax_forward_kernel5", &f(&stream.clone_dtoh(&att)?), &want, 1e-4, BF16_HALF_ULP), "1e-4 + 2^-8 relative");

    // softmax_autoregressive_backward_inplace_kernel: datt becomes dpreatt, row by row:
    // scale * att * (datt - sum(att * datt)) up to the diagonal, zero after; grid (T / 4, B * NH).
    let datt0 = pattern(rows_n * t * t, 26);
    let mut d_datt = stream.clone_htod(&datt0)?;
    let att_host = f(&stream.clone_dtoh(&att)?);
    unsafe { k.softmax_autoregressive_backward_inplace_kernel.launch(&stream, Config::new(((t / 4) as u32, rows_n as u32, 1), (256, 1, 1)), &mut d_datt, &att, 1, t as i32, 0, scale)? };
    let mut want = vec![0.0f32; rows_n * t * t];
    for row in 0..rows_n * t {
        let own = row % t;
        let sum: f32 = (0..=own).map(|i| att_host[row * t + i] * datt0[row * t + i].to_f32()).sum();
        for i in 0..=own {
            want[row * t + i] = scale * att_host[row * t + i] * (datt0[row * t + i].to_f32() - sum);
        }
    }
    report("softmax_autoregressive_backward_inplace_kernel", close("softmax backward", &f(&stream.clone_dtoh(&d_datt)?), &want, 1e-3, BF16_HALF_ULP), "1e-3 + 2^-8 relative");

    // copy_and_cast_kernel<float, bf16> and <bf16, float>, two slices each (blockIdx.y strides).
    let n = 1000usize;
    let src = pattern(2 * n, 13);
    let d_src = stream.clone_htod(&src)?;
    let mut wide = stream.alloc_zeros::<f32>(2 * n)?;
    let to_f32 = generated::CopyAndCastKernel::<f32, bf16>::load(&module)?;
    let config = Config::new(((n as u32).div_ceil(256), 2, 1), (256, 1, 1));
    unsafe { to_f32.launch(&stream, config, &mut wide, &d_src, n, n as isize, n as isize)? };
    let wide_host = stream.clone_dtoh(&wide)?;
    assert_eq!(wide_host, f(&src), "copy_and_cast_kernel<float, bf16>");
    report("copy_and_cast_kernel<float, bf16>", 0.0, "exact");

    // global_norm_squared_kernel<bf16> into per-block partial sums, then
    // global_norm_aggregate_kernel; and global_sum_single_block_kernel<float>.
    let n = 100_000usize;
    let x = pattern(n, 14);
    let d_x = stream.clone_htod(&x)?;
    let blocks = 64usize;
    let mut partial = stream.alloc_zeros::<f32>(blocks)?;
    let norm = generated::GlobalNormSquaredKernel::<bf16>::load(&module)?;
    unsafe { norm.launch(&stream, Config::new((blocks as u32, 1, 1), (512, 1, 1)), &mut partial, &d_x, n, 0)? };
    unsafe { k.global_norm_aggregate_kernel.launch(&stream, Config::new((1, 1, 1), (1024, 1, 1)), &mut partial, blocks)? };
    let got = stream.clone_dtoh(&partial)?[0];
    let want: f64 = x.iter().map(|v| (v.to_f32() as f64).powi(2)).sum();
    report("global_norm_squared_kernel<bf16> + global_norm_aggregate_kernel", close("global norm", &[got], &[want as f32], 0.0, 1e-5), "1e-5 relative");
    let wide = stream.clone_htod(&f(&x))?;
    let mut sum = stream.alloc_zeros::<f32>(1)?;
    let global_sum = generated::GlobalSumSingleBlockKernel::<f32>::load(&module)?;
    unsafe { global_sum.launch(&stream, Config::new((1, 1, 1), (1024, 1, 1)), &mut sum, &wide, n)? };
    let want: f64 = x.iter().map(|v| v.to_f32() as f64).sum();
    report("global_sum_single_block_kernel<float>", close("global sum", &stream.clone_dtoh(&sum)?, &[want as f32], 1e-2, 1e-5), "1e-2 + 1e-5 relative");

    // adamw_kernel3<bf16, bf16> with float master weights, one step: m, v and the master in
    // float as the CPU computes them; the bf16 parameter the master stochastically rounded (one
    // of the two bf16 values around it).
    let n = 5000usize;
    let (params, grads) = (pattern(n, 15), pattern(n, 16));
    let master: Vec<f32> = f(&params).iter().map(|p| p + 1e-3).collect();
    let (m0, v0) = (vec![0.01f32; n], vec![0.02f32; n]);
    let mut d_params = stream.clone_htod(&params)?;
    let mut d_master = stream.clone_htod(&master)?;
    let mut d_grads = stream.clone_htod(&grads)?;
    let (mut d_m, mut d_v) = (stream.clone_htod(&m0)?, stream.clone_htod(&v0)?);
    let (lr, b1, b2, eps, wd, step) = (1e-3f32, 0.9f32, 0.95f32, 1e-8f32, 0.1f32, 3);
    let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
    let adamw = generated::AdamwKernel3::<bf16, bf16>::load(&module)?;
    let config = Config::new(((n as u32).div_ceil(512), 1, 1), (512, 1, 1));
    unsafe { adamw.launch(&stream, config, &mut d_params, &mut d_master, &mut d_grads, &mut d_m, &mut d_v, n, 0, 0, 0, lr, b1, b2, c1, c2, eps, wd, 1.0, 42)? };
    let (gp, gmaster, gm, gv) = (stream.clone_dtoh(&d_params)?, stream.clone_dtoh(&d_master)?, stream.clone_dtoh(&d_m)?, stream.clone_dtoh(&d_v)?);
    let (mut want_m, mut want_v, mut want_master) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let g = grads[i].to_f32();
        let m = b1 * m0[i] + (1.0 - b1) * g;
        let v = b2 * v0[i] + (1.0 - b2) * g * g;
        let p = master[i] - lr * ((m / c1) / ((v / c2).sqrt() + eps) + wd * master[i]);
        want_m.push(m);
        want_v.push(v);
        want_master.push(p);
        let (lo, hi) = bracket(p);
        assert!(gp[i] == lo || gp[i] == hi, "adamw_kernel3: parameter {i} is {}, not one of the bf16 values {lo}, {hi} around {p}", gp[i]);
    }
    close("adamw m", &gm, &want_m, 1e-7, 1e-5);
    close("adamw v", &gv, &want_v, 1e-7, 1e-5);
    report("adamw_kernel3<bf16, bf16>", close("adamw master", &gmaster, &want_master, 1e-6, 1e-5), "m, v, master 1e-5 relative; bf16 parameter one of the two around the master");

    // init_from_master_kernel<bf16>: the parameters, stochastically rounded from the master.
    let mut d_params = stream.alloc_zeros::<bf16>(n)?;
    let init = generated::InitFromMasterKernel::<bf16>::load(&module)?;
    unsafe { init.launch(&stream, config, &mut d_params, &mut d_master, n, 0, 0, 7)? };
    let gp = stream.clone_dtoh(&d_params)?;
    for i in 0..n {
        let (lo, hi) = bracket(gmaster[i]);
        assert!(gp[i] == lo || gp[i] == hi, "init_from_master_kernel: {i}");
    }
    report("init_from_master_kernel<bf16>", 0.0, "one of the two bf16 values around the master");

    // reduce_add_sum_kernel: dst[i] = sum over m rows of src[i + n * l], to bf16.
    let (n, m) = (256usize * 4, 5usize);
    let src: Vec<f32> = f(&pattern(n * m, 17));
    let d_src = stream.clone_htod(&src)?;
    let mut dst = stream.alloc_zeros::<bf16>(n)?;
    unsafe { k.reduce_add_sum_kernel.launch(&stream, Config::new(((n as u32).div_ceil(256 * 4), 1, 1), (256, 1, 1)), &mut dst, &d_src, n, m)? };
    let want: Vec<f32> = (0..n).map(|i| (0..m).map(|l| src[i + n * l]).sum()).collect();
    report("reduce_add_sum_kernel", close("reduce_add_sum_kernel", &f(&stream.clone_dtoh(&dst)?), &want, 1e-3, BF16_HALF_ULP), "1e-3 + 2^-8 relative");
    Ok(())
}

/// The two bf16 values around `x` (equal when `x` is one).
fn bracket(x: f32) -> (bf16, bf16) {
    let bits = x.to_bits();
    let down = f32::from_bits(bits & 0xffff_0000);
    let up = if down == x { down } else { f32::from_bits((bits & 0xffff_0000) + 0x1_0000) };
    let (a, b) = (bf16::from_f32(down), bf16::from_f32(up));
    if a.to_f32() <= b.to_f32() { (a, b) } else { (b, a) }
}
