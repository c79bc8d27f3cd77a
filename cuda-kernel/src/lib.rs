//! Typed CUDA kernel launches.
//!
//! Declare a kernel's C signature once, as an `extern "C"` block under [`#[kernel]`](kernel),
//! and launch it through a generated type whose `launch` method the Rust compiler checks:
//!
//! ```no_run
//! use cuda_kernel::kernel;
//! use cuda_kernel::cudarc::driver::LaunchConfig;
//!
//! #[kernel]
//! unsafe extern "C" {
//!     /// c[i] = a[i] + b[i] for i < n
//!     pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # const VECTOR_ADD_PTX: &str = "";
//! // PTX from nvcc, for example include_str!("../ptx/vector_add.ptx")
//! let ctx = cuda_kernel::driver::context(0)?;
//! let stream = ctx.default_stream();
//! let module = cuda_kernel::driver::load_ptx(&ctx, VECTOR_ADD_PTX)?;
//! let kernel = VectorAdd::load(&module)?;
//!
//! let n = 1 << 20;
//! let a = stream.clone_htod(&vec![1.0f32; n])?;
//! let b = stream.clone_htod(&vec![2.0f32; n])?;
//! let mut c = stream.alloc_zeros::<f32>(n)?;
//! // SAFETY: vector_add reads a and b and writes c at indices below n, all of length n.
//! unsafe { kernel.launch(&stream, LaunchConfig::for_num_elems(n as u32), &a, &b, &mut c, n as u32)? };
//! assert!(stream.clone_dtoh(&c)?.iter().all(|&x| x == 3.0));
//! # Ok(())
//! # }
//! ```
//!
//! The arguments are packed into one buffer exactly as the device lays out the parameters (see
//! [`ParamLayout`]) and passed to `cuLaunchKernel` through `CU_LAUNCH_PARAM_BUFFER_POINTER`.
//! Loading compares the declaration with the parameters the driver reports for the kernel and
//! refuses a mismatch ([`Error::SignatureMismatch`]).

#![warn(missing_docs)]

#[cfg(not(target_endian = "little"))]
compile_error!("cuda-kernel packs parameters for little-endian GPUs from a little-endian host");

mod buffer;
mod config;
mod cuda_declaration;
mod device_arg;
pub mod driver;
mod error;
pub mod ffi;
mod global;
pub mod graph;
mod launch;
mod layout;
mod library;
mod load;
pub mod low_precision;
pub mod nvrtc;
mod param;
pub mod plan;
pub mod ptx;
pub mod vector;

