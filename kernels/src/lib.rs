//! The project's CUDA kernels: their PTX, embedded, and their `#[kernel]` declarations.
//!
//! The CUDA C sources are in `kernels/cuda/`. The build script compiles them with nvcc through
//! `cuda-kernel-build`, checked against the declarations here; without nvcc it uses the PTX
//! committed in `kernels/ptx/`, which must have been made from the current sources
//! (`CUDA_KERNEL_WRITE_PTX=1 cargo build -p kernels` rewrites it).
//!
//! ```no_run
//! use kernels::{VECTOR_ADD_PTX, VectorAdd};
//! let ctx = cuda_kernel::driver::context(0)?;
//! let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
//! let vector_add = VectorAdd::load(&module)?;
//! # Ok::<(), cuda_kernel::Error>(())
//! ```

#![warn(missing_docs)]

pub mod checked;
pub mod params;

use cuda_kernel::ffi::size_t;
use cuda_kernel::half::f16;
use cuda_kernel::low_precision as lp;
use cuda_kernel::{Double2, Float2, Float4, Int2, Int4, Uint4, kernel};
pub use params::{ElementF32, Interval, Pair, ViewF32};

/// PTX of `kernels/cuda/vector_add.cu`: [`VectorAdd`], [`VectorAddF4`], [`Empty4`].
pub const VECTOR_ADD_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/vector_add.ptx"));

/// PTX of `kernels/cuda/echo.cu`: [`EchoGuide`], [`EchoScalars`].
pub const ECHO_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/echo.ptx"));

/// PTX of `kernels/cuda/cxx_fixtures.cu`: C++ kernels under their mangled names.
pub const CXX_FIXTURES_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/cxx_fixtures.ptx"));

/// PTX of `kernels/cuda/structs.cu`: [`EchoParticle`], [`SumBig`].
pub const STRUCTS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/structs.ptx"));

/// PTX of `kernels/cuda/templates.cu`: [`Reduce0`], [`MatrixMulCUDA`], [`Affine`].
pub const TEMPLATES_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/templates.ptx"));

/// PTX of `kernels/cuda/class_templates.cu`: [`ScaleKernel`], [`CastKernel`], [`Combine`].
pub const CLASS_TEMPLATES_PTX: &str =
    include_str!(concat!(env!("OUT_DIR"), "/class_templates.ptx"));

/// PTX of `kernels/cuda/namespaces.cu`: [`NsScale`], [`NsPlain`], [`OtherPlain`], [`NsFill`],
/// [`NsSpreadAs`].
pub const NAMESPACES_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/namespaces.ptx"));

/// PTX of `kernels/cuda/globals.cu`: [`Fir16`] and its device globals.
pub const GLOBALS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/globals.ptx"));

/// PTX of `kernels/cuda/low_precision.cu`: [`EchoLowPrecision`], [`ScaleFp8`].
pub const LOW_PRECISION_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/low_precision.ptx"));

/// PTX of `kernels/cuda/plans.cu` (compute_90): [`PlanKernels`].
pub const PLANS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/plans.ptx"));

/// PTX of `kernels/cuda/multi_gpu.cu`: [`FillF32`], [`SaxpyN`], [`DotPartial`].
pub const MULTI_GPU_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/multi_gpu.ptx"));

/// PTX of `kernels/cuda/launch_features.cu` (compute_90): cluster and cooperative kernels.
pub const LAUNCH_FEATURES_PTX: &str =
    include_str!(concat!(env!("OUT_DIR"), "/launch_features.ptx"));

#[kernel(ptx = "$OUT_DIR/vector_add.ptx", module = pub VectorAddKernels)]
unsafe extern "C" {
    /// `c[i] = a[i] + b[i]` for `i < n`.
    pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);

    /// `c[i] = a[i] + b[i]` for `i < n4`, four floats at a time.
    pub fn vector_add_f4(a: *const Float4, b: *const Float4, c: *mut Float4, n4: u32);

    /// Does nothing: measures launch overhead.
    pub safe fn empty4(a: *const f32, b: *const f32, c: *mut f32, n: u32);
}

