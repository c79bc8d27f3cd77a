//! TMA descriptors: [`TensorMap`] and [`TensorMapMut`], typed by element and rank, built from
//! device memory they borrow, checked against the rules the driver enforces, and launched as
//! the `const __grid_constant__ CUtensorMap` parameter of a Hopper (or newer) kernel.
//! ([`TensorMap`] shows a declaration and a launch.)

use cudarc::driver::sys;
use cudarc::driver::{CudaStream, SyncOnDrop};

use crate::{DeviceArg, DeviceArgMut, Error, ExactLength};

/// The 128 bytes of a `CUtensorMap`, aligned as CUDA 13's `cuda.h` aligns it (CUDA 12's aligns
/// it to 64): what a kernel's `const __grid_constant__ CUtensorMap` parameter receives.
///
/// A declaration may name a descriptor parameter `RawTensorMap` (what declarations generated
/// from `.cu` files do, since C does not say the element type and rank); its launcher then
/// takes the bytes, which borrow nothing: [`TensorMap::raw`] gives them.
///
/// ```
/// use cuda_kernel::{KernelParam, RawTensorMap};
/// assert_eq!((RawTensorMap::SIZE, RawTensorMap::ALIGN), (128, 128));
/// assert_eq!(RawTensorMap::CUDA_TYPE.to_string(), "CUtensorMap_st");
/// ```
#[repr(C, align(128))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RawTensorMap {
    /// The descriptor's bytes, opaque: `cuTensorMapEncodeTiled` writes them.
    pub opaque: [u64; 16],
}

// A descriptor holds a global address: a kernel parameter, but not `AddressFree`.
crate::param::pod_param!(addresses: RawTensorMap => 128, 128, "CUtensorMap_st";);

/// An element type a TMA descriptor moves: its `CUtensorMapDataType`. FP8 types travel as
/// bytes (`UINT8`), as CUTLASS moves them.
///
/// # Safety
/// `DATA_TYPE` has the size of `Self`.
pub unsafe trait TensorMapElement: Copy {
    /// The descriptor's data type.
    const DATA_TYPE: sys::CUtensorMapDataType;
    /// Whether it is a floating-point type (out-of-bounds elements may then read as NaN).
    const FLOAT: bool;
}

macro_rules! elements {
    ($($t:ty => $data:ident, $float:literal;)*) => {$(
        // SAFETY: the data type has the element's size.
        unsafe impl TensorMapElement for $t {
            const DATA_TYPE: sys::CUtensorMapDataType =
                sys::CUtensorMapDataType::$data;
            const FLOAT: bool = $float;
        }
    )*};
}

elements! {
    u8 => CU_TENSOR_MAP_DATA_TYPE_UINT8, false;
    i8 => CU_TENSOR_MAP_DATA_TYPE_UINT8, false;
    u16 => CU_TENSOR_MAP_DATA_TYPE_UINT16, false;
    i16 => CU_TENSOR_MAP_DATA_TYPE_UINT16, false;
    u32 => CU_TENSOR_MAP_DATA_TYPE_UINT32, false;
    i32 => CU_TENSOR_MAP_DATA_TYPE_INT32, false;
    u64 => CU_TENSOR_MAP_DATA_TYPE_UINT64, false;
    i64 => CU_TENSOR_MAP_DATA_TYPE_INT64, false;
    half::f16 => CU_TENSOR_MAP_DATA_TYPE_FLOAT16, true;
    half::bf16 => CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, true;
    f32 => CU_TENSOR_MAP_DATA_TYPE_FLOAT32, true;
    f64 => CU_TENSOR_MAP_DATA_TYPE_FLOAT64, true;
    crate::low_precision::F8E4M3 => CU_TENSOR_MAP_DATA_TYPE_UINT8, false;
    crate::low_precision::F8E5M2 => CU_TENSOR_MAP_DATA_TYPE_UINT8, false;
}

/// How a descriptor's box is laid out in shared memory (`CUtensorMapSwizzle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Swizzle {
    /// Rows as they are.
    #[default]
    None,
    /// 32-byte swizzle: the box's inner dimension spans at most 32 bytes.
    B32,
    /// 64-byte swizzle: at most 64 bytes.
    B64,
    /// 128-byte swizzle: at most 128 bytes (what WGMMA tiles use).
    B128,
}

impl Swizzle {
    /// The span of its pattern in bytes; 0 for none.
    fn span(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    fn raw(self) -> sys::CUtensorMapSwizzle {
        use sys::CUtensorMapSwizzle::*;
        match self {
            Swizzle::None => CU_TENSOR_MAP_SWIZZLE_NONE,
            Swizzle::B32 => CU_TENSOR_MAP_SWIZZLE_32B,
            Swizzle::B64 => CU_TENSOR_MAP_SWIZZLE_64B,
            Swizzle::B128 => CU_TENSOR_MAP_SWIZZLE_128B,
        }
    }
}

/// Interleaved layouts (`CUtensorMapInterleave`), for tensors of rank 3 or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Interleave {
    /// Not interleaved.
    #[default]
    None,
    /// 16-byte interleave (NC/8HWC8 for 16-bit types).
    B16,
    /// 32-byte interleave: the address and strides align to 32 bytes.
    B32,
}

