//! The built-in parameter types: the one table of what the tools know about them by name.
//!
//! The macro checks declarations against PTX with it, the C++ mangler spells symbols with it,
//! the build step writes C prototypes with it, and the runtime's `KernelParam` impls are tested
//! against it (`cuda-kernel/tests/types.rs`), so adding a type means adding one row here and
//! its impl there.
//!
//! ```
//! use cuda_kernel_syntax::types::{self, Class};
//! let f4 = types::by_name("Float4").unwrap();
//! assert_eq!((f4.cuda, f4.size, f4.align, f4.class), ("float4", 16, 16, Class::Aggregate));
//! assert_eq!(types::by_name("u32").unwrap().itanium, Some("j"));
//! ```

/// How a built-in type's value is read: what the PTX check compares with a scalar's PTX type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `bool` and the integers: PTX `.u`, `.s` and `.b` types.
    Integer,
    /// The floating-point scalars: PTX `.f16`, `.bf16`, `.f32`, `.f64`.
    Float,
    /// Vector and paired types, which PTX passes as aligned byte arrays.
    Aggregate,
}

/// One built-in parameter type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinType {
    /// How a declaration writes it: `u32`, `half::f16`, `Float4` (re-exported by the runtime).
    pub rust: &'static str,
    /// How CUDA C spells it: `unsigned int`, `__half`, `float4`.
    pub cuda: &'static str,
    /// The Itanium C++ code of a fundamental type (`j` for `unsigned int`); `None` for a class
    /// type, which mangles by its CUDA name (`6float4`).
    pub itanium: Option<&'static str>,
    /// Size on the device, in bytes.
    pub size: usize,
    /// Alignment on the device, in bytes.
    pub align: usize,
    /// Integer, float or aggregate.
    pub class: Class,
    /// Whether a declaration naming it by its last path segment alone is a Rust primitive
    /// (`f32`), so its width is a language fact the macro may rely on without the runtime.
    pub primitive: bool,
    /// Offered when a PTX parameter of its size and alignment has no matching declaration.
    pub suggested: bool,
    /// For a C type without a fixed-width Rust name (`size_t`, `c_long`): the Rust type it
    /// names on 64-bit Linux, whose `KernelParam` impl it shares.
    pub alias_of: Option<&'static str>,
    /// The last segment of `rust`, found when the table is built (the look-ups by name compare
    /// it for every row).
    name: &'static str,
}

impl BuiltinType {
    /// The name declarations are matched by: the last segment of [`rust`](Self::rust).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The path a user writes for it with the runtime at `krate`: a Rust primitive alone
    /// (`f32`, `usize`), anything else under the runtime (`cuda_kernel::half::bf16`).
    pub fn rust_path(&self, krate: &str) -> String {
        if primitive(self.rust).is_some() {
            self.rust.to_string()
        } else {
            format!("{krate}::{}", self.rust)
        }
    }
}

/// A row of the table.
#[allow(clippy::too_many_arguments)]
const fn row(
    rust: &'static str,
    cuda: &'static str,
    itanium: Option<&'static str>,
    (size, align): (usize, usize),
    class: Class,
    primitive: bool,
    suggested: bool,
    alias_of: Option<&'static str>,
) -> BuiltinType {
    BuiltinType {
        rust,
        cuda,
        itanium,
        size,
        align,
        class,
        primitive,
        suggested,
        alias_of,
        name: last_segment(rust),
    }
}