#[kernel(ptx = "$OUT_DIR/echo.ptx", module = pub EchoKernels)]
unsafe extern "C" {
    /// Writes each parameter of the Programming Guide's `ADD_TO_PARAM_BUFFER` example
    /// `(int, float4, char, float, CUdeviceptr, float2)`, extended with `double`, `__half` and
    /// `double2`, into `out` at fixed offsets: `i@0 f4@16 c@32 f@36 p@40 f2@48 d@56 h@64 d2@80`,
    /// 96 bytes. `p` is echoed as an address.
    pub fn echo_guide(
        i: i32,
        f4: Float4,
        c: i8,
        f: f32,
        p: cuda_kernel::ffi::c_ulonglong, // CUdeviceptr: `unsigned long long`, not `uint64_t`
        f2: Float2,
        d: f64,
        h: f16,
        d2: Double2,
        out: *mut u8,
    );

    /// Writes every scalar type (each placed after a one-byte parameter) into `out` at fixed
    /// offsets: `b@0 i8@1 u8@2 pads@3 i16@4 u16@6 i32@8 u32@12 i64@16 u64@24 f32@32 f64@40
    /// f16@48 bf16@50 int2@56 int4@64 uint4@80`, 96 bytes; `pads` is the XOR of the one-byte
    /// parameters.
    pub fn echo_scalars(
        b: bool,
        p0: i8,
        i8: i8,
        p1: i8,
        u8: u8,
        p2: i8,
        i16: i16,
        p3: i8,
        u16: u16,
        p4: i8,
        i32: i32,
        p5: i8,
        u32: u32,
        p6: i8,
        i64: i64,
        p7: i8,
        u64: u64,
        p8: i8,
        f32: f32,
        p9: i8,
        f64: f64,
        p10: i8,
        f16: f16,
        p11: i8,
        bf16: cuda_kernel::half::bf16,
        p12: i8,
        int2: Int2,
        p13: i8,
        int4: Int4,
        p14: i8,
        uint4: Uint4,
        out: *mut u8,
    );
}

#[kernel(ptx = "$OUT_DIR/cxx_fixtures.ptx", module = pub CxxKernels)]
unsafe extern "C" {
    /// `x[i] *= a` for `i < n`: the C++ template `scale<float>`, bound by its mangled name.
    #[kernel(name = "_Z5scaleIfEvPT_S0_j")]
    pub fn scale_f32(x: *mut f32, a: f32, n: u32);

    /// `x[i] *= a` for `i < n`: the C++ template `scale<double>`.
    #[kernel(name = "_Z5scaleIdEvPT_S0_j")]
    pub fn scale_f64(x: *mut f64, a: f64, n: u32);

    /// `y[i] = a * x[i] + y[i]` for `i < n`: a C++ kernel (not `extern "C"`) whose symbol
    /// `#[kernel(cpp)]` derives from this signature (`_Z5saxpyPKfPffi`).
    #[kernel(cpp)]
    pub fn saxpy(x: *const f32, y: *mut f32, a: f32, n: i32);
}

/// PTX of `kernels/cuda/untyped.cu`: [`DequantizeQ80`] and [`CopyBytes`].
pub const UNTYPED_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/untyped.ptx"));

#[kernel(ptx = "$OUT_DIR/untyped.ptx", module = pub UntypedKernels)]
unsafe extern "C" {
    /// `y[i] = d * q` of element `i` of ggml's q8_0 blocks (a `__half` scale, 32 `int8_t`) at
    /// `vx`, for `i < n`: untyped memory, as ggml's quantized kernels take their blocks.
    #[kernel(cpp)]
    pub fn dequantize_q8_0(vx: *const core::ffi::c_void, y: *mut f32, n: i32);

    /// Copies `n` bytes from `src` to `dst` (zeros where `src` is NULL), whatever either holds.
    pub fn copy_bytes(
        src: *const cuda_kernel::ffi::c_void,
        dst: *mut cuda_kernel::ffi::c_void,
        n: u32,
    );
}