impl Interleave {
    fn raw(self) -> sys::CUtensorMapInterleave {
        use sys::CUtensorMapInterleave::*;
        match self {
            Interleave::None => CU_TENSOR_MAP_INTERLEAVE_NONE,
            Interleave::B16 => CU_TENSOR_MAP_INTERLEAVE_16B,
            Interleave::B32 => CU_TENSOR_MAP_INTERLEAVE_32B,
        }
    }
}

/// How far a load promotes the lines it touches in L2 (`CUtensorMapL2promotion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum L2Promotion {
    /// No promotion.
    #[default]
    None,
    /// To 64 bytes.
    B64,
    /// To 128 bytes.
    B128,
    /// To 256 bytes.
    B256,
}

impl L2Promotion {
    fn raw(self) -> sys::CUtensorMapL2promotion {
        use sys::CUtensorMapL2promotion::*;
        match self {
            L2Promotion::None => CU_TENSOR_MAP_L2_PROMOTION_NONE,
            L2Promotion::B64 => CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
            L2Promotion::B128 => CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            L2Promotion::B256 => CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        }
    }
}

/// What a load reads outside the tensor (`CUtensorMapFloatOOBfill`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum OobFill {
    /// Zeros.
    #[default]
    Zero,
    /// NaN (a floating-point element type only), which FMA treats as zero.
    Nan,
}

/// The shape of a tiled descriptor of rank `N`: the tensor's dimensions and strides, the box a
/// TMA copy moves, and its options. Dimensions run innermost first, as the driver takes them.
///
/// ```
/// use cuda_kernel::{Swizzle, Tiled};
/// // A row-major 4096 x 1024 matrix of f16 in rows of 1056 elements (2112 bytes), moved in
/// // boxes of 64 x 128 with the 128-byte swizzle WGMMA reads.
/// let tiles = Tiled::new([1024, 4096], [64, 128])
///     .strides([2112])
///     .swizzle(Swizzle::B128);
/// assert_eq!(tiles.dims, [1024, 4096]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tiled<const N: usize> {
    /// Elements along each dimension, innermost first.
    pub dims: [u64; N],
    /// Bytes from one index to the next along each dimension but the innermost (the first
    /// entry is unused, the elements of the innermost being contiguous); `None` for packed
    /// memory, each stride the previous one times its dimension.
    pub strides: Option<[u64; N]>,
    /// Elements the box moves along each dimension.
    pub box_dims: [u32; N],
    /// Elements stepped along each dimension (1 everywhere for a dense box).
    pub element_strides: [u32; N],
    /// Interleaved layouts.
    pub interleave: Interleave,
    /// The box's layout in shared memory.
    pub swizzle: Swizzle,
    /// L2 promotion.
    pub l2_promotion: L2Promotion,
    /// What loads read outside the tensor.
    pub oob_fill: OobFill,
}

/// A rule broken: [`Error::TensorMap`].
fn bad<T>(field: &'static str, rule: String) -> Result<T, Error> {
    Err(Error::TensorMap { field, rule })
}

/// The tensor in global memory, as tiled and im2col descriptors describe it alike.
struct Tensor<'s, const N: usize> {
    dims: &'s [u64; N],
    strides: Option<[u64; N]>,
    element_strides: &'s [u32; N],
    interleave: Interleave,
    oob_fill: OobFill,
}