pub use cuda_declaration::{cuda_header, write_cuda_header};
/// Declares CUDA kernels by their C signatures and generates a typed launcher for each.
///
/// # Declaring
///
/// Put `#[kernel]` on an `extern "C"` block (Rust 2024 spells it `unsafe extern "C"`) holding
/// one `fn` per kernel, with the parameters of the kernel's C signature in order:
///
/// ```
/// use cuda_kernel::{Float4, kernel};
///
/// #[kernel]
/// unsafe extern "C" {
///     /// c[i] = a[i] + b[i] for i < n
///     pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32);
///
///     /// Declared `safe`: its author vouches that any argument values are sound.
///     pub safe fn fill(x: *mut Float4, value: Float4, n: u32);
///
///     /// A C++ kernel without `extern "C"`, bound by its mangled name.
///     #[kernel(name = "_Z5scaleIfEvPT_S0_j")]
///     pub fn scale_f32(x: *mut f32, a: f32, n: u32);
/// }
///
/// assert_eq!(VectorAdd::NAME, "vector_add");
/// assert_eq!(VectorAdd::LAYOUT.size, 28);
/// assert_eq!(Fill::LAYOUT.params[1].offset, 16); // float4 is 16-byte aligned
/// ```
///
/// | C parameter | declare | `launch` takes |
/// |---|---|---|
/// | `const T*` | `*const T` | `&impl DeviceArg<T>`: `&CudaSlice<T>`, `&CudaView<T>`, `&CudaViewMut<T>`, `&Null` |
/// | `T*` | `*mut T` | `&mut impl DeviceArgMut<T>`: `&mut CudaSlice<T>`, `&mut CudaViewMut<T>`, `&mut Null` |
/// | `T*` only read | `#[kernel(read_only)] name: *mut T` | as for `const T*`: a shared borrow |
/// | `const T* const*` | `*const *const T` | device memory of addresses, `&CudaSlice<u64>` |
/// | `bool`, `signed char`, `short`, `int`, `long long` (and unsigned) | `bool`, `i8`/`u8`, `i16`/`u16`, `i32`/`u32`, `i64`/`u64` | the value |
/// | `char`, `long`, `size_t`, `ptrdiff_t`, ... | [`ffi::c_char`], [`ffi::c_long`], [`ffi::size_t`], [`ffi::ptrdiff_t`], ... | the value |
/// | `float`, `double`, `__half`, `__nv_bfloat16` | `f32`, `f64`, `half::f16`, `half::bf16` | the value |
/// | `float4`, `int2`, ... (every vector type) | [`Float4`], [`Int2`], ... ([`vector`]) | the value |
/// | `__nv_fp8_e4m3`, `__nv_fp6_e2m3`, `__nv_fp4_e2m1`, ... | [`low_precision`] types | the value |
/// | `CUdeviceptr` | `u64` | the address |
///
/// Any type implementing [`KernelParam`] can be a parameter.
///
/// # What it generates
///
/// For each `fn`, a type named in UpperCamelCase (`vector_add` → `VectorAdd`) with the fn's
/// visibility and doc comments, and:
///
/// - `NAME: &'static str`: the entry symbol;
/// - `LAYOUT: ParamLayout`: each parameter's offset, size and alignment in the parameter
///   buffer, computed at compile time as the device lays them out ([`ParamLayout`]);
/// - `load(&Arc<CudaModule>) -> Result<Self, Error>`: looks the kernel up and compares its
///   parameters with `LAYOUT` using the driver's `cuFuncGetParamInfo` (CUDA 12.4+ drivers), so a
///   declaration that disagrees with the loaded kernel is [`Error::SignatureMismatch`], never a
///   launch reading garbage;
/// - `launch(&self, stream, config, args...) -> Result<(), Error>`: packs the arguments into one
///   stack buffer and launches through `CU_LAUNCH_PARAM_BUFFER_POINTER`. `config` is a
///   [`Config`] (clusters, cooperative launches, priorities) or cudarc's `LaunchConfig`, checked
///   against the device's limits before the driver sees it. The launcher is `unsafe fn` unless
///   the kernel was declared `safe fn`: the compiler checks the arguments' types, not what the
///   kernel does with them;
/// - `pack(args...) -> ParamBuffer<N>`: the buffer a launch would send, with device memory as
///   addresses; needs no GPU and allocates nothing;
/// - `set_graph_node(&self, graph, node, stream, config, args...)`: sets the arguments of a
///   kernel node of an instantiated CUDA graph ([`graph::kernel_nodes`] finds them);
/// - `function(&self) -> &CudaFunction`: the loaded function.
///
/// Device memory arguments are borrowed through cudarc's `DevicePtr`/`DevicePtrMut`, so the
/// launch waits for earlier writes to them (and later work waits for it) exactly as cudarc's
/// own launches do when its multi-stream event tracking is on.
///
/// # Checking declarations against kernels
///
/// The driver does not check a parameter buffer: a declaration that disagrees with its kernel
/// would launch "successfully" and the kernel would read garbage. cuda-kernel closes that twice.
///
/// - **At compile time**, with `#[kernel(ptx = "path/to/file.ptx")]` (relative to the declaring
///   crate's `Cargo.toml`): every kernel must be an `.entry` of the file, with as many
///   parameters, each of the PTX's size and alignment; integers and floats must not be
///   swapped. A mismatch is a compile error on the parameter's type naming both sides
///   (`` `n: u64` is 8 bytes but the PTX declares .u32 (4 bytes): did you mean u32 or i32? ``).
///   When only a C++-mangled entry of the name exists, the error says so and gives the
///   `name = "..."` to write. Editing the PTX file rebuilds the crate.
/// - **At load time**, always: `load` asks the driver for the offset and size of each parameter
///   (`cuFuncGetParamInfo`) and returns [`Error::SignatureMismatch`] on any difference,
///   including a different parameter count. This covers modules from PTX, cubin, fatbin and
///   NVRTC alike. It needs a driver of CUDA 12.4 or newer; on older drivers the call does not
///   exist and the check is skipped (the compile-time check still applies).
///
/// Neither check can see a pointer's element type or the signedness of an integer: the device
/// ABI carries only sizes and alignments.
///
/// # C++ templates and dtype families
///
/// A generic declaration stands for many kernels. Under `cpp` it binds the instances of a C++
/// function template, type parameters for `typename` and const generics for non-type
/// parameters; `load` derives each instance's Itanium symbol from its arguments:
///
/// ```
/// use cuda_kernel::ffi::size_t;
/// use cuda_kernel::kernel;
///
/// #[kernel]
/// unsafe extern "C" {
///     /// template <class T> __global__ void reduce0(T*, T*, unsigned int)
///     #[kernel(cpp)]
///     fn reduce0<T>(g_idata: *mut T, g_odata: *mut T, n: u32);
///
///     /// template <int BLOCK_SIZE> __global__ void matrixMulCUDA(float*, float*, float*, int, int)
///     #[kernel(cpp)]
///     fn matrixMulCUDA<const BLOCK_SIZE: i32>(
///         c: *mut f32,
///         #[kernel(read_only)] a: *mut f32,
///         #[kernel(read_only)] b: *mut f32,
///         w_a: i32,
///         w_b: i32,
///     );
///
///     /// extern "C" kernels stamped out per type by a macro: affine_f32, affine_f16, ...
///     #[kernel(name = "affine_{T}")]
///     fn affine<T>(numel: size_t, inp: *const T, out: *mut T, mul: T, add: T);
/// }
///
/// assert_eq!(Reduce0::<f32>::symbol(), "_Z7reduce0IfEvPT_S1_j");
/// assert_eq!(MatrixMulCUDA::<32>::symbol(), "_Z13matrixMulCUDAILi32EEvPfS0_S0_ii");
/// assert_eq!(Affine::<half::f16>::symbol(), "affine_f16");
/// ```
///
/// With `ptx = "..."`, every instance (for built-in type arguments) and every member the PTX
/// holds is checked against the declaration with the arguments substituted. A symbol bound with
/// `name = "_Z..."` is demangled and its parameter types compared with the declaration's, so
/// `reduce0<int>` bound to float pointers is a compile error; messages show PTX entries
/// demangled, and only suggest entries whose types match.
///
/// # Device globals
///
/// `__constant__` and `__device__` variables are declared in the block as statics
/// (`static coeffs: [f32; 16];`), checked against the PTX's `.const`/`.global` variables, and
/// reached through a generated type whose `load` returns a typed [`DeviceGlobal`] to write and
/// read through a stream.
///
/// # Loading a block at once
///
/// `#[kernel(ptx = "$OUT_DIR/ml.ptx", module = pub MlKernels)]` generates `MlKernels` holding
/// one loaded launcher per kernel and one [`DeviceGlobal`] per static, loaded from the PTX it
/// embeds with `MlKernels::load(&ctx)`; `$OUT_DIR` names what the build step
/// (`cuda-kernel-build`) wrote.
///
/// # Rejected at compile time
///
/// ABIs other than `"C"`, generic declarations without `cpp` or a `{T}` pattern, variadic fns,
/// return types, references, slices, `Vec`, `String`, tuples and arrays by value,
/// `usize`/`isize`/`char`, patterns instead of parameter names, `static mut`, types and macros
/// inside the block, unknown `#[kernel(...)]` arguments, and signatures whose parameters exceed
/// [`MAX_PARAM_BYTES`]. Each error points at the culprit and
/// says what to write instead; a wrong argument at a `launch` call is a type error at the
/// argument.
///
/// ```compile_fail
/// #[cuda_kernel::kernel]
/// unsafe extern "C" {
///     fn sum(x: &[f32]) -> f32; // unsupported parameter type `&[f32]`: pass device memory ...
/// }
/// ```
///
/// # Arguments
///
/// - `ptx = "file.ptx"`: check the declarations against this PTX at compile time (above);
///   `"$OUT_DIR/file.ptx"` (any `$VARIABLE/`) resolves against an environment variable's folder.
/// - `module = Name` (or `module = pub Name`): a type that embeds the PTX and loads the block.
/// - `crate = path`: where the runtime is, for crates that re-export `cuda_kernel`
///   (`#[kernel(crate = my_gpu::cuda_kernel)]`).
/// - On a fn, `name = "symbol"`: the entry symbol, when it is not the fn's name; for a generic
///   declaration, a family's pattern (`"affine_{T}"`). On a static, the variable's symbol.
/// - On a parameter, `read_only`: a `*mut T` the kernel only reads takes a shared borrow.
/// - On a fn, `cpp`: the entry symbol is the Itanium C++ mangling of the declaration, for a
///   kernel not declared `extern "C"` (`fn saxpy(x: *const f32, y: *mut f32, a: f32, n: i32)` is
///   `_Z5saxpyPKfPffi`). `i8` mangles as `signed char`, `i64`/`u64` as `long long` (write
///   [`ffi::c_char`], [`ffi::c_long`], [`ffi::size_t`] for `char`, `long`, `size_t`), this
///   crate's vector types by their CUDA names, `half::f16` as `__half`, and other structs by
///   their names in the global namespace. Generic declarations derive template instances (above).
///   A wrong symbol is still caught by the `ptx` check or by `load`.
pub use cuda_kernel_macros::kernel;