#[kernel(ptx = "$OUT_DIR/launch_features.ptx", module = pub LaunchFeatureKernels)]
unsafe extern "C" {
    /// Each block writes its rank in its thread-block cluster and the cluster's size.
    pub fn cluster_rank(rank: *mut u32, size: *mut u32);

    /// Each block writes `index + 1` into `slots`, waits at a grid-wide barrier, then copies its
    /// neighbour's slot into `seen`. Needs a cooperative launch.
    pub fn grid_sync_neighbour(slots: *mut u32, seen: *mut u32);
}

/// PTX of `kernels/cuda/attributes.cu` (compute_90): kernels whose launch attributes have an
/// effect one can see.
pub const ATTRIBUTES_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/attributes.ptx"));

#[kernel(ptx = "$OUT_DIR/attributes.ptx", module = pub AttributeKernels)]
unsafe extern "C" {
    /// Each block's first thread waits until `flag` (host-mapped memory) is nonzero, then adds
    /// one to `done`.
    pub fn wait_for_flag(flag: *const u32, done: *mut u32);

    /// `out[t]` = the sum over thread `t`'s grid-stride elements `i < n` of
    /// `lookup[i % m] * data[i]`.
    pub fn reread(lookup: *const f32, m: u32, data: *const f32, n: u64, out: *mut f32);

    /// Writes 1 to `flag` (host-mapped memory).
    pub fn set_flag(flag: *mut u32);

    /// Adds `value` to the first `n` elements of `x`.
    pub fn add_value(x: *mut f32, value: f32, n: u32);
}

#[kernel(ptx = "$OUT_DIR/structs.ptx", module = pub StructKernels)]
unsafe extern "C" {
    /// Writes fields of `p` and the bytes around it into `out` at fixed offsets (see
    /// `kernels/cuda/structs.cu`).
    pub fn echo_particle(before: i8, p: params::Particle, after: i8, out: *mut u8);

    /// `out[0]` = the sum of `b.values`, `out[1]` = the last value.
    pub fn sum_big(b: params::BigParams, out: *mut f32);
}

/// PTX of `kernels/cuda/tma.cu` (for `compute_90`): [`TmaProbe`], [`AlignedEcho`],
/// [`TmaCopy2d`].
pub const TMA_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/tma.ptx"));

#[kernel(ptx = "$OUT_DIR/tma.ptx", module = pub TmaKernels)]
unsafe extern "C" {
    /// Copies `a` and the descriptor's 128 bytes to `out` (132 bytes).
    pub fn tma_probe(a: u32, m: cuda_kernel::TensorMap<f32, 2>, out: *mut u8);

    /// Copies each parameter's bytes to `out`, back to back (291 bytes): a 256-byte
    /// `const __grid_constant__` struct aligned to 64 and a `double4_32a`, both placed by the
    /// GPU.
    pub fn aligned_echo(
        a: u8,
        #[kernel(grid_constant)] b: params::Block64,
        d: cuda_kernel::Double4_32a,
        t: u16,
        out: *mut u8,
    );

    /// Copies the 64 x 64 tile `(blockIdx.x, blockIdx.y)` of a 2D tensor of `f32` from `src`
    /// to `dst` through the Tensor Memory Accelerator; both descriptors have boxes of 64 x 64.
    pub fn tma_copy_2d(src: cuda_kernel::TensorMap<f32, 2>, dst: cuda_kernel::TensorMap<f32, 2>);
}