/// The part of `path` after its last `::` (all of it without one).
const fn last_segment(path: &'static str) -> &'static str {
    let bytes = path.as_bytes();
    let mut end = bytes.len();
    while end >= 2 && !(bytes[end - 1] == b':' && bytes[end - 2] == b':') {
        end -= 1;
    }
    let start = if end >= 2 { end } else { 0 };
    let (_, tail) = bytes.split_at(start);
    match core::str::from_utf8(tail) {
        Ok(tail) => tail,
        Err(_) => path,
    }
}

macro_rules! scalars {
    ($($rust:literal => $cuda:literal, $code:literal, $size:literal, $class:ident, $suggested:literal;)*) => {
        [$(row($rust, $cuda, Some($code), ($size, $size), Class::$class, true, $suggested, None)),*]
    };
}

macro_rules! aggregates {
    ($($rust:literal => $cuda:literal, $size:literal, $align:literal, $class:ident, $suggested:literal;)*) => {
        [$(row($rust, $cuda, None, ($size, $align), Class::$class, false, $suggested, None)),*]
    };
}

/// Scalars a kernel takes by value. The fixed-width integers are the fixed-width C types as
/// 64-bit Linux defines them: `i64`/`u64` are `int64_t`/`uint64_t`, which are `long` and
/// `unsigned long` there (C++ symbols `l`/`m`); `long long` is `ffi::c_longlong`. `i8` is
/// `signed char`: a kernel written with `char` has the same layout but another C++ symbol
/// (`ffi::c_char`). `usize` and
/// `isize` are `size_t` and `ptrdiff_t`, 8 bytes on every CUDA host (all are 64-bit; the runtime
/// refuses to compile for another). `u128` and `i128` are CUDA's `unsigned __int128` and
/// `__int128` (16 bytes, aligned to 16, as Rust lays them out since 1.77), which PTX passes as
/// an aligned byte array, as it does the vector types.
pub const SCALARS: [BuiltinType; 15] = scalars! {
    "u8" => "unsigned char", "h", 1, Integer, true;
    "i8" => "signed char", "a", 1, Integer, true;
    "bool" => "bool", "b", 1, Integer, true;
    "u16" => "unsigned short", "t", 2, Integer, true;
    "i16" => "short", "s", 2, Integer, true;
    "u32" => "unsigned int", "j", 4, Integer, true;
    "i32" => "int", "i", 4, Integer, true;
    "u64" => "uint64_t", "m", 8, Integer, true;
    "i64" => "int64_t", "l", 8, Integer, true;
    "usize" => "size_t", "m", 8, Integer, false;
    "isize" => "ptrdiff_t", "l", 8, Integer, false;
    "f32" => "float", "f", 4, Float, true;
    "f64" => "double", "d", 8, Float, true;
    "u128" => "unsigned __int128", "o", 16, Aggregate, false;
    "i128" => "__int128", "n", 16, Aggregate, false;
};

/// The half-precision floats, CUDA's `__half` and `__nv_bfloat16` (class types in C++).
pub const HALF: [BuiltinType; 2] = aggregates! {
    "half::f16" => "__half", 2, 2, Float, true;
    "half::bf16" => "__nv_bfloat16", 2, 2, Float, true;
};

/// CUDA's vector types (`vector_types.h`) and the paired half types, as the runtime names them.
/// `long`/`ulong` follow 64-bit Linux, where `long` is 8 bytes.
pub const VECTORS: [BuiltinType; 59] = aggregates! {
    "Float1" => "float1", 4, 4, Aggregate, false;
    "Float2" => "float2", 8, 8, Aggregate, true;
    "Float3" => "float3", 12, 4, Aggregate, false;
    "Float4" => "float4", 16, 16, Aggregate, true;
    "Int1" => "int1", 4, 4, Aggregate, false;
    "Int2" => "int2", 8, 8, Aggregate, true;
    "Int3" => "int3", 12, 4, Aggregate, false;
    "Int4" => "int4", 16, 16, Aggregate, true;
    "Uint1" => "uint1", 4, 4, Aggregate, false;
    "Uint2" => "uint2", 8, 8, Aggregate, false;
    "Uint3" => "uint3", 12, 4, Aggregate, false;
    "Uint4" => "uint4", 16, 16, Aggregate, true;
    "Dim3" => "dim3", 12, 4, Aggregate, false;
    "Double1" => "double1", 8, 8, Aggregate, false;
    "Double2" => "double2", 16, 16, Aggregate, true;
    "Double3" => "double3", 24, 8, Aggregate, false;
    "Double4" => "double4", 32, 16, Aggregate, false;
    "Double4_16a" => "double4_16a", 32, 16, Aggregate, false;
    "Double4_32a" => "double4_32a", 32, 32, Aggregate, false;
    "Char1" => "char1", 1, 1, Aggregate, false;
    "Char2" => "char2", 2, 2, Aggregate, false;
    "Char3" => "char3", 3, 1, Aggregate, false;
    "Char4" => "char4", 4, 4, Aggregate, false;
    "Uchar1" => "uchar1", 1, 1, Aggregate, false;
    "Uchar2" => "uchar2", 2, 2, Aggregate, false;
    "Uchar3" => "uchar3", 3, 1, Aggregate, false;
    "Uchar4" => "uchar4", 4, 4, Aggregate, false;
    "Short1" => "short1", 2, 2, Aggregate, false;
    "Short2" => "short2", 4, 4, Aggregate, false;
    "Short3" => "short3", 6, 2, Aggregate, false;
    "Short4" => "short4", 8, 8, Aggregate, false;
    "Ushort1" => "ushort1", 2, 2, Aggregate, false;
    "Ushort2" => "ushort2", 4, 4, Aggregate, false;
    "Ushort3" => "ushort3", 6, 2, Aggregate, false;
    "Ushort4" => "ushort4", 8, 8, Aggregate, false;
    "Long1" => "long1", 8, 8, Aggregate, false;
    "Long2" => "long2", 16, 16, Aggregate, false;
    "Long3" => "long3", 24, 8, Aggregate, false;
    "Long4" => "long4", 32, 16, Aggregate, false;
    "Ulong1" => "ulong1", 8, 8, Aggregate, false;
    "Ulong2" => "ulong2", 16, 16, Aggregate, false;
    "Ulong3" => "ulong3", 24, 8, Aggregate, false;
    "Ulong4" => "ulong4", 32, 16, Aggregate, false;
    "Longlong1" => "longlong1", 8, 8, Aggregate, false;
    "Longlong2" => "longlong2", 16, 16, Aggregate, false;
    "Longlong3" => "longlong3", 24, 8, Aggregate, false;
    "Longlong4" => "longlong4", 32, 16, Aggregate, false;
    "Ulonglong1" => "ulonglong1", 8, 8, Aggregate, false;
    "Ulonglong2" => "ulonglong2", 16, 16, Aggregate, false;
    "Ulonglong3" => "ulonglong3", 24, 8, Aggregate, false;
    "Ulonglong4" => "ulonglong4", 32, 16, Aggregate, false;
    "Long4_16a" => "long4_16a", 32, 16, Aggregate, false;
    "Long4_32a" => "long4_32a", 32, 32, Aggregate, false;
    "Ulong4_16a" => "ulong4_16a", 32, 16, Aggregate, false;
    "Ulong4_32a" => "ulong4_32a", 32, 32, Aggregate, false;
    "Longlong4_16a" => "longlong4_16a", 32, 16, Aggregate, false;
    "Longlong4_32a" => "longlong4_32a", 32, 32, Aggregate, false;
    "Ulonglong4_16a" => "ulonglong4_16a", 32, 16, Aggregate, false;
    "Ulonglong4_32a" => "ulonglong4_32a", 32, 32, Aggregate, false;
};

/// The paired half types, `__half2` and `__nv_bfloat162`.
pub const HALF_PAIRS: [BuiltinType; 2] = aggregates! {
    "Half2" => "__half2", 4, 4, Aggregate, false;
    "Bfloat162" => "__nv_bfloat162", 4, 4, Aggregate, false;
};

macro_rules! c_aliases {
    ($($rust:literal => $cuda:literal, $code:literal, $size:literal, $class:ident, $of:literal;)*) => {
        [$(row($rust, $cuda, Some($code), ($size, $size), Class::$class, false, false, Some($of))),*]
    };
}

/// The C types of `cuda_kernel::ffi`, laid out as on 64-bit Linux (Windows: `long` is 4 bytes).
pub const C_ALIASES: [BuiltinType; 15] = c_aliases! {
    "ffi::size_t" => "size_t", "m", 8, Integer, "usize";
    "ffi::ptrdiff_t" => "ptrdiff_t", "l", 8, Integer, "isize";
    "ffi::c_char" => "char", "c", 1, Integer, "i8";
    "ffi::c_schar" => "signed char", "a", 1, Integer, "i8";
    "ffi::c_uchar" => "unsigned char", "h", 1, Integer, "u8";
    "ffi::c_short" => "short", "s", 2, Integer, "i16";
    "ffi::c_ushort" => "unsigned short", "t", 2, Integer, "u16";
    "ffi::c_int" => "int", "i", 4, Integer, "i32";
    "ffi::c_uint" => "unsigned int", "j", 4, Integer, "u32";
    "ffi::c_long" => "long", "l", 8, Integer, "i64";
    "ffi::c_ulong" => "unsigned long", "m", 8, Integer, "u64";
    "ffi::c_longlong" => "long long", "x", 8, Integer, "i64";
    "ffi::c_ulonglong" => "unsigned long long", "y", 8, Integer, "u64";
    "ffi::c_float" => "float", "f", 4, Float, "f32";
    "ffi::c_double" => "double", "d", 8, Float, "f64";
};

/// CUDA's FP8, FP6 and FP4 types (`cuda_kernel::low_precision`): class types in C++.
pub const LOW_PRECISION: [BuiltinType; 18] = aggregates! {
    "low_precision::F8E4M3" => "__nv_fp8_e4m3", 1, 1, Aggregate, false;
    "low_precision::F8E5M2" => "__nv_fp8_e5m2", 1, 1, Aggregate, false;
    "low_precision::E8M0" => "__nv_fp8_e8m0", 1, 1, Aggregate, false;
    "low_precision::F4E2M1" => "__nv_fp4_e2m1", 1, 1, Aggregate, false;
    "low_precision::F4E2M1x2" => "__nv_fp4x2_e2m1", 1, 1, Aggregate, false;
    "low_precision::Fp8x2E4M3" => "__nv_fp8x2_e4m3", 2, 2, Aggregate, false;
    "low_precision::Fp8x4E4M3" => "__nv_fp8x4_e4m3", 4, 4, Aggregate, false;
    "low_precision::Fp8x2E5M2" => "__nv_fp8x2_e5m2", 2, 2, Aggregate, false;
    "low_precision::Fp8x4E5M2" => "__nv_fp8x4_e5m2", 4, 4, Aggregate, false;
    "low_precision::Fp8x2E8M0" => "__nv_fp8x2_e8m0", 2, 2, Aggregate, false;
    "low_precision::Fp8x4E8M0" => "__nv_fp8x4_e8m0", 4, 4, Aggregate, false;
    "low_precision::Fp6E2M3" => "__nv_fp6_e2m3", 1, 1, Aggregate, false;
    "low_precision::Fp6E3M2" => "__nv_fp6_e3m2", 1, 1, Aggregate, false;
    "low_precision::Fp6x2E2M3" => "__nv_fp6x2_e2m3", 2, 2, Aggregate, false;
    "low_precision::Fp6x2E3M2" => "__nv_fp6x2_e3m2", 2, 2, Aggregate, false;
    "low_precision::Fp6x4E2M3" => "__nv_fp6x4_e2m3", 4, 4, Aggregate, false;
    "low_precision::Fp6x4E3M2" => "__nv_fp6x4_e3m2", 4, 4, Aggregate, false;
    "low_precision::Fp4x4E2M1" => "__nv_fp4x4_e2m1", 2, 2, Aggregate, false;
};

/// A TMA descriptor, `CUtensorMap` (`cuda.h`: a typedef of `struct CUtensorMap_st`, which is
/// how C++ symbols name it), 128 bytes aligned to 128 as CUDA 13 declares it. A kernel takes
/// it as `const __grid_constant__ CUtensorMap`; a declaration writes `TensorMap<T, N>` (typed
/// by element and rank) or `RawTensorMap`.
pub const TENSOR_MAP: [BuiltinType; 1] = aggregates! {
    "RawTensorMap" => "CUtensorMap_st", 128, 128, Aggregate, false;
};

/// C's `void` (`cuda_kernel::ffi::c_void`, which is `core::ffi::c_void`), only as what a pointer
/// points at: `*const c_void` is `const void*` (C++ `PKv`), untyped device memory. No parameter
/// is a `void`, so it is none of [`all`]'s types; the look-ups by name and spelling know it.
pub const VOID: BuiltinType = row(
    "ffi::c_void",
    "void",
    Some("v"),
    (1, 1),
    Class::Aggregate,
    false,
    false,
    None,
);

/// Every type the look-ups know: [`all`]'s and `void`.
fn known() -> impl Iterator<Item = &'static BuiltinType> {
    all().chain(core::iter::once(&VOID))
}

