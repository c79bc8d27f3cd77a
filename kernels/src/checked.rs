//! Kernels declared with contracts (`#[requires(...)]`): the conditions under which each launch
//! stays inside its memory, checked before every launch, so that their launchers are safe to
//! call. The repository's own kernels (declared without contracts in the crate root, where the
//! tests exercise the unsafe launchers), and llm.c's kernels as `train_gpt2_fp32.cu` writes
//! them (`kernels/cuda/llmc.cu`).
//!
//! Each contract is the kernel's indexing, read from its source: the lengths it reads and
//! writes, the launch shape it assumes, the shared memory it takes, and the `int` ranges its
//! index arithmetic stays in.
//!
//! ```no_run
//! use kernels::VECTOR_ADD_PTX;
//! use kernels::checked::VectorAdd;
//! use cuda_kernel::Config;
//!
//! let ctx = cuda_kernel::driver::context(0)?;
//! let stream = ctx.default_stream();
//! let add = VectorAdd::load(&cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?)?;
//! let a = stream.clone_htod(&[1.0f32; 1000])?;
//! let b = stream.clone_htod(&[2.0f32; 1000])?;
//! let mut c = stream.alloc_zeros::<f32>(1000)?;
//! add.launch(&stream, Config::for_elements(1000, 256), &a, &b, &mut c, 1000)?; // no unsafe
//! // Asking for more elements than `c` holds is refused before the GPU sees it.
//! assert!(add.launch(&stream, Config::for_elements(1001, 256), &a, &b, &mut c, 1001).is_err());
//! # Ok::<(), cuda_kernel::Error>(())
//! ```

use cuda_kernel::ffi::{c_long, size_t};
use cuda_kernel::kernel;

/// PTX of `kernels/cuda/llmc.cu`: llm.c's kernels, declared here with contracts.
pub const LLMC_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/llmc.ptx"));

#[kernel(ptx = "$OUT_DIR/vector_add.ptx", module = pub VectorAddKernels)]
unsafe extern "C" {
    /// `c[i] = a[i] + b[i]` for `i < n`.
    #[requires(a.len() >= n, b.len() >= n, c.len() >= n)]
    pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
}