#[kernel(ptx = "$OUT_DIR/tma.ptx")]
unsafe extern "C" {
    /// `gemm::tile<BM, BN>` of `kernels/cuda/tma.cu`, a Hopper GEMM's launch shape (instances
    /// `<64, 128>` and `<128, 256>`): writes `BM`, `BN`, `k` and `BM` staged through the last of
    /// `k` floats of dynamic shared memory to `c[0..4]`.
    #[kernel(cpp, namespace = "gemm")]
    pub fn tile<const BM: i32, const BN: i32>(
        a: cuda_kernel::TensorMap<f32, 2>,
        b: cuda_kernel::TensorMap<f32, 2>,
        c: *mut f32,
        k: i32,
    );
}

/// `geo::Mode::Add` of `kernels/cuda/class_templates.cu`.
pub const MODE_ADD: i32 = 1;
/// `geo::Mode::Mul` of `kernels/cuda/class_templates.cu`.
pub const MODE_MUL: i32 = 2;

#[kernel(ptx = "$OUT_DIR/class_templates.ptx", module = pub ClassTemplateKernels)]
unsafe extern "C" {
    /// `out[i * stride] = in[i * stride] * s` for `i < n`, in float. Instances: `f32`,
    /// `half::f16`, `half::bf16`.
    #[kernel(cpp)]
    pub fn scale_kernel<T>(out: *mut T, input: *const T, s: f32, n: size_t, stride: isize);

    /// `out[i] = in[i]` through float, for `i < n`. Instances: `<f32, bf16>`, `<f16, f32>`,
    /// `<F8E4M3, f32>`.
    #[kernel(cpp)]
    pub fn cast_kernel<In, Out>(out: *mut Out, input: *const In, n: i32);

    /// `out[i] = (SCALE ? 2 : 1) * (MODE == Add ? p.a + p.b * i : p.a * p.b * i) + TAG` for
    /// `i < n`. Instances: `<geo::Pair, true, 'a', Add>`, `<geo::Pair, false, 'b', Mul>`.
    #[kernel(cpp)]
    pub fn combine<
        P,
        const SCALE: bool,
        const TAG: cuda_kernel::ffi::c_char,
        #[kernel(enum = "geo::Mode")] const MODE: i32,
    >(
        p: P,
        out: *mut f32,
        n: u32,
    );
}

#[kernel(ptx = "$OUT_DIR/namespaces.ptx", module = pub NamespaceKernels)]
unsafe extern "C" {
    /// `ns::scale<B>`: `x[i] *= a` for `i < n`, `B` threads a block. Instance: 128.
    #[kernel(cpp, namespace = "ns", rename = NsScale)]
    pub fn scale<const B: i32>(x: *mut f32, a: f32, n: u32);

    /// `ns::plain`: `x[threadIdx.x] = 1`.
    #[kernel(cpp, namespace = "ns", rename = NsPlain)]
    pub fn plain(x: *mut f32);

    /// `ns::spread`: `out[i] = iv.lo + (iv.hi - iv.lo) * i / iv.n + offset->lo` for
    /// `i < iv.n`: a struct of a nested namespace (`ns::shapes::Interval`) by value and through
    /// a pointer, named in the symbol by its CUDA name.
    #[kernel(cpp, namespace = "ns", rename = NsSpread)]
    pub fn spread(iv: params::Interval, offset: *const params::Interval, out: *mut f32);

    /// `ns::cluster_rank<B>`, compiled with `__cluster_dims__(2, 1, 1)` for sm_90a: `x[i]` = the
    /// block's rank in its cluster, for `i < n`. Instance: 64.
    #[kernel(cpp, namespace = "ns", rename = NsClusterRank)]
    pub fn cluster_rank<const B: i32>(x: *mut u32, n: u32);

    /// `ns::inner::fill<T>`: `x[i] = v` for `i < n`. Instances: `f32`, `half::f16`.
    #[kernel(cpp, namespace = "ns::inner", rename = NsFill)]
    pub fn fill<T>(x: *mut T, v: T, n: u32);

    /// `ns::spread_as<T>`: `out[i] = iv->lo + (iv->hi - iv->lo) * i / iv->n` as `T`, for
    /// `i < iv->n`: a template taking a struct of a nested namespace, its instances' symbols
    /// naming it `ns::shapes::Interval`. Instances: `f32`, `f64`.
    #[kernel(cpp, namespace = "ns", rename = NsSpreadAs)]
    pub fn spread_as<T>(iv: *const params::Interval, out: *mut T);
}