/// Every built-in parameter type: scalars, half floats, vector types, half pairs, C aliases,
/// low-precision floats, the TMA descriptor.
pub fn all() -> impl Iterator<Item = &'static BuiltinType> {
    SCALARS
        .iter()
        .chain(&HALF)
        .chain(&VECTORS)
        .chain(&HALF_PAIRS)
        .chain(&C_ALIASES)
        .chain(&LOW_PRECISION)
        .chain(&TENSOR_MAP)
}

/// The table's spelling of a C type that C code also writes in one word of another name: the
/// fixed-width typedefs (`uint32_t` is `unsigned int`), `unsigned`, CUDA's `half` and `half2`,
/// the raw bfloat16; any other name as it is.
pub fn c_typedef(name: &str) -> &str {
    match name {
        "unsigned" => "unsigned int",
        "uint8_t" => "unsigned char",
        "int8_t" => "signed char",
        "uint16_t" => "unsigned short",
        "int16_t" => "short",
        "uint32_t" => "unsigned int",
        "int32_t" => "int",
        "__uint128_t" => "unsigned __int128",
        "__int128_t" => "__int128",
        "__nv_bfloat16_raw" => "__nv_bfloat16",
        "half" => "__half",
        "half2" => "__half2",
        other => other,
    }
}

