//! What a parameter is and where it goes: the `KernelParam` trait (types a kernel takes by
//! value, with their device size and alignment) and, in [`layout`], the parameter layout by the
//! C rule. The floor under the error type, which names layouts.

pub(crate) mod layout;

use half::{bf16, f16};

/// A type a CUDA kernel can take by value, with its size and alignment on the device.
///
/// Implemented for `bool`, the fixed-width integers, `f32`, `f64`, [`half::f16`],
/// [`half::bf16`], the vector types of this crate ([`Float4`](crate::Float4), ...), and raw
/// pointers to any of these (a device address, 8 bytes). `usize` and `isize` are `size_t` and
/// `ptrdiff_t` (every CUDA host is 64-bit; the crate does not compile for a 32-bit target).
/// `char` and `u128` have no CUDA counterpart and are not parameters.
///
/// ```
/// use cuda_kernel::{Float4, KernelParam};
/// assert_eq!((<Float4 as KernelParam>::SIZE, <Float4 as KernelParam>::ALIGN), (16, 16));
/// let mut bytes = [0u8; 4];
/// 1.5f32.write(&mut bytes);
/// assert_eq!(bytes, 1.5f32.to_le_bytes());
/// ```
///
/// # Safety
/// `SIZE` and `ALIGN` must be the type's size and alignment in device code, and
/// [`write`](Self::write) must produce the bytes device code reads for the value, leaving padding
/// zeroed. A wrong implementation makes every kernel taking the type read garbage.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a CUDA kernel parameter type",
    label = "not a kernel parameter type",
    note = "parameters are bool, i8..i64, u8..u64, usize, isize, f32, f64, half::f16, half::bf16, the vector types of cuda_kernel (Float4, Int2, ...), #[derive(KernelParam)] structs, *const T / *mut T for device memory, and TensorMap<T, N> for a TMA descriptor"
)]
pub unsafe trait KernelParam: Copy {
    /// Size of the type on the device, in bytes.
    const SIZE: usize;
    /// Alignment of the type on the device, in bytes.
    const ALIGN: usize;
    /// How CUDA C spells the type, for generated declarations.
    const CUDA_TYPE: CType;

    /// Writes the device representation of `self` into `out`, which is exactly
    /// [`SIZE`](Self::SIZE) bytes long and zeroed.
    fn write(&self, out: &mut [u8]);
}

/// The CUDA C spelling of a parameter type: a type name (qualified by its namespaces where it
/// has any), a number of pointer levels, and which of them point at `const`.
///
/// It is what the runtime knows of a type argument's C++ side: a C++ template instance's
/// symbol is derived from it ([`cuda_kernel_syntax::cpp`] is where a type's C++ spelling and
/// mangling live).
///
/// ```
/// use cuda_kernel::KernelParam;
/// assert_eq!(<*const *mut f32>::CUDA_TYPE.to_string(), "float* const*");
/// assert_eq!(<*mut *const f32>::CUDA_TYPE.to_string(), "const float**");
/// assert_eq!(<u64 as KernelParam>::CUDA_TYPE.to_string(), "uint64_t");
/// assert_eq!(<cuda_kernel::half::bf16 as KernelParam>::CUDA_TYPE.to_string(), "__nv_bfloat16");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CType {
    /// The type's name: `float`, `float4`, `uint64_t`, a struct's name (`ns::Pair` in a
    /// namespace).
    pub name: &'static str,
    /// How many `*` follow it.
    pub pointers: u8,
    /// Bit `i` set: the pointer `i` levels above the named type (0 the innermost) points at
    /// `const` (`*const f32` is `const float*`, bit 0).
    pub consts: u8,
}

impl CType {
    /// A type that is not a pointer.
    pub const fn named(name: &'static str) -> CType {
        CType {
            name,
            pointers: 0,
            consts: 0,
        }
    }

