//! CUDA's built-in vector types with their device alignment (`float4`, `int2`, ...).

use crate::param::pod_param;

macro_rules! vector_type {
    ($(#[$doc:meta])* $name:ident($cuda:literal): $elem:ty, align $align:literal, [$($field:ident),+]) => {
        $(#[$doc])*
        #[doc = concat!("\nThe CUDA type `", $cuda, "`: `repr(C)` with the device's alignment.")]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        #[repr(C, align($align))]
        pub struct $name {
            $(
                #[doc = concat!("The `", stringify!($field), "` component.")]
                pub $field: $elem,
            )+
        }

        // SAFETY: a Pod type with the device's layout (asserted below), valid as zero bits.
        unsafe impl cudarc::driver::DeviceRepr for $name {}
        // SAFETY: every field is a number, for which all-zero bits are a valid value.
        unsafe impl cudarc::driver::ValidAsZeroBits for $name {}

        impl $name {
            #[doc = concat!("A `", $cuda, "` from its components, like CUDA's `make_", $cuda, "`.")]
            pub const fn new($($field: $elem),+) -> Self {
                Self { $($field),+ }
            }
        }

        impl From<[$elem; vector_type!(@count $($field)+)]> for $name {
            fn from([$($field),+]: [$elem; vector_type!(@count $($field)+)]) -> Self {
                Self { $($field),+ }
            }
        }

        impl From<$name> for [$elem; vector_type!(@count $($field)+)] {
            fn from(v: $name) -> Self {
                [$(v.$field),+]
            }
        }
    };
    (@count $($field:ident)+) => { 0 $(+ vector_type!(@one $field))+ };
    (@one $field:ident) => { 1 };
}

vector_type!(
    /// Two `f32`s, 8-byte aligned.
    Float2("float2"): f32, align 8, [x, y]
);
vector_type!(
    /// Four `f32`s, 16-byte aligned.
    Float4("float4"): f32, align 16, [x, y, z, w]
);
vector_type!(
    /// Two `f64`s, 16-byte aligned.
    Double2("double2"): f64, align 16, [x, y]
);
vector_type!(
    /// Two `i32`s, 8-byte aligned.
    Int2("int2"): i32, align 8, [x, y]
);
vector_type!(
    /// Four `i32`s, 16-byte aligned.
    Int4("int4"): i32, align 16, [x, y, z, w]
);
vector_type!(
    /// Four `u32`s, 16-byte aligned.
    Uint4("uint4"): u32, align 16, [x, y, z, w]
);

pod_param! {
    Float2 => 8, 8;
    Float4 => 16, 16;
    Double2 => 16, 16;
    Int2 => 8, 8;
    Int4 => 16, 16;
    Uint4 => 16, 16;
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
}