impl<const N: usize> Tensor<'_, N> {
    /// The byte strides of dimensions 1.. (packed where none are given), after the rules the
    /// driver enforces on the tensor (rank, address, dimensions, strides, element strides, the
    /// fill) and ours: the last element it reaches lies inside the memory's `len` elements.
    fn check(&self, address: u64, len: usize, elem: usize, float: bool) -> Result<Vec<u64>, Error> {
        if N == 0 || N > 5 {
            return bad("rank", format!("is {N}, but a descriptor has rank 1 to 5"));
        }
        if self.interleave != Interleave::None && N < 3 {
            return bad(
                "interleave",
                format!("needs a rank of 3 or more, but the rank is {N}"),
            );
        }
        let align = if self.interleave == Interleave::B32 {
            32
        } else {
            16
        };
        if address % align != 0 {
            return bad(
                "global address",
                format!("{address:#x} is not a multiple of {align} bytes"),
            );
        }
        for (i, &d) in self.dims.iter().enumerate() {
            if d == 0 || d > 1 << 32 {
                return bad(
                    "dims",
                    format!("dims[{i}] is {d}, but each dimension is 1 to 2^32 elements"),
                );
            }
        }
        let mut strides = vec![0u64; N];
        let mut packed = elem as u64;
        for (i, stride) in strides.iter_mut().enumerate().skip(1) {
            packed = packed.saturating_mul(self.dims[i - 1]);
            *stride = match self.strides {
                Some(given) if given[0] == u64::MAX => {
                    return bad(
                        "strides",
                        format!("a rank-{N} descriptor takes {} strides", N - 1),
                    );
                }
                Some(given) => given[i],
                None => packed,
            };
        }
        for (i, &s) in strides.iter().enumerate().skip(1) {
            if s % align != 0 || s >= 1 << 40 {
                return bad(
                    "strides",
                    format!(
                        "the stride of dimension {i} is {s} bytes, but strides are multiples of {align} bytes below 2^40"
                    ),
                );
            }
        }
        let mut last = (self.dims[0] - 1).saturating_mul(elem as u64);
        for (dim, stride) in self.dims.iter().zip(&strides).skip(1) {
            last = last.saturating_add((dim - 1).saturating_mul(*stride));
        }
        let reach = last.saturating_add(elem as u64);
        let bytes = (len as u64).saturating_mul(elem as u64);
        if reach > bytes {
            return bad(
                "dims",
                format!(
                    "with these dimensions and strides the tensor reaches {reach} bytes, but its memory holds {len} elements ({bytes} bytes)"
                ),
            );
        }
        for (i, &e) in self.element_strides.iter().enumerate() {
            if e == 0 || e > 8 {
                return bad(
                    "element strides",
                    format!("element_strides[{i}] is {e}, but each is 1 to 8"),
                );
            }
        }
        if self.oob_fill == OobFill::Nan && !float {
            return bad(
                "oob fill",
                "NaN fill needs a floating-point element type".to_string(),
            );
        }
        Ok(strides)
    }
}

/// What a copy moves innermost (`what`, of `inner` bytes) against the rules of an
/// uninterleaved layout: a multiple of 16 bytes, within the swizzle's span.
fn inner_bytes(
    field: &'static str,
    what: &str,
    inner: u64,
    interleave: Interleave,
    swizzle: Swizzle,
) -> Result<(), Error> {
    if interleave != Interleave::None {
        return Ok(());
    }
    if inner % 16 != 0 {
        return bad(
            field,
            format!("{what} spans {inner} bytes, but it must be a multiple of 16 bytes"),
        );
    }
    let span = swizzle.span();
    if span != 0 && inner > span {
        return bad(
            "swizzle",
            format!(
                "the {span}-byte swizzle takes at most {span} bytes innermost, but {what} spans {inner}"
            ),
        );
    }
    Ok(())
}

/// The builder methods of what [`Tiled`] and [`Im2col`] share (the tensor in global memory and
/// the copy's options), and the tensor as their checks read it.
macro_rules! tensor_options {
    ($shape:ident) => {
        impl<const N: usize> $shape<N> {
            /// Pitched memory: the bytes from one index to the next along each dimension but
            /// the innermost (dimension 1 first). Takes the first `N - 1` entries of `strides`;
            /// fewer is an error when the descriptor is built.
            pub fn strides(mut self, strides: impl AsRef<[u64]>) -> $shape<N> {
                self.strides = Some(pitched(strides.as_ref()));
                self
            }

            /// Elements stepped along each dimension.
            pub const fn element_strides(mut self, element_strides: [u32; N]) -> $shape<N> {
                self.element_strides = element_strides;
                self
            }

            /// Interleaved layouts.
            pub const fn interleave(mut self, interleave: Interleave) -> $shape<N> {
                self.interleave = interleave;
                self
            }

            /// The copy's layout in shared memory.
            pub const fn swizzle(mut self, swizzle: Swizzle) -> $shape<N> {
                self.swizzle = swizzle;
                self
            }

            /// L2 promotion.
            pub const fn l2_promotion(mut self, l2_promotion: L2Promotion) -> $shape<N> {
                self.l2_promotion = l2_promotion;
                self
            }

            /// What loads read outside the tensor.
            pub const fn oob_fill(mut self, oob_fill: OobFill) -> $shape<N> {
                self.oob_fill = oob_fill;
                self
            }

            /// The tensor in global memory, as the checks read it.
            fn tensor(&self) -> Tensor<'_, N> {
                Tensor {
                    dims: &self.dims,
                    strides: self.strides,
                    element_strides: &self.element_strides,
                    interleave: self.interleave,
                    oob_fill: self.oob_fill,
                }
            }
        }
    };
}

tensor_options!(Tiled);
tensor_options!(Im2col);

/// Strides given for dimensions 1.. as the shapes keep them: entry 0 unused (0), or `u64::MAX`
/// where fewer than `N - 1` were given, which the check names.
fn pitched<const N: usize>(strides: &[u64]) -> [u64; N] {
    let mut all = [0; N];
    for (to, from) in all.iter_mut().skip(1).zip(strides) {
        *to = *from;
    }
    if strides.len() + 1 < N {
        all[0] = u64::MAX;
    }
    all
}