    /// A pointer to this type (`*mut T`).
    pub const fn pointer(self) -> CType {
        CType {
            name: self.name,
            pointers: self.pointers + 1,
            consts: self.consts,
        }
    }

    /// A pointer to this type as `const` (`*const T`).
    pub const fn const_pointer(self) -> CType {
        CType {
            name: self.name,
            pointers: self.pointers + 1,
            consts: self.consts | (1 << self.pointers),
        }
    }

    /// The C++ type it is, for mangling and spelling.
    pub fn cpp(&self) -> cuda_kernel_syntax::cpp::CppType {
        cuda_kernel_syntax::cpp::CppType::from_cuda(self.name, self.pointers, self.consts)
    }
}

impl std::fmt::Display for CType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.cpp().c_spelling())
    }
}

/// A parameter type that holds no device address a kernel follows: the numbers, `bool`, the
/// half and low-precision types, CUDA's vector types and arrays of them. A kernel with a
/// contract (`#[requires(...)]`) checks the memory of its pointer parameters; a value, or the
/// element of a pointer, that carries addresses of its own is memory no contract sees, so a
/// launcher with a contract takes only types that are `AddressFree` there.
///
/// # Safety
///
/// No value of the type holds a device address that a kernel reads or writes through (a
/// pointer field, or an integer the kernel turns into one).
///
/// ```
/// use cuda_kernel::{AddressFree, KernelParam};
///
/// #[derive(Clone, Copy, KernelParam)]
/// #[repr(C)]
/// struct Shape {
///     rows: u32,
///     cols: u32,
/// }
/// // SAFETY: two numbers, neither used as an address.
/// unsafe impl AddressFree for Shape {}
/// ```
#[diagnostic::on_unimplemented(
    message = "a contract cannot cover `{Self}`: it may hold device addresses the kernel follows",
    label = "not known to be free of device addresses",
    note = "a launch checked by #[requires] is safe only if every memory the kernel touches is a pointer parameter the contract checks; if `{Self}` holds no address, say so with `unsafe impl cuda_kernel::AddressFree for {Self} {{}}`, else leave the kernel without a contract"
)]
pub unsafe trait AddressFree {}

// SAFETY: an array holds its elements and nothing else.
unsafe impl<T: AddressFree, const N: usize> AddressFree for [T; N] {}

/// Implements `KernelParam` for a `Pod` type whose host layout is its device layout, and asserts
/// at compile time that the host size and alignment are the device's.
macro_rules! pod_param {
    ($($ty:ty => $size:literal, $align:literal, $cuda:literal;)*) => {$(
        $crate::param::pod_param!(addresses: $ty => $size, $align, $cuda;);
        // SAFETY: numbers (or numbers' components), none of them an address.
        unsafe impl $crate::AddressFree for $ty {}
    )*};
    // A Pod type that may hold device addresses (a TMA descriptor): no `AddressFree`.
    (addresses: $ty:ty => $size:literal, $align:literal, $cuda:literal;) => {
        const _: () = assert!(
            core::mem::size_of::<$ty>() == $size && core::mem::align_of::<$ty>() == $align
        );
        // SAFETY: the assertion above proves the host layout is the device's (CUDA-ABI.md), and
        // a Pod type has no padding, so its bytes are its device representation.
        unsafe impl $crate::KernelParam for $ty {
            const SIZE: usize = $size;
            const ALIGN: usize = $align;
            const CUDA_TYPE: $crate::CType = $crate::CType::named($cuda);
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn write(&self, out: &mut [u8]) {
                out.copy_from_slice(bytemuck::bytes_of(self));
            }
        }
    };
}
pub(crate) use pod_param;

