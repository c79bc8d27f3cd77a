//! C types without a fixed-width Rust name, as kernels write them: `size_t`, `ptrdiff_t`,
//! `long`, `char`, ...
//!
//! Declare a parameter with these names and it lays out as the C type does on 64-bit Linux,
//! prints as that type in the headers the build step writes, and mangles as C++ does, so a C++
//! kernel taking `size_t` is bound with `#[kernel(cpp)]` without copying its symbol (`size_t` is
//! `m`, `long` is `l`, and `u64`/`i64` are `uint64_t`/`int64_t`, the same types; `long long` is
//! `c_longlong`, `x`). The launcher takes the underlying Rust integer.
//!
//! ```
//! use cuda_kernel::ffi::{c_char, c_long, size_t};
//! use cuda_kernel::kernel;
//!
//! #[kernel]
//! unsafe extern "C" {
//!     #[kernel(cpp)]
//!     fn fill(x: *mut f32, n: size_t, stride: c_long, tag: c_char);
//! }
//! assert_eq!(Fill::NAME, "_Z4fillPfmlc");
//! assert_eq!(Fill::LAYOUT.size, 25);
//! ```
//!
//! Windows: `long` and `unsigned long` are 4 bytes there (`c_long` is `i32`), while CUDA's
//! `size_t` and pointers stay 8. The launcher follows `core::ffi` on every target, but the
//! build step writes struct layouts for 64-bit Linux.
#![allow(non_camel_case_types)]

pub use core::ffi::{
    c_char, c_double, c_float, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint,
    c_ulong, c_ulonglong, c_ushort,
};

/// C's `void`, for untyped device memory: a kernel taking `const void*` (ggml's and candle's
/// quantized kernels take their blocks so) is declared with `*const c_void`, and its launcher
/// takes device memory of any element type there (`&CudaSlice<u8>`, `&CudaView<f32>`, ...).
/// The same type as `core::ffi::c_void`, so either path declares it.
///
/// ```
/// use cuda_kernel::ffi::c_void;
/// use cuda_kernel::kernel;
///
/// #[kernel]
/// unsafe extern "C" {
///     #[kernel(cpp)]
///     fn dequantize(vx: *const c_void, y: *mut f32, n: i32);
/// }
/// assert_eq!(Dequantize::NAME, "_Z10dequantizePKvPfi");
/// # fn f(k: &Dequantize, s: &cuda_kernel::cudarc::driver::CudaStream,
/// #     blocks: &cuda_kernel::cudarc::driver::CudaSlice<u8>,
/// #     y: &mut cuda_kernel::cudarc::driver::CudaSlice<f32>) -> Result<(), cuda_kernel::Error> {
/// // Quantized blocks as bytes: any element type goes where the kernel takes `void*`.
/// unsafe { k.launch(s, cuda_kernel::Config::for_elements(256, 256), blocks, y, 256) }
/// # }
/// ```
pub use core::ffi::c_void;

/// C's `size_t`: Rust's `usize` (8 bytes on every CUDA host), `unsigned long` (`m`) in C++
/// symbols on Linux. Declaring `usize` is the same.
pub type size_t = usize;

/// C's `ptrdiff_t`: Rust's `isize`, `long` (`l`) in C++ symbols on Linux. Declaring `isize` is
/// the same.
pub type ptrdiff_t = isize;