/// The built-in type CUDA C spells `cuda`, also by a typedef the table does not name
/// (`CUtensorMap` for `CUtensorMap_st`).
pub fn by_c_name(cuda: &str) -> Option<&'static BuiltinType> {
    match cuda {
        "CUtensorMap" => TENSOR_MAP.first(),
        _ => by_cuda_name(cuda),
    }
}

/// The built-in type a declaration names by `name`, the last segment of its path (`f32`,
/// `f16` of `half::f16`, `Float4` of `cuda_kernel::Float4`).
pub fn by_name(name: &str) -> Option<&'static BuiltinType> {
    known().find(|t| t.name() == name)
}

/// The built-in type a declaration's path names: the table's path itself or any path ending in
/// it (`half::f16`, `cuda_kernel::half::f16`), else the last segment alone (`f16`).
pub fn by_rust_path(path: &str) -> Option<&'static BuiltinType> {
    let path = path.trim().trim_start_matches("::");
    let last = path.rsplit("::").next().unwrap_or(path);
    // One pass: a row the whole path names ends in the same segment as its name.
    let mut by_last = None;
    for t in known().filter(|t| t.name() == last) {
        if path == t.rust
            || path
                .strip_suffix(t.rust)
                .is_some_and(|head| head.ends_with("::"))
        {
            return Some(t);
        }
        by_last.get_or_insert(t);
    }
    by_last
}