pub use buffer::ParamBuffer;
pub use config::{
    Config, DEFAULT_SHARED_MEMORY_LIMIT, DeviceLimits, occupancy_block_size,
    raise_shared_memory_limit,
};
/// Makes a `#[repr(C)]` struct a kernel parameter type, laid out as the device lays it out.
///
/// Fields may be any [`KernelParam`] types: scalars, vector types, pointers, other derived
/// structs, and fixed-size arrays of these. Each field sits at its offset rounded up to its
/// alignment; the struct is aligned as its most aligned field (or its `#[repr(align(N))]`), and
/// its size is rounded up to that. Packing writes each field at its device offset and leaves
/// padding zeroed; it never reads the host struct's padding.
///
/// The derive also gives the struct `CUDA_DECLARATION`, its CUDA C declaration with
/// `static_assert`s on `sizeof`, `alignof` and every `offsetof`: write it into a header with
/// [`write_cuda_header`] and include that in the `.cu`, and nvcc checks the device side against
/// the same layout.
///
/// ```
/// use cuda_kernel::{Float3, KernelParam, kernel};
///
/// #[derive(Clone, Copy, KernelParam)]
/// #[repr(C)]
/// pub struct Ray {
///     pub origin: Float3,   // 12 bytes, align 4
///     pub bounces: u8,      // at 12
///     pub length: f64,      // at 16
///     pub weights: [f32; 3], // at 24
/// }
///
/// assert_eq!((Ray::SIZE, Ray::ALIGN), (40, 8));
/// assert!(Ray::CUDA_DECLARATION.contains("static_assert(offsetof(Ray, length) == 16"));
///
/// #[kernel]
/// unsafe extern "C" {
///     fn trace(ray: Ray, hits: *mut u32);
/// }
/// assert_eq!(Trace::LAYOUT.params[1].offset, 40);
/// ```
///
/// Rejected at compile time, on the culprit: a struct without `#[repr(C)]`, `#[repr(packed)]`,
/// generic structs, enums, unions, reference fields, and fields whose types are not parameter
/// types. For crates that re-export `cuda_kernel`: `#[kernel_param(crate = path)]`.
pub use cuda_kernel_macros::KernelParam;
pub use device_arg::{DeviceArg, DeviceArgMut, Null};
pub use error::{Error, SignatureMismatch};
pub use global::DeviceGlobal;
pub use layout::{
    MAX_PARAM_BYTES, MAX_PARAM_BYTES_LEGACY, MAX_STATIC_ALIGN, ParamLayout, ParamSlot,
};
pub use library::{Library, LibraryKernel, Loaded};
pub use param::{CType, KernelParam};
pub use plan::{Plan, PlanMut, PlanNode, PlanRef};
#[doc(no_inline)]
pub use vector::*;

