//! CUDA's built-in vector types with their device size and alignment (`float4`, `int3`, ...).
//!
//! Each type is named by capitalizing its CUDA name (`float4` → [`Float4`], `__half2` →
//! [`Half2`]), is `repr(C)` with the device's alignment, and asserts its size and alignment at
//! compile time. All are free of padding, hence `bytemuck::Pod`.
//!
//! `Long*` and `Ulong*` follow 64-bit Linux, where CUDA's `long` is 8 bytes. On Windows `long` is
//! 4 bytes and `long2` is 8/8: declare such parameters with [`Int1`]..[`Int4`] there.
//! CUDA 13 deprecates `double4`, `long4`, `ulong4`, `longlong4` and `ulonglong4` (size 32,
//! alignment 16) in favour of the explicit `*_16a` and `*_32a` types; all are here.

use crate::param::pod_param;
use half::{bf16, f16};

macro_rules! vector_types {
    ($($name:ident($cuda:literal): $elem:ty, size $size:literal, align $align:literal, [$($field:ident),+];)*) => {$(
        #[doc = concat!("CUDA's `", $cuda, "`: ", stringify!($size), " bytes, aligned to ", stringify!($align), ".")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        #[repr(C, align($align))]
        pub struct $name {
            $(
                #[doc = concat!("The `", stringify!($field), "` component.")]
                pub $field: $elem,
            )+
        }

        // SAFETY: a Pod type with the device's layout (asserted by pod_param), valid as zero bits.
        unsafe impl cudarc::driver::DeviceRepr for $name {}
        // SAFETY: every field is a number, for which all-zero bits are a valid value.
        unsafe impl cudarc::driver::ValidAsZeroBits for $name {}

        impl $name {
            #[doc = concat!("A `", $cuda, "` from its components.")]
            pub const fn new($($field: $elem),+) -> Self {
                Self { $($field),+ }
            }
        }

        impl From<[$elem; [$(stringify!($field)),+].len()]> for $name {
            fn from([$($field),+]: [$elem; [$(stringify!($field)),+].len()]) -> Self {
                Self { $($field),+ }
            }
        }

        impl From<$name> for [$elem; [$(stringify!($field)),+].len()] {
            fn from(v: $name) -> Self {
                [$(v.$field),+]
            }
        }

        pod_param!($name => $size, $align, $cuda;);
    )*};
}