/// The built-in type of a C++ fundamental type as demanglers write it (`unsigned long`,
/// `long long`, `char`): the first of the table's rows of that code that is no C alias
/// (`u64` for `unsigned long`), else the alias (`ffi::c_longlong` for `long long`).
pub fn by_fundamental_name(name: &str) -> Option<&'static BuiltinType> {
    let of_code = |t: &&BuiltinType| t.itanium.is_some_and(|code| fundamental_name(code) == name);
    known()
        .filter(|t| t.alias_of.is_none())
        .find(of_code)
        .or_else(|| all().find(of_code))
}

/// The built-in type CUDA C spells `cuda` (`float`, `__half`, `float4`); of a C alias and the
/// type it names (`c_float`, `f32`), the type itself.
pub fn by_cuda_name(cuda: &str) -> Option<&'static BuiltinType> {
    known().find(|t| t.cuda == cuda && t.alias_of.is_none())
}

/// The Rust primitive called `name` (`u32`, `f64`, `bool`): its width is known without the
/// runtime, whatever path the declaration is in.
pub fn primitive(name: &str) -> Option<&'static BuiltinType> {
    SCALARS.iter().find(|t| t.rust == name)
}

/// The built-in types that fit a PTX parameter of this type (`.u32`, `.f16`, ...), array
/// length, size and alignment: `u32`, `i32`; `Float4`, `Int4`, `Uint4`, `Double2`.
pub fn fitting(
    ptx_type: &str,
    array_len: Option<usize>,
    size: usize,
    align: usize,
) -> Vec<&'static str> {
    let scalar = array_len.is_none();
    all()
        .filter(|t| t.suggested && t.size == size && t.align == align)
        .filter(|t| match (scalar, ptx_type) {
            (true, ".f16") => t.rust == "half::f16",
            (true, ".bf16") => t.rust == "half::bf16",
            (true, ty) if ty.starts_with(".f") => t.class == Class::Float && t.primitive,
            (true, _) => t.class == Class::Integer,
            // Arrays of bytes: what PTX makes of vector types and half floats.
            (false, _) => !t.primitive,
        })
        .map(|t| t.rust)
        .collect()
}