/// The CUDA bindings cuda-kernel builds on (driver API, dynamic loading).
pub use cudarc;
/// Half-precision floats: `half::f16` is CUDA's `__half`, `half::bf16` its `__nv_bfloat16`.
pub use half;

/// What `#[kernel]` expands to refers to; not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::CType;
    pub use crate::Config;
    pub use crate::cuda_declaration::{
        ConstText, DECLARATION_CAPACITY, FieldDims, struct_declaration,
    };
    pub use crate::graph::{KernelNode, set_kernel_node};
    pub use crate::launch::launch_packed;
    pub use crate::layout::{struct_align, struct_size};
    pub use crate::load::{load_function, load_ptx};

    /// `load_library`'s lookup: the kernel `name` of `library`, checked against `layout`.
    pub fn load_library_kernel(
        library: &Arc<crate::Library>,
        name: &str,
        layout: &crate::ParamLayout,
    ) -> Result<crate::Loaded, crate::Error> {
        crate::LibraryKernel::load(library, name, layout)
            .map(|k| crate::Loaded::Library(Arc::new(k)))
    }
    pub use crate::{
        DeviceArg, DeviceArgMut, Error, KernelParam, ParamBuffer, ParamLayout, ParamSlot,
    };
    pub use ::core;
    pub use ::cudarc;
    pub use ::cudarc::driver::sys::CUdeviceptr;
    pub use ::cudarc::driver::{
        CudaContext, CudaFunction, CudaGraph, CudaModule, CudaStream, DevicePtr, DevicePtrMut,
    };
    pub use ::std::sync::Arc;

    /// A boolean as a type, for checks the macro states as trait bounds.
    pub struct Bool<const B: bool>;

    pub use crate::buffer::{ParamBytes, put};
    pub use crate::plan::{PlanKernel, PlanMut, PlanRef};
    pub use crate::{DeviceGlobal, Library, Loaded};
    pub use ::core::marker::PhantomData;
    pub use ::cuda_kernel_syntax::itanium::{self, TemplateArg};

    /// `T` as a template argument of a C++ kernel instance (`reduce0<float>`).
    pub fn template_arg<T: KernelParam>() -> TemplateArg {
        TemplateArg::Type(itanium::CppType::from_cuda(
            T::CUDA_TYPE.name,
            T::CUDA_TYPE.pointers,
        ))
    }

    /// The symbol of the instance `name<args>` of a C++ kernel template whose parameters the
    /// declaration writes as `params`, over the type parameters `generics`.
    pub fn template_symbol(
        name: &str,
        args: &[TemplateArg],
        params: &[&str],
        generics: &[&str],
    ) -> String {
        let params: Vec<_> = params
            .iter()
            .map(|p| {
                itanium::CppType::from_rust(p, generics)
                    .unwrap_or_else(|| itanium::CppType::Named(p.to_string()))
            })
            .collect();
        itanium::mangle(name, Some(args), &params)
    }

    /// What `{T}` stands for in a family's symbol pattern (`f16` for `half::f16`).
    pub fn family_name<T: KernelParam>() -> String {
        let mut name = itanium::family_name(T::CUDA_TYPE.name);
        for _ in 0..T::CUDA_TYPE.pointers {
            name.push_str("_ptr");
        }
        name
    }
}