impl<const N: usize> Tiled<N> {
    /// A packed tensor of `dims` elements moved in boxes of `box_dims`: dense, not interleaved,
    /// not swizzled, no L2 promotion, zeros outside.
    pub const fn new(dims: [u64; N], box_dims: [u32; N]) -> Tiled<N> {
        Tiled {
            dims,
            strides: None,
            box_dims,
            element_strides: [1; N],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::Zero,
        }
    }

    /// The byte strides of dimensions 1.., each dimension's extent checked against the
    /// memory's `len` elements of `elem` bytes, and every rule of `cuTensorMapEncodeTiled`.
    fn check(&self, address: u64, len: usize, elem: usize, float: bool) -> Result<Vec<u64>, Error> {
        let strides = self.tensor().check(address, len, elem, float)?;
        for (i, &b) in self.box_dims.iter().enumerate() {
            if b == 0 || b > 256 {
                return bad(
                    "box dims",
                    format!("box_dims[{i}] is {b}, but each box dimension is 1 to 256 elements"),
                );
            }
        }
        let inner = u64::from(self.box_dims[0]) * elem as u64;
        inner_bytes(
            "box dims",
            "the box's inner dimension",
            inner,
            self.interleave,
            self.swizzle,
        )?;
        Ok(strides)
    }

    /// Encodes the descriptor of `address` (`cuTensorMapEncodeTiled`).
    fn encode<T: TensorMapElement>(&self, address: u64, len: usize) -> Result<RawTensorMap, Error> {
        let strides = self.check(address, len, size_of::<T>(), T::FLOAT)?;
        encoding()?;
        let mut raw = RawTensorMap::default();
        let oob = self.oob_fill.raw();
        // SAFETY: every array holds `N` entries (the strides from index 1: N - 1), the output
        // is 128 bytes aligned to 128 (at least what `CUtensorMap` needs).
        let result = unsafe {
            sys::cuTensorMapEncodeTiled(
                (&raw mut raw).cast::<sys::CUtensorMap>(),
                T::DATA_TYPE,
                N as u32,
                address as *mut core::ffi::c_void,
                self.dims.as_ptr(),
                strides[1..].as_ptr(),
                self.box_dims.as_ptr(),
                self.element_strides.as_ptr(),
                self.interleave.raw(),
                self.swizzle.raw(),
                self.l2_promotion.raw(),
                oob,
            )
        };
        encoded(result, raw, self)
    }
}

/// A descriptor's shape: [`Tiled`] or [`Im2col`], encoded for memory at an address.
pub trait TensorMapShape<const N: usize>: sealed::Sealed {
    /// Checks the shape against the driver's rules and the memory's `len` elements, then
    /// encodes the descriptor of `address`.
    #[doc(hidden)]
    fn encode_for<T: TensorMapElement>(
        &self,
        address: u64,
        len: usize,
    ) -> Result<RawTensorMap, Error>;
}

mod sealed {
    pub trait Sealed {}
    impl<const N: usize> Sealed for super::Tiled<N> {}
    impl<const N: usize> Sealed for super::Im2col<N> {}
}

impl<const N: usize> TensorMapShape<N> for Tiled<N> {
    fn encode_for<T: TensorMapElement>(
        &self,
        address: u64,
        len: usize,
    ) -> Result<RawTensorMap, Error> {
        self.encode::<T>(address, len)
    }
}

impl<const N: usize> TensorMapShape<N> for Im2col<N> {
    fn encode_for<T: TensorMapElement>(
        &self,
        address: u64,
        len: usize,
    ) -> Result<RawTensorMap, Error> {
        self.encode::<T>(address, len)
    }
}

/// The driver can encode descriptors: present, CUDA 12.0 or newer.
fn encoding() -> Result<(), Error> {
    crate::driver::require()?;
    if crate::driver::version()? < 12_000 {
        return Err(Error::Unsupported(
            "TMA descriptors need a CUDA 12.0 or newer driver (cuTensorMapEncodeTiled)",
        ));
    }
    Ok(())
}

/// The driver's answer to an encoding whose every documented rule held.
fn encoded(
    result: sys::CUresult,
    raw: RawTensorMap,
    shape: &dyn core::fmt::Debug,
) -> Result<RawTensorMap, Error> {
    match result {
        sys::CUresult::CUDA_SUCCESS => Ok(raw),
        code => Err(Error::TensorMap {
            field: "descriptor",
            rule: format!(
                "the driver refused it ({code:?}) after every documented rule held: {shape:?}"
            ),
        }),
    }
}

impl OobFill {
    fn raw(self) -> sys::CUtensorMapFloatOOBfill {
        match self {
            OobFill::Zero => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            OobFill::Nan => {
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
            }
        }
    }
}