/// [`fitting`]'s types for messages: `u32 or i32`, `Float4, Int4, Uint4 or Double2`, or what
/// a type of the user's needs where no built-in type fits.
pub fn suggestion(ptx_type: &str, array_len: Option<usize>, size: usize, align: usize) -> String {
    let scalar = array_len.is_none();
    let candidates = fitting(ptx_type, array_len, size, align);
    let pointer = scalar && size == 8 && !ptx_type.starts_with(".f");
    // A `CUtensorMap`: 128 bytes aligned to 128 (CUDA 13's header) or 64 (CUDA 12's).
    if !scalar && size == 128 && (align == 128 || align == 64) {
        return format!(
            "a TMA descriptor, TensorMap<T, N> (or RawTensorMap), or a #[repr(C)] type of {size} bytes aligned to {align}"
        );
    }
    match (candidates.as_slice(), pointer) {
        ([], _) => format!("a #[repr(C)] type of {size} bytes aligned to {align}"),
        (list, true) => format!("{}, or a pointer *const T / *mut T", list.join(", ")),
        ([one], false) => one.to_string(),
        ([init @ .., last], false) => format!("{} or {last}", init.join(", ")),
    }
}

/// The C++ name of a fundamental type's code (`j` is `unsigned int`), as demanglers write it.
pub fn fundamental_name(code: &str) -> &'static str {
    match code {
        "v" => "void",
        "b" => "bool",
        "c" => "char",
        "a" => "signed char",
        "h" => "unsigned char",
        "s" => "short",
        "t" => "unsigned short",
        "i" => "int",
        "j" => "unsigned int",
        "l" => "long",
        "m" => "unsigned long",
        "x" => "long long",
        "y" => "unsigned long long",
        "f" => "float",
        "d" => "double",
        "n" => "__int128",
        "o" => "unsigned __int128",
        _ => "?",
    }
}

#[cfg(feature = "syn")]
/// `TensorMap<T, N>` (by its last path segment, as `*const T` is read by its form): the
/// element type and the rank.
pub fn tensor_map(ty: &syn::Type) -> Option<(&syn::Type, &syn::GenericArgument)> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if path.qself.is_some() || last.ident != "TensorMap" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match (args.args.len(), args.args.first(), args.args.last()) {
        (2, Some(syn::GenericArgument::Type(elem)), Some(rank)) => Some((elem, rank)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_its_paths_last_segment() {
        for t in known() {
            assert_eq!(t.name(), t.rust.rsplit("::").next().unwrap(), "{}", t.rust);
        }
        assert_eq!(last_segment("a::b::c"), "c");
        assert_eq!(last_segment("u32"), "u32");
        assert_eq!(last_segment("::x"), "x");
        assert_eq!(last_segment(""), "");
    }

    #[test]
    fn names_are_unique_and_sizes_multiples_of_alignments() {
        let all: Vec<_> = all().collect();
        for (i, t) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|u| u.name() != t.name()),
                "{} twice",
                t.rust
            );
            assert!(t.align.is_power_of_two() && t.size % t.align == 0, "{t:?}");
        }
        assert_eq!(all.len(), 112);
    }

    #[test]
    fn suggestions_name_the_types_that_fit() {
        assert_eq!(suggestion(".u32", None, 4, 4), "u32 or i32");
        assert_eq!(suggestion(".b8", None, 1, 1), "u8, i8 or bool");
        assert_eq!(
            suggestion(".u64", None, 8, 8),
            "u64, i64, or a pointer *const T / *mut T"
        );
        assert_eq!(suggestion(".f32", None, 4, 4), "f32");
        assert_eq!(suggestion(".f16", None, 2, 2), "half::f16");
        assert_eq!(suggestion(".b8", Some(2), 2, 2), "half::f16 or half::bf16");
        assert_eq!(suggestion(".b8", Some(8), 8, 8), "Float2 or Int2");
        assert_eq!(
            suggestion(".b8", Some(16), 16, 16),
            "Float4, Int4, Uint4 or Double2"
        );
        assert_eq!(
            suggestion(".b8", Some(12), 12, 4),
            "a #[repr(C)] type of 12 bytes aligned to 4"
        );
    }
}
