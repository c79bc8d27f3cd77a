//! CUDA's FP8, FP6 and FP4 types as parameter and buffer types.
//!
//! The single values are the crates cudarc uses for them (its `f8` and `f4` features, both on):
//! [`F8E4M3`] is `__nv_fp8_e4m3`, [`F8E5M2`] `__nv_fp8_e5m2`, [`E8M0`] `__nv_fp8_e8m0`,
//! [`F4E2M1`] `__nv_fp4_e2m1` and [`F4E2M1x2`] `__nv_fp4x2_e2m1`, so a `CudaSlice<F8E4M3>` from
//! cudarc goes straight to a `*const F8E4M3` parameter. The CUDA types those crates lack (FP6,
//! the paired and quadrupled FP8 and FP6 forms, `__nv_fp4x4_e2m1`) are storage types here: the
//! raw bits, laid out as CUDA's headers lay them out (`cuda_fp8.h`, `cuda_fp6.h`,
//! `cuda_fp4.h`, CUDA 12.8+ for FP6 and FP4).
//!
//! ```
//! use cuda_kernel::KernelParam;
//! use cuda_kernel::low_precision::{F8E4M3, Fp6x4E2M3, Fp8x2E4M3};
//! let pair = Fp8x2E4M3::from([F8E4M3::from_f32(1.0), F8E4M3::from_f32(-2.0)]);
//! assert_eq!(pair.bits, 0xc0_38); // the first value in the low byte, as CUDA packs it
//! assert_eq!((<Fp6x4E2M3 as KernelParam>::SIZE, <Fp6x4E2M3 as KernelParam>::ALIGN), (4, 4));
//! ```

pub use float4::{E8M0, F4E2M1, F4E2M1x2};
pub use float8::{F8E4M3, F8E5M2};

use crate::param::pod_param;
use crate::{AddressFree, CType, KernelParam};

macro_rules! crate_type_param {
    ($($ty:ty => $cuda:literal;)*) => {$(
        // SAFETY: one byte on both sides (`__CUDA_ALIGN__(1)` storage of an unsigned char);
        // `to_bits` is the byte the device reads.
        unsafe impl KernelParam for $ty {
            const SIZE: usize = 1;
            const ALIGN: usize = 1;
            const CUDA_TYPE: CType = CType::named($cuda);
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn write(&self, out: &mut [u8]) {
                out[0] = self.to_bits();
            }
        }
        // SAFETY: a number's bits.
        unsafe impl AddressFree for $ty {}
    )*};
}

crate_type_param! {
    F8E4M3 => "__nv_fp8_e4m3";
    F8E5M2 => "__nv_fp8_e5m2";
    E8M0 => "__nv_fp8_e8m0";
    F4E2M1 => "__nv_fp4_e2m1";
    F4E2M1x2 => "__nv_fp4x2_e2m1";
}

macro_rules! storage_types {
    ($($name:ident($cuda:literal): $bits:ty, size $size:literal, $what:literal;)*) => {$(
        #[doc = concat!("CUDA's `", $cuda, "`: ", $what, ", as raw bits (", stringify!($size), " bytes, aligned to ", stringify!($size), ").")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
        #[repr(C, align($size))]
        pub struct $name {
            /// The value's bits, as the device stores them.
            pub bits: $bits,
        }

        impl $name {
            #[doc = concat!("A `", $cuda, "` of these bits.")]
            pub const fn from_bits(bits: $bits) -> Self {
                Self { bits }
            }
        }

        // SAFETY: a Pod type with the device's layout (asserted by pod_param).
        unsafe impl cudarc::driver::DeviceRepr for $name {}
        // SAFETY: all-zero bits are a value (zero) of every one of these formats.
        unsafe impl cudarc::driver::ValidAsZeroBits for $name {}

        pod_param!($name => $size, $size, $cuda;);
    )*};
}

storage_types! {
    Fp8x2E4M3("__nv_fp8x2_e4m3"): u16, size 2, "two E4M3 values";
    Fp8x4E4M3("__nv_fp8x4_e4m3"): u32, size 4, "four E4M3 values";
    Fp8x2E5M2("__nv_fp8x2_e5m2"): u16, size 2, "two E5M2 values";
    Fp8x4E5M2("__nv_fp8x4_e5m2"): u32, size 4, "four E5M2 values";
    Fp8x2E8M0("__nv_fp8x2_e8m0"): u16, size 2, "two E8M0 scales";
    Fp8x4E8M0("__nv_fp8x4_e8m0"): u32, size 4, "four E8M0 scales";
    Fp6E2M3("__nv_fp6_e2m3"): u8, size 1, "an FP6 E2M3 value in the low six bits of a byte";
    Fp6E3M2("__nv_fp6_e3m2"): u8, size 1, "an FP6 E3M2 value in the low six bits of a byte";
    Fp6x2E2M3("__nv_fp6x2_e2m3"): u16, size 2, "two FP6 E2M3 values, a byte each";
    Fp6x2E3M2("__nv_fp6x2_e3m2"): u16, size 2, "two FP6 E3M2 values, a byte each";
    Fp6x4E2M3("__nv_fp6x4_e2m3"): u32, size 4, "four FP6 E2M3 values, a byte each";
    Fp6x4E3M2("__nv_fp6x4_e3m2"): u32, size 4, "four FP6 E3M2 values, a byte each";
    Fp4x4E2M1("__nv_fp4x4_e2m1"): u16, size 2, "four FP4 E2M1 values, a nibble each";
}

macro_rules! packed_from {
    ($($single:ty, $count:literal => $packed:ident($bits:ty);)*) => {$(
        impl From<[$single; $count]> for $packed {
            /// The first value in the lowest byte, as CUDA holds `.x` first.
            fn from(values: [$single; $count]) -> Self {
                Self::from_bits(<$bits>::from_le_bytes(values.map(|v| v.to_bits())))
            }
        }
    )*};
}

packed_from! {
    F8E4M3, 2 => Fp8x2E4M3(u16);
    F8E4M3, 4 => Fp8x4E4M3(u32);
    F8E5M2, 2 => Fp8x2E5M2(u16);
    F8E5M2, 4 => Fp8x4E5M2(u32);
}