/// `other::plain`, a kernel of the same name as `ns::plain` in another namespace:
/// `x[threadIdx.x] = 2`.
#[kernel(ptx = "$OUT_DIR/namespaces.ptx")]
unsafe extern "C" {
    #[kernel(cpp, namespace = "other", rename = OtherPlain)]
    pub fn plain(x: *mut f32);
}

#[kernel(ptx = "$OUT_DIR/templates.ptx", module = pub TemplateKernels)]
unsafe extern "C" {
    /// cuda-samples' `reduce0<T>`: one partial sum per block into `g_odata[blockIdx.x]`; needs
    /// `blockDim.x * size_of::<T>()` bytes of dynamic shared memory. Instances: `f32`, `i32`,
    /// `f64`.
    #[kernel(cpp)]
    pub fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u32);

    /// cuda-samples' `matrixMulCUDA<BLOCK_SIZE>`: `C = A * B` in tiles; `A` and `B` are only
    /// read, though C declares them `float *`. Instances: 16, 32.
    #[kernel(cpp)]
    pub fn matrixMulCUDA<const BLOCK_SIZE: i32>(
        c: *mut f32,
        #[kernel(read_only)] a: *mut f32,
        #[kernel(read_only)] b: *mut f32,
        w_a: i32,
        w_b: i32,
    );

    /// Each of the first `BLOCK_SIZE` threads sums its stride of `x` into `out[threadIdx.x]`:
    /// a template over a type and an `unsigned int` value. Instances: `<f32, 128>`, `<i32, 64>`.
    #[kernel(cpp)]
    pub fn strided_sum<T, const BLOCK_SIZE: u32>(x: *const T, out: *mut T, n: u32);

    /// `x[i] = OFFSET + TAG` for `i < N`: template values of type `size_t`, `long` and `char`.
    /// Instance: `<32, -1, 'a'>`.
    #[kernel(cpp)]
    pub fn fill_tagged<
        const N: size_t,
        const OFFSET: cuda_kernel::ffi::c_long,
        const TAG: cuda_kernel::ffi::c_char,
    >(
        x: *mut f32,
    );

    /// candle's `affine_{T}`: `out = x * mul + add`, `x` from `inp`, or from `out` when `inp` is
    /// NULL; `info` (dims, then strides) NULL for contiguous data. Members: f32, f64, f16,
    /// bf16, u32.
    #[kernel(name = "affine_{T}")]
    pub fn affine<T>(
        numel: size_t,
        num_dims: size_t,
        info: *const size_t,
        inp: *const T,
        out: *mut T,
        mul: T,
        add: T,
    );
}

#[kernel(ptx = "$OUT_DIR/globals.ptx", module = pub FirKernels)]
unsafe extern "C" {
    /// The filter's 16 coefficients, in constant memory.
    pub static coeffs: [f32; 16];
    /// How many outputs `fir16` wrote (it adds one per output).
    pub static calls: u32;
    /// `offset.x` is added to every output.
    pub static offset: Float4;

    /// `y[i] = offset.x + sum over k < 16 of coeffs[k] * x[i + k]`; `x` holds `n + 15` floats.
    pub fn fir16(x: *const f32, y: *mut f32, n: u32);
}