#[kernel(ptx = "$OUT_DIR/templates.ptx", module = pub TemplateKernels)]
unsafe extern "C" {
    /// cuda-samples' `reduce0<T>`: one partial sum per block into `g_odata[blockIdx.x]`. Its
    /// tree reads `sdata[tid + s]` for `s < blockDim.x`, up to twice the block: the shared
    /// memory asked for covers that, whatever the block size.
    #[kernel(cpp)]
    #[requires(g_idata.len() >= n, g_odata.len() >= config.grid.0)]
    #[requires(config.shared_mem_bytes >= 2 * config.block.0 * size_of::<T>())]
    pub fn reduce0<T>(#[kernel(read_only)] g_idata: *mut T, g_odata: *mut T, n: u32);

    /// cuda-samples' `matrixMulCUDA<BLOCK_SIZE>`: `C = A * B` in `BLOCK_SIZE` tiles, one block
    /// per tile of `C`; `A` has `w_a` columns, `B` `w_b`, both multiples of the tile.
    #[kernel(cpp)]
    #[requires(config.block.0 == BLOCK_SIZE && config.block.1 == BLOCK_SIZE)]
    #[requires(w_a >= 0, w_a % BLOCK_SIZE == 0, w_b % BLOCK_SIZE == 0)]
    #[requires(config.grid.0 * BLOCK_SIZE <= w_b)]
    #[requires(a.len() >= config.grid.1 * BLOCK_SIZE * w_a, b.len() >= w_a * w_b)]
    #[requires(c.len() >= config.grid.1 * BLOCK_SIZE * w_b)]
    #[requires(config.grid.1 * BLOCK_SIZE * w_a <= 2147483647)]
    #[requires(config.grid.1 * BLOCK_SIZE * w_b <= 2147483647, w_a * w_b <= 2147483647)]
    pub fn matrixMulCUDA<const BLOCK_SIZE: i32>(
        c: *mut f32,
        #[kernel(read_only)] a: *mut f32,
        #[kernel(read_only)] b: *mut f32,
        w_a: i32,
        w_b: i32,
    );
}

#[kernel(ptx = "$OUT_DIR/llmc.ptx", module = pub LlmcKernels)]
unsafe extern "C" {
    /// One warp per row of `inp` (`n` rows of `c`): `out = (x - mean) * rstd * weight + bias`,
    /// with `mean` and `rstd` written where not NULL.
    #[kernel(cpp)]
    #[requires(n >= 0, c >= 0, n * c <= 2147483647, config.block_threads() % 32 == 0)]
    #[requires(out.len() >= n * c, inp.len() >= n * c, weight.len() >= c, bias.len() >= c)]
    #[requires(mean.is_null() || mean.len() >= n, rstd.is_null() || rstd.len() >= n)]
    pub fn layernorm_forward_kernel3(
        out: *mut f32,
        mean: *mut f32,
        rstd: *mut f32,
        inp: *const f32,
        weight: *const f32,
        bias: *const f32,
        n: i32,
        c: i32,
    );

    /// Splits `inp` (B, N, 3, NH, d) into `q`, `k`, `v` (B, NH, N, d).
    #[kernel(cpp)]
    #[requires(b >= 0 && n >= 0 && nh >= 0 && d >= 0, b * n * 3 * nh * d <= 2147483647)]
    #[requires(q.len() >= b * nh * n * d, k.len() >= b * nh * n * d, v.len() >= b * nh * n * d)]
    #[requires(inp.len() >= b * n * 3 * nh * d)]
    pub fn permute_kernel(
        q: *mut f32,
        k: *mut f32,
        v: *mut f32,
        inp: *const f32,
        b: i32,
        n: i32,
        nh: i32,
        d: i32,
    );

    /// `permute_kernel` backwards: `dq`, `dk`, `dv` into `dinp`.
    #[kernel(cpp)]
    #[requires(b >= 0 && n >= 0 && nh >= 0 && d >= 0, b * n * 3 * nh * d <= 2147483647)]
    #[requires(dq.len() >= b * nh * n * d, dk.len() >= b * nh * n * d)]
    #[requires(dv.len() >= b * nh * n * d, dinp.len() >= b * n * 3 * nh * d)]
    pub fn permute_kernel_backward(
        dinp: *mut f32,
        dq: *const f32,
        dk: *const f32,
        dv: *const f32,
        b: i32,
        n: i32,
        nh: i32,
        d: i32,
    );

    /// (B, NH, N, d) to (B, N, NH, d); `inp` is only read, though C declares it `float*`.
    #[kernel(cpp)]
    #[requires(b >= 0 && n >= 0 && nh >= 0 && d >= 0, b * nh * n * d <= 2147483647)]
    #[requires(inp.len() >= b * nh * n * d, out.len() >= b * nh * n * d)]
    pub fn unpermute_kernel(
        #[kernel(read_only)] inp: *mut f32,
        out: *mut f32,
        b: i32,
        n: i32,
        nh: i32,
        d: i32,
    );

    /// `unpermute_kernel` backwards.
    #[kernel(cpp)]
    #[requires(b >= 0 && n >= 0 && nh >= 0 && d >= 0, b * nh * n * d <= 2147483647)]
    #[requires(dinp.len() >= b * nh * n * d, dout.len() >= b * nh * n * d)]
    pub fn unpermute_kernel_backward(
        dinp: *mut f32,
        dout: *const f32,
        b: i32,
        n: i32,
        nh: i32,
        d: i32,
    );

    /// `out = inp1 + inp2` for `n` elements; the inputs are only read.
    #[kernel(cpp)]
    #[requires(out.len() >= n, inp1.len() >= n, inp2.len() >= n)]
    pub fn residual_forward_kernel(
        out: *mut f32,
        #[kernel(read_only)] inp1: *mut f32,
        #[kernel(read_only)] inp2: *mut f32,
        n: i32,
    );

    /// GELU (tanh approximation) of `n` elements.
    #[kernel(cpp)]
    #[requires(out.len() >= n, inp.len() >= n)]
    pub fn gelu_forward_kernel(out: *mut f32, inp: *const f32, n: i32);

    /// GELU's gradient for `n` elements.
    #[kernel(cpp)]
    #[requires(dinp.len() >= n, inp.len() >= n, dout.len() >= n)]
    pub fn gelu_backward_kernel(dinp: *mut f32, inp: *const f32, dout: *const f32, n: i32);

    /// `dbias += dout.sum((0, 1))`, 32 columns per block, with one float of dynamic shared
    /// memory per thread.
    #[kernel(cpp)]
    #[requires(b >= 0 && t >= 0, b * t * oc <= 2147483647, config.grid.0 * 32 <= oc)]
    #[requires(dbias.len() >= oc, dout.len() >= b * t * oc)]
    #[requires(config.block_threads() % 32 == 0, config.block.1 == 1 && config.block.2 == 1)]
    #[requires(config.shared_mem_bytes >= 4 * config.block.0)]
    pub fn matmul_backward_bias_kernel4(dbias: *mut f32, dout: *const f32, b: i32, t: i32, oc: i32);

    /// Layer norm's gradients, one warp per row, with `2 * c` floats of dynamic shared memory.
    #[kernel(cpp)]
    #[requires(b >= 0 && t >= 0 && c >= 0, b * t * c <= 2147483647)]
    #[requires(config.block_threads() % 32 == 0, config.shared_mem_bytes >= 8 * c)]
    #[requires(dinp.len() >= b * t * c, dout.len() >= b * t * c, inp.len() >= b * t * c)]
    #[requires(mean.len() >= b * t, rstd.len() >= b * t)]
    #[requires(weight.len() >= c, dweight.len() >= c, dbias.len() >= c)]
    pub fn layernorm_backward_kernel2(
        dinp: *mut f32,
        dweight: *mut f32,
        dbias: *mut f32,
        dout: *const f32,
        inp: *const f32,
        weight: *const f32,
        mean: *const f32,
        rstd: *const f32,
        b: i32,
        t: i32,
        c: i32,
    );

    /// Causal softmax's backward pass over `grid.1` matrices of `t` by `t`, four rows per block
    /// of 256 threads (the kernel's `BlockSize`).
    #[kernel(cpp)]
    #[requires(config.block.0 == 256 && config.block.1 == 1 && config.block.2 == 1, t >= 0)]
    #[requires(config.grid.1 * t * t <= 2147483647, dpreatt.len() >= config.grid.1 * t * t)]
    #[requires(datt.len() >= config.grid.1 * t * t, att.len() >= config.grid.1 * t * t)]
    pub fn softmax_autoregressive_backward_kernel(
        dpreatt: *mut f32,
        datt: *const f32,
        att: *const f32,
        b: i32,
        t: i32,
        c: i32,
        scale: f32,
    );

    /// One AdamW step over `num_parameters` parameters; the gradients are only read.
    #[kernel(cpp)]
    #[requires(params_memory.len() >= num_parameters, grads_memory.len() >= num_parameters)]
    #[requires(m_memory.len() >= num_parameters, v_memory.len() >= num_parameters)]
    pub fn adamw_kernel2(
        params_memory: *mut f32,
        #[kernel(read_only)] grads_memory: *mut f32,
        m_memory: *mut f32,
        v_memory: *mut f32,
        num_parameters: c_long,
        learning_rate: f32,
        beta1: f32,
        beta2: f32,
        beta1_correction: f32,
        beta2_correction: f32,
        eps: f32,
        weight_decay: f32,
    );
}

/// PTX of `kernels/cuda/candle_fill.cu`: candle's fill, copy and constant-set kernels.
pub const CANDLE_FILL_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/candle_fill.ptx"));

/// PTX of `kernels/cuda/candle_reduce.cu`: candle's softmax, norms, rotary embeddings and
/// reductions.
pub const CANDLE_REDUCE_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/candle_reduce.ptx"));

#[kernel(ptx = "$OUT_DIR/candle_fill.ptx", module = pub CandleFillKernels)]
unsafe extern "C" {
    /// `buf[i] = value` for `i < numel`, grid-strided.
    #[kernel(name = "fill_{T}")]
    #[requires(buf.len() >= numel)]
    pub fn fill<T>(buf: *mut T, value: T, numel: size_t);

    /// `d1` rows of `d2` elements from `src` (rows `src_s` apart) to `dst` (rows `dst_s`
    /// apart), in `u32` index arithmetic.
    #[kernel(name = "copy2d_{T}")]
    #[requires(d1 * d2 <= 4294967295)]
    #[requires(d1 * d2 == 0 || src.len() >= (d1 - 1) * src_s + d2)]
    #[requires(d1 * d2 == 0 || dst.len() >= (d1 - 1) * dst_s + d2)]
    #[requires((d1 - 1) * src_s + d2 <= 4294967295, (d1 - 1) * dst_s + d2 <= 4294967295)]
    pub fn copy2d<T>(src: *const T, dst: *mut T, d1: u32, d2: u32, src_s: u32, dst_s: u32);

    /// `out[i] = inp` for `numel` elements. With `info` (dims, then strides) the kernel
    /// follows strides no contract can see: a checked launch is for contiguous data, `info`
    /// NULL.
    #[kernel(name = "const_set_{T}")]
    #[requires(info.is_null(), out.len() >= numel)]
    pub fn const_set<T>(numel: size_t, num_dims: size_t, info: *const size_t, inp: T, out: *mut T);
}

#[kernel(ptx = "$OUT_DIR/candle_reduce.ptx", module = pub CandleReduceKernels)]
unsafe extern "C" {
    /// Softmax of rows of `n_cols`: one row per thread along x, its 32 lanes along y (candle
    /// launches blocks of (1, 32, 1)), no row guard: every launched row must be there.
    #[kernel(name = "softmax_{T}")]
    #[requires(config.block.0 == 1 && config.block.1 == 32 && config.block.2 == 1, n_cols >= 0)]
    #[requires(config.grid.0 * n_cols <= 2147483647)]
    #[requires(src.len() >= config.grid.0 * n_cols, dst.len() >= config.grid.0 * n_cols)]
    pub fn softmax<T>(src: *const T, dst: *mut T, n_cols: i32);

    /// RMS norm of rows of `n_cols`, one block of `block_size` threads per row.
    #[kernel(name = "rmsnorm_{T}")]
    #[requires(config.block.0 == block_size, block_size % 32 == 0, block_size > 0)]
    #[requires(config.block.1 == 1 && config.block.2 == 1, n_cols >= 0)]
    #[requires(config.grid.0 * n_cols <= 2147483647)]
    #[requires(src.len() >= config.grid.0 * n_cols, dst.len() >= config.grid.0 * n_cols)]
    #[requires(alpha.is_null() || alpha.len() >= n_cols)]
    pub fn rmsnorm<T>(
        src: *const T,
        dst: *mut T,
        alpha: *const T,
        n_cols: i32,
        block_size: i32,
        eps: f32,
    );

    /// Layer norm of rows of `n_cols`, one block of `block_size` threads per row.
    #[kernel(name = "layernorm_{T}")]
    #[requires(config.block.0 == block_size, block_size % 32 == 0, block_size > 0)]
    #[requires(config.block.1 == 1 && config.block.2 == 1, n_cols >= 0)]
    #[requires(config.grid.0 * n_cols <= 2147483647)]
    #[requires(src.len() >= config.grid.0 * n_cols, dst.len() >= config.grid.0 * n_cols)]
    #[requires(alpha.is_null() || alpha.len() >= n_cols, beta.is_null() || beta.len() >= n_cols)]
    pub fn layernorm<T>(
        src: *const T,
        dst: *mut T,
        alpha: *const T,
        beta: *const T,
        n_cols: i32,
        block_size: i32,
        eps: f32,
    );

    /// Interleaved rotary embedding of `bh` rows of `td` values; `cos` and `sin` hold `td / 2`
    /// per batch, the batch `stride_b` values apart in `src` (0: one table for all).
    #[kernel(name = "rope_i_{T}")]
    #[requires(td % 2 == 0, bh * td <= 2147483647)]
    #[requires(src.len() >= bh * td, dst.len() >= bh * td)]
    #[requires(stride_b == 0 || bh * td == 0 || cos.len() >= ((bh * td - 1) / stride_b + 1) * (td / 2))]
    #[requires(stride_b == 0 || bh * td == 0 || sin.len() >= ((bh * td - 1) / stride_b + 1) * (td / 2))]
    #[requires(stride_b > 0 || cos.len() >= td / 2 && sin.len() >= td / 2)]
    pub fn rope_i<T>(
        src: *const T,
        cos: *const T,
        sin: *const T,
        dst: *mut T,
        bh: u32,
        td: u32,
        stride_b: u32,
    );

    /// Rotary embedding of `bh` rows of `td = t * d` values, halves `d / 2` apart.
    #[kernel(name = "rope_{T}")]
    #[requires(d >= 2, d % 2 == 0, td % d == 0, bh * td <= 2147483647)]
    #[requires(src.len() >= bh * td, dst.len() >= bh * td)]
    #[requires(stride_b == 0 || bh * td == 0 || cos.len() >= ((bh * td - 1) / stride_b + 1) * (td / 2))]
    #[requires(stride_b == 0 || bh * td == 0 || sin.len() >= ((bh * td - 1) / stride_b + 1) * (td / 2))]
    #[requires(stride_b > 0 || cos.len() >= td / 2 && sin.len() >= td / 2)]
    pub fn rope<T>(
        src: *const T,
        cos: *const T,
        sin: *const T,
        dst: *mut T,
        bh: u32,
        td: u32,
        d: u32,
        stride_b: u32,
    );

    /// Rotary embedding over (b, t, h, d), halves `d / 2` apart; `cos` and `sin` hold
    /// `t * d / 2` per batch.
    #[kernel(name = "rope_thd_{T}")]
    #[requires(d >= 2, d % 2 == 0, b * t * h * d <= 2147483647)]
    #[requires(src.len() >= b * t * h * d, dst.len() >= b * t * h * d)]
    #[requires(stride_b == 0 || b * t * h * d == 0 || cos.len() >= ((b * t * h * d - 1) / stride_b + 1) * (t * d / 2))]
    #[requires(stride_b == 0 || b * t * h * d == 0 || sin.len() >= ((b * t * h * d - 1) / stride_b + 1) * (t * d / 2))]
    #[requires(stride_b > 0 || cos.len() >= t * d / 2 && sin.len() >= t * d / 2)]
    pub fn rope_thd<T>(
        src: *const T,
        cos: *const T,
        sin: *const T,
        dst: *mut T,
        b: u32,
        t: u32,
        h: u32,
        d: u32,
        stride_b: u32,
    );
}

/// PTX of `kernels/cuda/cuda_samples.cu`: cuda-samples' `vectorAdd` and transpose kernels.
pub const CUDA_SAMPLES_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/cuda_samples.ptx"));

#[kernel(ptx = "$OUT_DIR/cuda_samples.ptx", module = pub CudaSamplesKernels)]
unsafe extern "C" {
    /// cuda-samples' `vectorAdd`: `C[i] = A[i] + B[i]` for `i < numElements`.
    #[kernel(cpp, rename = SamplesVectorAdd)]
    #[requires(a.len() >= num_elements, b.len() >= num_elements, c.len() >= num_elements)]
    pub fn vectorAdd(a: *const f32, b: *const f32, c: *mut f32, num_elements: i32);

    /// A tile-by-tile copy of a `width` by `height` matrix. Blocks of (`TILE_DIM`, `BLOCK_ROWS`) = (32, 16) threads, one per 32 by 32 tile
    /// (the sample's matrices are multiples of the tile); `idata` is only read.
    #[kernel(cpp)]
    #[requires(config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1)]
    #[requires(width >= 0 && height >= 0, width % 32 == 0, height % 32 == 0)]
    #[requires(config.grid.0 * 32 <= width, config.grid.1 * 32 <= height)]
    #[requires(width * height <= 2147483647)]
    #[requires(idata.len() >= width * height, odata.len() >= width * height)]
    pub fn copy(odata: *mut f32, #[kernel(read_only)] idata: *mut f32, width: i32, height: i32);

    /// The copy through a shared-memory tile. Blocks of (`TILE_DIM`, `BLOCK_ROWS`) = (32, 16) threads, one per 32 by 32 tile
    /// (the sample's matrices are multiples of the tile); `idata` is only read.
    #[kernel(cpp)]
    #[requires(config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1)]
    #[requires(width >= 0 && height >= 0, width % 32 == 0, height % 32 == 0)]
    #[requires(config.grid.0 * 32 <= width, config.grid.1 * 32 <= height)]
    #[requires(width * height <= 2147483647)]
    #[requires(idata.len() >= width * height, odata.len() >= width * height)]
    pub fn copySharedMem(
        odata: *mut f32,
        #[kernel(read_only)] idata: *mut f32,
        width: i32,
        height: i32,
    );

    /// The transpose, reading rows and writing columns. Blocks of (`TILE_DIM`, `BLOCK_ROWS`) = (32, 16) threads, one per 32 by 32 tile
    /// (the sample's matrices are multiples of the tile); `idata` is only read.
    #[kernel(cpp)]
    #[requires(config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1)]
    #[requires(width >= 0 && height >= 0, width % 32 == 0, height % 32 == 0)]
    #[requires(config.grid.0 * 32 <= width, config.grid.1 * 32 <= height)]
    #[requires(width * height <= 2147483647)]
    #[requires(idata.len() >= width * height, odata.len() >= width * height)]
    pub fn transposeNaive(
        odata: *mut f32,
        #[kernel(read_only)] idata: *mut f32,
        width: i32,
        height: i32,
    );

    /// The transpose through a shared-memory tile, coalesced both ways. Blocks of (`TILE_DIM`, `BLOCK_ROWS`) = (32, 16) threads, one per 32 by 32 tile
    /// (the sample's matrices are multiples of the tile); `idata` is only read.
    #[kernel(cpp)]
    #[requires(config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1)]
    #[requires(width >= 0 && height >= 0, width % 32 == 0, height % 32 == 0)]
    #[requires(config.grid.0 * 32 <= width, config.grid.1 * 32 <= height)]
    #[requires(width * height <= 2147483647)]
    #[requires(idata.len() >= width * height, odata.len() >= width * height)]
    pub fn transposeCoalesced(
        odata: *mut f32,
        #[kernel(read_only)] idata: *mut f32,
        width: i32,
        height: i32,
    );

    /// `transposeCoalesced` with the tile padded against bank conflicts. Blocks of (`TILE_DIM`, `BLOCK_ROWS`) = (32, 16) threads, one per 32 by 32 tile
    /// (the sample's matrices are multiples of the tile); `idata` is only read.
    #[kernel(cpp)]
    #[requires(config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1)]
    #[requires(width >= 0 && height >= 0, width % 32 == 0, height % 32 == 0)]
    #[requires(config.grid.0 * 32 <= width, config.grid.1 * 32 <= height)]
    #[requires(width * height <= 2147483647)]
    #[requires(idata.len() >= width * height, odata.len() >= width * height)]
    pub fn transposeNoBankConflicts(
        odata: *mut f32,
        #[kernel(read_only)] idata: *mut f32,
        width: i32,
        height: i32,
    );

    /// The padded transpose with blocks ordered along diagonals. Blocks of (`TILE_DIM`, `BLOCK_ROWS`) = (32, 16) threads, one per 32 by 32 tile
    /// (the sample's matrices are multiples of the tile); `idata` is only read.
    #[kernel(cpp)]
    #[requires(config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1)]
    #[requires(width >= 0 && height >= 0, width % 32 == 0, height % 32 == 0)]
    #[requires(config.grid.0 * 32 <= width, config.grid.1 * 32 <= height)]
    #[requires(width * height <= 2147483647)]
    #[requires(idata.len() >= width * height, odata.len() >= width * height)]
    pub fn transposeDiagonal(
        odata: *mut f32,
        #[kernel(read_only)] idata: *mut f32,
        width: i32,
        height: i32,
    );

    /// The sample's partial transpose within tiles (a benchmark of the sample, not a full transpose); its writes stay inside only for `height <= width`. Blocks of (`TILE_DIM`, `BLOCK_ROWS`) = (32, 16) threads, one per 32 by 32 tile
    /// (the sample's matrices are multiples of the tile); `idata` is only read.
    #[kernel(cpp)]
    #[requires(config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1)]
    #[requires(width >= 0 && height >= 0, width % 32 == 0, height % 32 == 0)]
    #[requires(config.grid.0 * 32 <= width, config.grid.1 * 32 <= height)]
    #[requires(width * height <= 2147483647)]
    #[requires(idata.len() >= width * height, odata.len() >= width * height)]
    #[requires(height <= width)]
    pub fn transposeFineGrained(
        odata: *mut f32,
        #[kernel(read_only)] idata: *mut f32,
        width: i32,
        height: i32,
    );

    /// The sample's partial transpose of whole tiles (a benchmark of the sample). Blocks of (`TILE_DIM`, `BLOCK_ROWS`) = (32, 16) threads, one per 32 by 32 tile
    /// (the sample's matrices are multiples of the tile); `idata` is only read.
    #[kernel(cpp)]
    #[requires(config.block.0 == 32 && config.block.1 == 16 && config.block.2 == 1)]
    #[requires(width >= 0 && height >= 0, width % 32 == 0, height % 32 == 0)]
    #[requires(config.grid.0 * 32 <= width, config.grid.1 * 32 <= height)]
    #[requires(width * height <= 2147483647)]
    #[requires(idata.len() >= width * height, odata.len() >= width * height)]
    pub fn transposeCoarseGrained(
        odata: *mut f32,
        #[kernel(read_only)] idata: *mut f32,
        width: i32,
        height: i32,
    );
}