/// The shape of an im2col descriptor of rank `N` (3 to 5: channels innermost, then `N - 2`
/// spatial dimensions, then the batch), as convolutions read their input: each copy moves
/// `pixels_per_column` pixels of `channels_per_pixel` channels, walking the bounding box of
/// the filter, which `lower_corner` and `upper_corner` give per spatial dimension (innermost
/// first). Dimensions run innermost first, as the driver takes them.
///
/// ```
/// use cuda_kernel::Im2col;
/// // NHWC input of 8 x 32 x 32 x 64 f16, a 3 x 3 filter with padding 1: corners -1 and -1,
/// // 64 channels of 64 pixels a copy.
/// let shape = Im2col::new([64, 32, 32, 8], [-1, -1], [-1, -1], 64, 64);
/// assert_eq!(shape.channels_per_pixel, 64);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Im2col<const N: usize> {
    /// Elements along each dimension, innermost (channels) first.
    pub dims: [u64; N],
    /// Bytes from one index to the next along each dimension but the innermost, as for
    /// [`Tiled::strides`]; `None` for packed memory.
    pub strides: Option<[u64; N]>,
    /// The bounding box's lower corner along each spatial dimension (the first `N - 2`).
    pub lower_corner: [i32; 3],
    /// The bounding box's upper corner along each spatial dimension.
    pub upper_corner: [i32; 3],
    /// How many spatial corners were given (must be `N - 2`).
    corners: usize,
    /// Channels of each pixel a copy moves.
    pub channels_per_pixel: u32,
    /// Pixels a copy moves.
    pub pixels_per_column: u32,
    /// Elements stepped along each dimension.
    pub element_strides: [u32; N],
    /// Interleaved layouts.
    pub interleave: Interleave,
    /// The copy's layout in shared memory.
    pub swizzle: Swizzle,
    /// L2 promotion.
    pub l2_promotion: L2Promotion,
    /// What loads read outside the tensor.
    pub oob_fill: OobFill,
}

impl<const N: usize> Im2col<N> {
    /// A packed tensor of `dims` elements read by a filter whose bounding box has the corners
    /// `lower` and `upper` (one per spatial dimension, `N - 2` of them), `channels_per_pixel`
    /// channels of `pixels_per_column` pixels a copy: dense, not interleaved, not swizzled.
    pub fn new(
        dims: [u64; N],
        lower: impl AsRef<[i32]>,
        upper: impl AsRef<[i32]>,
        channels_per_pixel: u32,
        pixels_per_column: u32,
    ) -> Im2col<N> {
        let (lower, upper) = (lower.as_ref(), upper.as_ref());
        let (mut lower_corner, mut upper_corner) = ([0; 3], [0; 3]);
        for (to, from) in lower_corner.iter_mut().zip(lower) {
            *to = *from;
        }
        for (to, from) in upper_corner.iter_mut().zip(upper) {
            *to = *from;
        }
        let corners = if lower.len() == upper.len() && lower.len() <= 3 {
            lower.len()
        } else {
            usize::MAX
        };
        Im2col {
            dims,
            strides: None,
            lower_corner,
            upper_corner,
            corners,
            channels_per_pixel,
            pixels_per_column,
            element_strides: [1; N],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::Zero,
        }
    }

    /// As [`Tiled::check`], with the rules of `cuTensorMapEncodeIm2col`.
    fn check(&self, address: u64, len: usize, elem: usize, float: bool) -> Result<Vec<u64>, Error> {
        if !(3..=5).contains(&N) {
            return bad(
                "rank",
                format!("is {N}, but an im2col descriptor has rank 3 to 5"),
            );
        }
        let strides = self.tensor().check(address, len, elem, float)?;
        if self.corners != N - 2 {
            return bad(
                "corners",
                format!(
                    "a rank-{N} im2col descriptor takes {} lower and upper corners, one per spatial dimension",
                    N - 2
                ),
            );
        }
        // The corners' range narrows as the spatial dimensions grow in number.
        let reach: i32 = match N {
            3 => 1 << 15,
            4 => 1 << 7,
            _ => 1 << 4,
        };
        for (i, &c) in self.lower_corner[..N - 2]
            .iter()
            .chain(&self.upper_corner[..N - 2])
            .enumerate()
        {
            if c < -reach || c >= reach {
                return bad(
                    "corners",
                    format!(
                        "corner {c} (entry {i}) is outside -{reach} to {} for rank {N}",
                        reach - 1
                    ),
                );
            }
        }
        if self.channels_per_pixel == 0 || self.channels_per_pixel > 256 {
            return bad(
                "channels per pixel",
                format!("is {}, but it is 1 to 256", self.channels_per_pixel),
            );
        }
        if self.pixels_per_column == 0 || self.pixels_per_column > 1024 {
            return bad(
                "pixels per column",
                format!("is {}, but it is 1 to 1024", self.pixels_per_column),
            );
        }
        let inner = u64::from(self.channels_per_pixel) * elem as u64;
        inner_bytes(
            "channels per pixel",
            "a pixel's channels",
            inner,
            self.interleave,
            self.swizzle,
        )?;
        Ok(strides)
    }