/// `kernels/cuda/particles.cu`: CUDA's vector types as cuda-kernel's (`float2` is [`Float2`],
/// `float4` [`Float4`]) and `__device__` globals as `static`s (examples/particles.rs).
#[kernel(ptx = "$OUT_DIR/particles.ptx", module = pub ParticleKernels)]
unsafe extern "C" {
    /// The box, `(x0, y0, x1, y1)`.
    pub static bounds: Float4;
    /// How many times a particle left the box on an axis (`advance` adds them).
    pub static bounces: u32;

    /// One step of `dt` for the particles below `n`: `wind` accelerates them, and one leaving
    /// the box comes back in mirrored, its velocity reversed on that axis.
    pub fn advance(pos: *mut Float2, vel: *mut Float2, wind: Float2, dt: f32, n: u32);
}

#[kernel(ptx = "$OUT_DIR/low_precision.ptx", module = pub LowPrecisionKernels)]
unsafe extern "C" {
    /// Writes each parameter's storage into `out`: `a@0 b@1 c@2 f@3 g@4 i@5 j@6 d@8 k@10 e@12
    /// h@16`, 20 bytes.
    pub fn echo_low_precision(
        a: lp::F8E4M3,
        b: lp::F8E5M2,
        c: lp::E8M0,
        d: lp::Fp8x2E4M3,
        e: lp::Fp8x4E5M2,
        f: lp::Fp6E2M3,
        g: lp::Fp6E3M2,
        h: lp::Fp6x4E2M3,
        i: lp::F4E2M1,
        j: lp::F4E2M1x2,
        k: lp::Fp4x4E2M1,
        out: *mut u8,
    );

    /// `y[i] = x[i] * s` in FP8 E4M3, through float.
    pub fn scale_fp8(x: *const lp::F8E4M3, y: *mut lp::F8E4M3, s: f32, n: u32);
}

#[kernel(ptx = "$OUT_DIR/plans.ptx", module = pub PlanKernels)]
unsafe extern "C" {
    /// `y[i] = x[i] + 1`, after `griddepcontrol.wait`; triggers its dependents when done.
    pub fn chain_step(x: *const f32, y: *mut f32, n: u32);

    /// Does nothing, without parameters.
    pub safe fn empty0();

    /// Does nothing, with 16 parameters.
    pub safe fn empty16(
        p0: u32,
        p1: u32,
        p2: u32,
        p3: u32,
        p4: u32,
        p5: u32,
        p6: u32,
        p7: u32,
        p8: u32,
        p9: u32,
        p10: u32,
        p11: u32,
        p12: u32,
        p13: u32,
        p14: u32,
        p15: u32,
    );

    /// Does nothing, with 64 parameters.
    pub safe fn empty64(
        p0: u32,
        p1: u32,
        p2: u32,
        p3: u32,
        p4: u32,
        p5: u32,
        p6: u32,
        p7: u32,
        p8: u32,
        p9: u32,
        p10: u32,
        p11: u32,
        p12: u32,
        p13: u32,
        p14: u32,
        p15: u32,
        p16: u32,
        p17: u32,
        p18: u32,
        p19: u32,
        p20: u32,
        p21: u32,
        p22: u32,
        p23: u32,
        p24: u32,
        p25: u32,
        p26: u32,
        p27: u32,
        p28: u32,
        p29: u32,
        p30: u32,
        p31: u32,
        p32: u32,
        p33: u32,
        p34: u32,
        p35: u32,
        p36: u32,
        p37: u32,
        p38: u32,
        p39: u32,
        p40: u32,
        p41: u32,
        p42: u32,
        p43: u32,
        p44: u32,
        p45: u32,
        p46: u32,
        p47: u32,
        p48: u32,
        p49: u32,
        p50: u32,
        p51: u32,
        p52: u32,
        p53: u32,
        p54: u32,
        p55: u32,
        p56: u32,
        p57: u32,
        p58: u32,
        p59: u32,
        p60: u32,
        p61: u32,
        p62: u32,
        p63: u32,
    );

    /// Traps (`__trap()`): the context is lost.
    pub fn trap_now();

    /// Writes 4 TiB past `p`: an illegal address.
    pub fn write_far(p: *mut f32);

    /// `y[i] = x[i] * a + t`.
    pub fn tagged_axpy(x: *const f32, y: *mut f32, a: f32, t: f32, n: u32);
}