pod_param! {
    i8 => 1, 1, "signed char";
    u8 => 1, 1, "unsigned char";
    i16 => 2, 2, "short";
    u16 => 2, 2, "unsigned short";
    i32 => 4, 4, "int";
    u32 => 4, 4, "unsigned int";
    i64 => 8, 8, "int64_t";
    u64 => 8, 8, "uint64_t";
    i128 => 16, 16, "__int128";
    u128 => 16, 16, "unsigned __int128";
    usize => 8, 8, "size_t";
    isize => 8, 8, "ptrdiff_t";
    f32 => 4, 4, "float";
    f64 => 8, 8, "double";
    f16 => 2, 2, "__half";
    bf16 => 2, 2, "__nv_bfloat16";
}

// SAFETY: a truth value, not an address.
unsafe impl AddressFree for bool {}

// SAFETY: C++ `bool` on the device is one byte holding 0 or 1.
unsafe impl KernelParam for bool {
    const SIZE: usize = 1;
    const ALIGN: usize = 1;
    const CUDA_TYPE: CType = CType::named("bool");
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn write(&self, out: &mut [u8]) {
        out[0] = u8::from(*self);
    }
}

macro_rules! pointer_param {
    ($($ptr:ident),*) => {$(
        pointer_param!(@impl [T: KernelParam] *$ptr T, pointer_param!(@ $ptr T::CUDA_TYPE));
        // `void` has no `KernelParam` impl of its own (nothing takes it by value), so this does
        // not overlap the impl above.
        pointer_param!(@impl [] *$ptr core::ffi::c_void,
            pointer_param!(@ $ptr CType::named("void")));
    )*};
    (@impl [$($bound:tt)*] $ty:ty, $cuda:expr) => {
        // SAFETY: a device pointer is a 64-bit address (CUdeviceptr); the launcher passes device
        // addresses, never host pointers, for pointer parameters.
        unsafe impl<$($bound)*> KernelParam for $ty {
            const SIZE: usize = 8;
            const ALIGN: usize = 8;
            const CUDA_TYPE: CType = $cuda;
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn write(&self, out: &mut [u8]) {
                (*self as usize as u64).write(out);
            }
        }
    };
    (@ const $to:expr) => { $to.const_pointer() };
    (@ mut $to:expr) => { $to.pointer() };
}
pointer_param!(const, mut);

// SAFETY: C arrays are their elements back to back, aligned as one element; every C type's size
// is a multiple of its alignment, so no padding falls between elements. Only struct fields are
// arrays: #[kernel] rejects arrays as parameters (C passes them as pointers).
unsafe impl<T: KernelParam, const N: usize> KernelParam for [T; N] {
    const SIZE: usize = T::SIZE * N;
    const ALIGN: usize = T::ALIGN;
    const CUDA_TYPE: CType = T::CUDA_TYPE;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        for (element, out) in self.iter().zip(out.chunks_exact_mut(T::SIZE)) {
            element.write(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes<T: KernelParam>(v: T) -> Vec<u8> {
        let mut out = vec![0u8; T::SIZE];
        v.write(&mut out);
        out
    }

    #[test]
    fn scalars_write_little_endian_bytes() {
        assert_eq!(bytes(0x1234_5678u32), [0x78, 0x56, 0x34, 0x12]);
        assert_eq!(bytes(-2i16), [0xfe, 0xff]);
        assert_eq!(bytes(1.0f64), 1.0f64.to_le_bytes());
        assert_eq!(bytes(f16::from_f32(1.0)), [0x00, 0x3c]);
        assert_eq!(bytes(bf16::from_f32(1.0)), [0x80, 0x3f]);
    }

    #[test]
    fn bool_is_one_byte_zero_or_one() {
        assert_eq!(bytes(true), [1]);
        assert_eq!(bytes(false), [0]);
    }

    #[test]
    fn pointers_are_eight_byte_addresses() {
        assert_eq!((<*const f32>::SIZE, <*mut u8>::ALIGN), (8, 8));
        assert_eq!(bytes(0x10usize as *const f32), [0x10, 0, 0, 0, 0, 0, 0, 0]);
    }
}