    /// Encodes the descriptor of `address` (`cuTensorMapEncodeIm2col`).
    fn encode<T: TensorMapElement>(&self, address: u64, len: usize) -> Result<RawTensorMap, Error> {
        let strides = self.check(address, len, size_of::<T>(), T::FLOAT)?;
        encoding()?;
        let mut raw = RawTensorMap::default();
        // SAFETY: every array holds `N` entries (strides from index 1, corners `N - 2`), the
        // output is 128 bytes aligned to 128.
        let result = unsafe {
            sys::cuTensorMapEncodeIm2col(
                (&raw mut raw).cast::<sys::CUtensorMap>(),
                T::DATA_TYPE,
                N as u32,
                address as *mut core::ffi::c_void,
                self.dims.as_ptr(),
                strides[1..].as_ptr(),
                self.lower_corner.as_ptr(),
                self.upper_corner.as_ptr(),
                self.channels_per_pixel,
                self.pixels_per_column,
                self.element_strides.as_ptr(),
                self.interleave.raw(),
                self.swizzle.raw(),
                self.l2_promotion.raw(),
                self.oob_fill.raw(),
            )
        };
        encoded(result, raw, self)
    }
}

/// A TMA descriptor of `N`-dimensional memory of `T`s that a kernel reads (TMA loads), built
/// by [`tiled`](Self::tiled) or [`im2col`](Self::im2col) from memory it borrows for `'a`. A
/// launcher whose declaration names a `TensorMap<T, N>` parameter takes `&TensorMap<T, N>` (or
/// a `&mut` [`TensorMapMut`]).
///
/// A declaration names a descriptor parameter by its element type and rank, and the launcher
/// takes only a descriptor of those:
///
/// ```no_run
/// use cuda_kernel::{Config, TensorMap, TensorMapMut, Tiled, kernel};
///
/// #[kernel]
/// unsafe extern "C" {
///     // extern "C" __global__ void tma_copy(const __grid_constant__ CUtensorMap src,
///     //                                     const __grid_constant__ CUtensorMap dst);
///     fn tma_copy(src: TensorMap<f32, 2>, dst: TensorMap<f32, 2>);
/// }
///
/// # fn main() -> Result<(), cuda_kernel::Error> {
/// # const PTX: &str = "";
/// let ctx = cuda_kernel::driver::context(0)?;
/// let stream = ctx.default_stream();
/// let copy = TmaCopy::load(&cuda_kernel::driver::load_ptx(&ctx, PTX)?)?;
/// let x = stream.clone_htod(&vec![1.0f32; 1024 * 1024])?;
/// let mut y = stream.alloc_zeros::<f32>(1024 * 1024)?;
/// // 1024 x 1024 floats, rows packed, moved in boxes of 32 x 32.
/// let tiles = Tiled::new([1024, 1024], [32, 32]);
/// let src = TensorMap::tiled(&stream, &x, &tiles)?;
/// let mut dst = TensorMapMut::tiled(&stream, &mut y, &tiles)?;
/// unsafe { copy.launch(&stream, Config::new((32, 32, 1), (128, 1, 1)), &src, &mut dst)? };
/// // Past its last use, `dst` no longer holds `y`.
/// let back = stream.clone_dtoh(&y)?;
/// # Ok(()) }
/// ```
///
/// A launch counts as a use of the memory a descriptor points into, as a pointer argument
/// does: it is ordered after earlier work on it and recorded for later work (cudarc's event
/// tracking). [`TensorMap`] borrows its memory shared and the kernel may only read through it
/// (TMA loads); [`TensorMapMut`] borrows it mutably and the kernel may write through it (TMA
/// stores). Either cannot outlive its memory: a descriptor used after its slice is dropped is a
/// compile-time error.
pub struct TensorMap<'a, T, const N: usize> {
    raw: RawTensorMap,
    memory: &'a (dyn DeviceArg<T> + Sync + 'a),
}

/// A TMA descriptor of memory a kernel writes (TMA stores) and reads, built by
/// [`tiled`](Self::tiled) from memory it borrows mutably for `'a`. A launcher takes it as
/// `&mut TensorMapMut<T, N>`, so no other launch may use the memory meanwhile.
pub struct TensorMapMut<'a, T, const N: usize> {
    raw: RawTensorMap,
    memory: &'a mut (dyn DeviceArgMut<T> + Send + Sync + 'a),
}