#[kernel(ptx = "$OUT_DIR/multi_gpu.ptx", module = pub MultiGpuKernels)]
unsafe extern "C" {
    /// `x[i] = value` for `i < n` (grid-stride).
    pub fn fill_f32(x: *mut f32, value: f32, n: size_t);

    /// `y = a * x + y` over `n` elements (grid-stride).
    pub fn saxpy_n(x: *const f32, y: *mut f32, a: f32, n: size_t);

    /// `*sum += x . y`, in double, one atomic add per block of 256 threads.
    pub fn dot_partial(x: *const f32, y: *const f32, sum: *mut f64, n: size_t);
}

/// PTX of `kernels/cuda/device_fns.cu`: [`UnaryOpKernel`], [`BinaryOpKernel`].
pub const DEVICE_FNS_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/device_fns.ptx"));

/// Templates over `static` device functions (`kernels/cuda/device_fns.cu`): an instance is
/// loaded by the function's name (`UnaryOpKernel::<f32>::load(&module, "op_neg")`).
#[kernel(ptx = "$OUT_DIR/device_fns.ptx", module = pub DeviceFnKernels)]
unsafe extern "C" {
    /// `template <float (*op)(float), typename T> unary_op_kernel(const T*, T*, int)`
    #[kernel(cpp)]
    pub fn unary_op_kernel<const op: fn(f32) -> f32, T>(x: *const T, dst: *mut T, k: i32);

    /// `template <int BLOCK, float (*op)(float, float)> binary_op_kernel(const float*, float*, float, int)`
    #[kernel(cpp)]
    pub fn binary_op_kernel<const BLOCK: i32, const op: fn(f32, f32) -> f32>(
        x: *const f32,
        dst: *mut f32,
        a: f32,
        k: i32,
    );
}

/// PTX of `kernels/cuda/cpp_names.cu`: the kernels of [`CppNameKernels`].
pub const CPP_NAMES_PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/cpp_names.ptx"));

/// Kernels bound by their C++ names (`kernels/cuda/cpp_names.cu`): their symbols hold nvcc's
/// run-dependent internal names, a hash of the source's path, a `volatile` qualifier or a class
/// template's instance, none of which a declaration derives; the macro finds each in the PTX by
/// the name written, and loading finds it in whatever nvcc run made the module.
#[kernel(ptx = "$OUT_DIR/cpp_names.ptx", module = pub CppNameKernels)]
unsafe extern "C" {
    /// `k_bin<op_repeat, float>`: `dst[i] = a[i]`.
    #[kernel(name = "k_bin<op_repeat, float>")]
    pub fn k_bin_repeat(a: *const f32, dst: *mut f32, n: i32);

    /// `k_bin<op_add, float, int>`: `dst[i] = a[i] + dst[i] + extra`.
    #[kernel(name = "k_bin<op_add, float, int>")]
    pub fn k_bin_add(a: *const f32, dst: *mut f32, n: i32, extra: i32);

    /// `(anonymous namespace)::anon_fill`: `p[i] = v`.
    #[kernel(name = "(anonymous namespace)::anon_fill")]
    pub fn anon_fill(p: *mut f32, v: f32, n: i32);

    /// `raise_flag(int volatile*, int)`: `*flag = v`.
    #[kernel(name = "raise_flag")]
    pub fn raise_flag(flag: *mut i32, v: i32);

    /// `apply_view<float>(View<float>, Element<float>*)`.
    #[kernel(name = "apply_view<float>")]
    pub fn apply_view(view: ViewF32, elements: *mut ElementF32);
}