vector_types! {
    Char1("char1"): i8, size 1, align 1, [x];
    Char2("char2"): i8, size 2, align 2, [x, y];
    Char3("char3"): i8, size 3, align 1, [x, y, z];
    Char4("char4"): i8, size 4, align 4, [x, y, z, w];
    Uchar1("uchar1"): u8, size 1, align 1, [x];
    Uchar2("uchar2"): u8, size 2, align 2, [x, y];
    Uchar3("uchar3"): u8, size 3, align 1, [x, y, z];
    Uchar4("uchar4"): u8, size 4, align 4, [x, y, z, w];
    Short1("short1"): i16, size 2, align 2, [x];
    Short2("short2"): i16, size 4, align 4, [x, y];
    Short3("short3"): i16, size 6, align 2, [x, y, z];
    Short4("short4"): i16, size 8, align 8, [x, y, z, w];
    Ushort1("ushort1"): u16, size 2, align 2, [x];
    Ushort2("ushort2"): u16, size 4, align 4, [x, y];
    Ushort3("ushort3"): u16, size 6, align 2, [x, y, z];
    Ushort4("ushort4"): u16, size 8, align 8, [x, y, z, w];
    Int1("int1"): i32, size 4, align 4, [x];
    Int2("int2"): i32, size 8, align 8, [x, y];
    Int3("int3"): i32, size 12, align 4, [x, y, z];
    Int4("int4"): i32, size 16, align 16, [x, y, z, w];
    Uint1("uint1"): u32, size 4, align 4, [x];
    Uint2("uint2"): u32, size 8, align 8, [x, y];
    Uint3("uint3"): u32, size 12, align 4, [x, y, z];
    Uint4("uint4"): u32, size 16, align 16, [x, y, z, w];
    Dim3("dim3"): u32, size 12, align 4, [x, y, z];
    Long1("long1"): i64, size 8, align 8, [x];
    Long2("long2"): i64, size 16, align 16, [x, y];
    Long3("long3"): i64, size 24, align 8, [x, y, z];
    Long4("long4"): i64, size 32, align 16, [x, y, z, w];
    Ulong1("ulong1"): u64, size 8, align 8, [x];
    Ulong2("ulong2"): u64, size 16, align 16, [x, y];
    Ulong3("ulong3"): u64, size 24, align 8, [x, y, z];
    Ulong4("ulong4"): u64, size 32, align 16, [x, y, z, w];
    Longlong1("longlong1"): i64, size 8, align 8, [x];
    Longlong2("longlong2"): i64, size 16, align 16, [x, y];
    Longlong3("longlong3"): i64, size 24, align 8, [x, y, z];
    Longlong4("longlong4"): i64, size 32, align 16, [x, y, z, w];
    Ulonglong1("ulonglong1"): u64, size 8, align 8, [x];
    Ulonglong2("ulonglong2"): u64, size 16, align 16, [x, y];
    Ulonglong3("ulonglong3"): u64, size 24, align 8, [x, y, z];
    Ulonglong4("ulonglong4"): u64, size 32, align 16, [x, y, z, w];
    Float1("float1"): f32, size 4, align 4, [x];
    Float2("float2"): f32, size 8, align 8, [x, y];
    Float3("float3"): f32, size 12, align 4, [x, y, z];
    Float4("float4"): f32, size 16, align 16, [x, y, z, w];
    Double1("double1"): f64, size 8, align 8, [x];
    Double2("double2"): f64, size 16, align 16, [x, y];
    Double3("double3"): f64, size 24, align 8, [x, y, z];
    Double4("double4"): f64, size 32, align 16, [x, y, z, w];
    Double4_16a("double4_16a"): f64, size 32, align 16, [x, y, z, w];
    Double4_32a("double4_32a"): f64, size 32, align 32, [x, y, z, w];
    Long4_16a("long4_16a"): i64, size 32, align 16, [x, y, z, w];
    Long4_32a("long4_32a"): i64, size 32, align 32, [x, y, z, w];
    Ulong4_16a("ulong4_16a"): u64, size 32, align 16, [x, y, z, w];
    Ulong4_32a("ulong4_32a"): u64, size 32, align 32, [x, y, z, w];
    Longlong4_16a("longlong4_16a"): i64, size 32, align 16, [x, y, z, w];
    Longlong4_32a("longlong4_32a"): i64, size 32, align 32, [x, y, z, w];
    Ulonglong4_16a("ulonglong4_16a"): u64, size 32, align 16, [x, y, z, w];
    Ulonglong4_32a("ulonglong4_32a"): u64, size 32, align 32, [x, y, z, w];
    Half2("__half2"): f16, size 4, align 4, [x, y];
    Bfloat162("__nv_bfloat162"): bf16, size 4, align 4, [x, y];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KernelParam;

    #[test]
    fn constructors_and_array_conversions_agree() {
        let v = Float4::new(1.0, 2.0, 3.0, 4.0);
        assert_eq!(v, Float4::from([1.0, 2.0, 3.0, 4.0]));
        assert_eq!(<[f32; 4]>::from(v), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(<[i32; 2]>::from(Int2::new(-1, 7)), [-1, 7]);
        assert_eq!(Char3::from([1, 2, 3]).z, 3);
        assert_eq!(<[f64; 1]>::from(Double1::new(0.5)), [0.5]);
    }

    #[test]
    fn vectors_write_their_components_in_order() {
        let mut out = [0u8; 16];
        Uint4::new(1, 2, 3, 4).write(&mut out);
        assert_eq!(out, [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]);
        let mut out = [0u8; 16];
        Double2::new(0.5, -2.0).write(&mut out);
        assert_eq!(out[..8], 0.5f64.to_le_bytes());
        assert_eq!(out[8..], (-2.0f64).to_le_bytes());
    }

    #[test]
    fn odd_widths_keep_the_element_alignment() {
        // The three-wide types are not rounded up: a float3 is 12 bytes aligned to 4.
        assert_eq!((Float3::SIZE, Float3::ALIGN), (12, 4));
        assert_eq!((Short3::SIZE, Short3::ALIGN), (6, 2));
        assert_eq!((Char3::SIZE, Char3::ALIGN), (3, 1));
        assert_eq!((Double3::SIZE, Double3::ALIGN), (24, 8));
        assert_eq!((Double4_32a::SIZE, Double4_32a::ALIGN), (32, 32));
        assert_eq!(Half2::CUDA_TYPE.to_string(), "__half2");
    }
}