impl<'a, T: TensorMapElement, const N: usize> TensorMap<'a, T, N> {
    /// The descriptor of `memory` shaped by `tiles`, each rule the driver enforces checked
    /// first ([`Error::TensorMap`] names the field and the rule), and the tensor's extent
    /// checked against the memory's length. `stream` is where the memory's address is read
    /// (in cudarc's terms, a use of it on that stream).
    pub fn tiled<D>(stream: &CudaStream, memory: &'a D, tiles: &Tiled<N>) -> Result<Self, Error>
    where
        D: DeviceArg<T> + ExactLength + Sync + 'a,
    {
        Self::new(stream, memory, tiles)
    }

    /// The im2col descriptor of `memory` shaped by `shape` (a convolution's input), checked
    /// as [`tiled`](Self::tiled) checks.
    pub fn im2col<D>(stream: &CudaStream, memory: &'a D, shape: &Im2col<N>) -> Result<Self, Error>
    where
        D: DeviceArg<T> + ExactLength + Sync + 'a,
    {
        Self::new(stream, memory, shape)
    }

    /// The descriptor of `memory` in `shape`: [`Tiled`] or [`Im2col`].
    pub fn new<D>(
        stream: &CudaStream,
        memory: &'a D,
        shape: &impl TensorMapShape<N>,
    ) -> Result<Self, Error>
    where
        D: DeviceArg<T> + ExactLength + Sync + 'a,
    {
        memory.check(stream)?;
        let _entered = crate::driver::result::enter(stream.context())?;
        let (address, guard) = memory.device_arg(stream);
        drop(guard);
        let len = memory.element_count().unwrap_or(0);
        let raw = shape.encode_for::<T>(address, len)?;
        Ok(TensorMap { raw, memory })
    }
}

impl<'a, T: TensorMapElement, const N: usize> TensorMapMut<'a, T, N> {
    /// [`TensorMap::tiled`] for memory the kernel writes.
    pub fn tiled<D>(stream: &CudaStream, memory: &'a mut D, tiles: &Tiled<N>) -> Result<Self, Error>
    where
        D: DeviceArgMut<T> + ExactLength + Send + Sync + 'a,
    {
        Self::new(stream, memory, tiles)
    }

    /// [`TensorMap::new`] for memory the kernel writes.
    pub fn new<D>(
        stream: &CudaStream,
        memory: &'a mut D,
        shape: &impl TensorMapShape<N>,
    ) -> Result<Self, Error>
    where
        D: DeviceArgMut<T> + ExactLength + Send + Sync + 'a,
    {
        memory.check_mut(stream)?;
        let _entered = crate::driver::result::enter(stream.context())?;
        let len = memory.element_count_mut().unwrap_or(0);
        let (address, guard) = memory.device_arg_mut(stream);
        drop(guard);
        let raw = shape.encode_for::<T>(address, len)?;
        Ok(TensorMapMut { raw, memory })
    }
}

impl<T, const N: usize> TensorMap<'_, T, N> {
    /// The descriptor's bytes, which borrow nothing: for a kernel declared with a
    /// [`RawTensorMap`] parameter, or a raw launch.
    pub fn raw(&self) -> RawTensorMap {
        self.raw
    }
}

impl<T, const N: usize> TensorMapMut<'_, T, N> {
    /// The descriptor's bytes, which borrow nothing.
    pub fn raw(&self) -> RawTensorMap {
        self.raw
    }
}

impl<'a, T, const N: usize> TensorMap<'a, T, N> {
    /// The memory it borrows (for a plan, which holds the borrow).
    pub(crate) fn memory(&self) -> &'a (dyn DeviceArg<T> + Sync + 'a) {
        self.memory
    }
}

impl<'a, T, const N: usize> TensorMapMut<'a, T, N> {
    /// The descriptor's bytes and the memory it borrows mutably (for a plan).
    pub(crate) fn into_parts(
        self,
    ) -> (
        RawTensorMap,
        &'a mut (dyn DeviceArgMut<T> + Send + Sync + 'a),
    ) {
        (self.raw, self.memory)
    }
}

impl<T, const N: usize> core::fmt::Debug for TensorMap<'_, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "TensorMap<{}, {N}>", core::any::type_name::<T>())
    }
}

impl<T, const N: usize> core::fmt::Debug for TensorMapMut<'_, T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "TensorMapMut<{}, {N}>", core::any::type_name::<T>())
    }
}

/// A TMA descriptor argument for a parameter declared `TensorMap<T, N>`: `&TensorMap<T, N>`,
/// or `&mut TensorMapMut<T, N>` for one the kernel writes through.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a TMA descriptor of `{T}` of rank {N}",
    label = "expected `&TensorMap<{T}, {N}>` or `&mut TensorMapMut<{T}, {N}>`",
    note = "a descriptor's element type and rank are its declaration's: build it with `TensorMap::<{T}, {N}>::tiled` from memory of `{T}`"
)]
pub trait TensorMapArg<T, const N: usize> {
    /// Refuses a launch on `stream` its memory cannot take part in.
    fn check(&self, stream: &CudaStream) -> Result<(), Error>;

    /// The descriptor's bytes, and the guard that records the launch's use of its memory.
    fn use_on<'h>(
        &'h mut self,
        stream: &'h CudaStream,
    ) -> (&'h RawTensorMap, Option<SyncOnDrop<'h>>);
}

impl<T, const N: usize> TensorMapArg<T, N> for &TensorMap<'_, T, N> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check(&self, stream: &CudaStream) -> Result<(), Error> {
        self.memory.check(stream)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn use_on<'h>(
        &'h mut self,
        stream: &'h CudaStream,
    ) -> (&'h RawTensorMap, Option<SyncOnDrop<'h>>) {
        let (_, guard) = self.memory.device_arg(stream);
        (&self.raw, guard)
    }
}

