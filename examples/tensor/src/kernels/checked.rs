//! The same kernels with contracts, for contiguous data: with `info` NULL each reaches exactly
//! `numel` elements of every operand, which the contract checks, so their launchers are safe
//! to call. A strided launch (`info` set) follows dims and strides in device memory that no
//! contract can read: it is refused here, and stays with the generated `unsafe` launchers.
//! `index_select` reads its indices from device memory and has no contract.

use cuda_kernel::kernel;

#[kernel(ptx = "$OUT_DIR/unary.ptx", module = pub UnaryKernels)]
unsafe extern "C" {
    /// `out[i] = op(inp[i])`, contiguous.
    #[kernel(name = "u{op}_{T}")]
    #[requires(info.is_null(), inp.len() >= numel, out.len() >= numel)]
    pub fn unary<T>(numel: usize, num_dims: usize, info: *const usize, inp: *const T, out: *mut T);

    /// `out[i] = inp[i] ^ param`, contiguous.
    #[kernel(name = "upowf_{T}")]
    #[requires(info.is_null(), inp.len() >= numel, out.len() >= numel)]
    pub fn powf<T>(
        numel: usize,
        num_dims: usize,
        info: *const usize,
        param: T,
        inp: *const T,
        out: *mut T,
    );
}

#[kernel(ptx = "$OUT_DIR/binary.ptx", module = pub BinaryKernels)]
unsafe extern "C" {
    /// `out[i] = lhs[i] op rhs[i]`, contiguous.
    #[kernel(name = "b{op}_{T}")]
    #[requires(dims_and_strides.is_null(), lhs.len() >= numel, rhs.len() >= numel)]
    #[requires(out.len() >= numel)]
    pub fn binary<T>(
        numel: usize,
        num_dims: usize,
        dims_and_strides: *const usize,
        lhs: *const T,
        rhs: *const T,
        out: *mut T,
    );
}

#[kernel(ptx = "$OUT_DIR/cast.ptx", module = pub CastKernels)]
unsafe extern "C" {
    /// `out[i] = inp[i] as U`, contiguous.
    #[kernel(name = "cast_{T}_{U}")]
    #[requires(info.is_null(), inp.len() >= numel, out.len() >= numel)]
    pub fn cast<T, U>(
        numel: usize,
        num_dims: usize,
        info: *const usize,
        inp: *const T,
        out: *mut U,
    );
}

#[kernel(ptx = "$OUT_DIR/reduce.ptx", module = pub ReduceKernels)]
unsafe extern "C" {
    /// One output per block of at most 256 threads (the kernel's shared array), contiguous.
    #[kernel(name = "fast_{op}_{T}")]
    #[requires(info.is_null(), src.len() >= src_numel, dst.len() >= config.grid.0)]
    #[requires(config.block.0 <= 256, config.block.1 == 1 && config.block.2 == 1)]
    pub fn reduce<T>(
        src_numel: usize,
        el_to_sum_per_block: usize,
        num_dims: usize,
        info: *const usize,
        src: *const T,
        dst: *mut T,
    );
}

#[kernel(ptx = "$OUT_DIR/where_index.ptx", module = pub SelectKernels)]
unsafe extern "C" {
    /// `out[i] = ids[i] ? t[i] : f[i]`, contiguous.
    #[kernel(name = "where_{I}_{T}")]
    #[requires(info.is_null(), ids.len() >= numel, t.len() >= numel, f.len() >= numel)]
    #[requires(out.len() >= numel)]
    pub fn where_cond<I, T>(
        numel: usize,
        num_dims: usize,
        info: *const usize,
        ids: *const I,
        t: *const T,
        f: *const T,
        out: *mut T,
    );
}