impl<T, const N: usize> TensorMapArg<T, N> for &mut TensorMapMut<'_, T, N> {
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check(&self, stream: &CudaStream) -> Result<(), Error> {
        self.memory.check_mut(stream)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn use_on<'h>(
        &'h mut self,
        stream: &'h CudaStream,
    ) -> (&'h RawTensorMap, Option<SyncOnDrop<'h>>) {
        let this = &mut **self;
        let (_, guard) = this.memory.device_arg_mut(stream);
        (&this.raw, guard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused<const N: usize>(tiles: Tiled<N>, address: u64, len: usize) -> String {
        match tiles.check(address, len, 2, true) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted {tiles:?}"),
        }
    }

    #[test]
    fn packed_strides_follow_the_dimensions() {
        let tiles = Tiled::new([64u64, 32, 4], [64, 8, 1]);
        assert_eq!(
            tiles.check(0x1000, 64 * 32 * 4, 2, true).unwrap(),
            [0, 128, 4096]
        );
        let pitched = Tiled::new([60, 32], [8, 8]).strides([128]);
        assert_eq!(pitched.check(0x1000, 64 * 32, 2, true).unwrap(), [0, 128]);
    }

    #[test]
    fn every_rule_is_named_with_its_field() {
        let ok = Tiled::new([64u64, 64], [64, 64]);
        assert!(ok.check(0x1000, 64 * 64, 2, true).is_ok());
        let cases = [
            (refused(ok, 0x1008, 64 * 64), "global address"),
            (
                refused(ok, 0x1000, 64 * 64 - 1),
                "reaches 8192 bytes, but its memory holds 4095",
            ),
            (
                refused(Tiled::new([64, 64], [4, 64]), 0x1000, 4096),
                "multiple of 16 bytes",
            ),
            (
                refused(Tiled::new([64, 64], [64, 300]), 0x1000, 4096),
                "box_dims[1] is 300",
            ),
            (
                refused(
                    Tiled::new([64, 64], [64, 64]).strides([100]),
                    0x1000,
                    1 << 20,
                ),
                "stride of dimension 1 is 100",
            ),
            (
                refused(
                    Tiled::new([64, 64], [64, 64]).strides([1 << 40]),
                    0x1000,
                    usize::MAX,
                ),
                "below 2^40",
            ),
            (
                refused(Tiled::new([0, 64], [64, 64]), 0x1000, 4096),
                "dims[0] is 0",
            ),
            (
                refused(ok.swizzle(Swizzle::B64), 0x1000, 4096),
                "64-byte swizzle",
            ),
            (
                refused(ok.element_strides([1, 9]), 0x1000, 4096),
                "element_strides[1] is 9",
            ),
            (
                refused(ok.interleave(Interleave::B16), 0x1000, 4096),
                "rank of 3 or more",
            ),
            (
                refused(
                    Tiled::new([64u64, 64, 2], [64, 64, 1]).strides([128]),
                    0x1000,
                    1 << 20,
                ),
                "takes 2 strides",
            ),
        ];
        for (message, expected) in cases {
            assert!(
                message.contains(expected),
                "{message:?} should say {expected:?}"
            );
            assert!(message.starts_with("invalid TMA descriptor: "), "{message}");
        }
        // im2col: corners per spatial dimension, in range; channels a multiple of 16 bytes.
        let conv = Im2col::new([64u64, 8, 8, 2], [-1, -1], [-1, -1], 64, 32);
        assert!(conv.check(0x1000, 64 * 8 * 8 * 2, 2, true).is_ok());
        let im2col_refused = |shape: Im2col<4>| {
            shape
                .check(0x1000, 1 << 20, 2, true)
                .unwrap_err()
                .to_string()
        };
        assert!(
            im2col_refused(Im2col::new([64, 8, 8, 2], [-1], [-1], 64, 32))
                .contains("takes 2 lower and upper corners")
        );
        assert!(
            im2col_refused(Im2col::new([64, 8, 8, 2], [-200, 0], [0, 0], 64, 32))
                .contains("outside -128 to 127")
        );
        assert!(
            im2col_refused(Im2col::new([64, 8, 8, 2], [0, 0], [0, 0], 4, 32))
                .contains("a pixel's channels spans 8 bytes")
        );
        assert!(
            im2col_refused(Im2col::new([64, 8, 8, 2], [0, 0], [0, 0], 64, 2000))
                .contains("pixels per column")
        );
        let flat = Im2col::new([64u64, 64], [0; 0], [0; 0], 64, 32);
        assert!(
            flat.check(0x1000, 4096, 2, true)
                .unwrap_err()
                .to_string()
                .contains("rank 3 to 5")
        );
        // NaN fill is for floats.
        let nan = ok.oob_fill(OobFill::Nan);
        assert!(nan.check(0x1000, 4096, 2, true).is_ok());
        assert!(
            nan.check(0x1000, 4096, 2, false)
                .unwrap_err()
                .to_string()
                .contains("oob fill")
        );
    }
}
