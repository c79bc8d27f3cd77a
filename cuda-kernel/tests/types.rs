//! Every built-in `KernelParam` impl agrees with the front end's table of built-in types
//! (`cuda_kernel_syntax::types`), which the macro, the C++ mangler and the build step read.

use cuda_kernel::half::{bf16, f16};
use cuda_kernel::low_precision as lp;
use cuda_kernel::vector::*;
use cuda_kernel::{CType, KernelParam, RawTensorMap, ffi};
use cuda_kernel_syntax::types;

/// `(rust spelling, size, align, CUDA spelling)` of each impl.
fn row<T: KernelParam>(rust: &'static str) -> (&'static str, usize, usize, CType) {
    (rust, T::SIZE, T::ALIGN, T::CUDA_TYPE)
}

macro_rules! rows {
    ($($ty:ty => $rust:literal),* $(,)?) => { vec![$(row::<$ty>($rust)),*] };
}

#[test]
fn every_builtin_impl_matches_its_table_row() {
    let impls = rows! {
        bool => "bool", i8 => "i8", u8 => "u8", i16 => "i16", u16 => "u16", i32 => "i32",
        u32 => "u32", i64 => "i64", u64 => "u64", i128 => "i128", u128 => "u128", usize => "usize", isize => "isize",
        f32 => "f32", f64 => "f64",
        f16 => "half::f16", bf16 => "half::bf16",
        Char1 => "Char1", Char2 => "Char2", Char3 => "Char3", Char4 => "Char4",
        Uchar1 => "Uchar1", Uchar2 => "Uchar2", Uchar3 => "Uchar3", Uchar4 => "Uchar4",
        Short1 => "Short1", Short2 => "Short2", Short3 => "Short3", Short4 => "Short4",
        Ushort1 => "Ushort1", Ushort2 => "Ushort2", Ushort3 => "Ushort3", Ushort4 => "Ushort4",
        Int1 => "Int1", Int2 => "Int2", Int3 => "Int3", Int4 => "Int4",
        Uint1 => "Uint1", Uint2 => "Uint2", Uint3 => "Uint3", Uint4 => "Uint4", Dim3 => "Dim3",
        Long1 => "Long1", Long2 => "Long2", Long3 => "Long3", Long4 => "Long4",
        Ulong1 => "Ulong1", Ulong2 => "Ulong2", Ulong3 => "Ulong3", Ulong4 => "Ulong4",
        Longlong1 => "Longlong1", Longlong2 => "Longlong2", Longlong3 => "Longlong3",
        Longlong4 => "Longlong4",
        Ulonglong1 => "Ulonglong1", Ulonglong2 => "Ulonglong2", Ulonglong3 => "Ulonglong3",
        Ulonglong4 => "Ulonglong4",
        Float1 => "Float1", Float2 => "Float2", Float3 => "Float3", Float4 => "Float4",
        Double1 => "Double1", Double2 => "Double2", Double3 => "Double3", Double4 => "Double4",
        Double4_16a => "Double4_16a", Double4_32a => "Double4_32a",
        Long4_16a => "Long4_16a", Long4_32a => "Long4_32a",
        Ulong4_16a => "Ulong4_16a", Ulong4_32a => "Ulong4_32a",
        Longlong4_16a => "Longlong4_16a", Longlong4_32a => "Longlong4_32a",
        Ulonglong4_16a => "Ulonglong4_16a", Ulonglong4_32a => "Ulonglong4_32a",
        Half2 => "Half2", Bfloat162 => "Bfloat162",
        ffi::size_t => "ffi::size_t", ffi::ptrdiff_t => "ffi::ptrdiff_t",
        ffi::c_char => "ffi::c_char", ffi::c_schar => "ffi::c_schar",
        ffi::c_uchar => "ffi::c_uchar", ffi::c_short => "ffi::c_short",
        ffi::c_ushort => "ffi::c_ushort", ffi::c_int => "ffi::c_int", ffi::c_uint => "ffi::c_uint",
        ffi::c_long => "ffi::c_long", ffi::c_ulong => "ffi::c_ulong",
        ffi::c_longlong => "ffi::c_longlong", ffi::c_ulonglong => "ffi::c_ulonglong",
        ffi::c_float => "ffi::c_float", ffi::c_double => "ffi::c_double",
        lp::F8E4M3 => "low_precision::F8E4M3", lp::F8E5M2 => "low_precision::F8E5M2",
        lp::E8M0 => "low_precision::E8M0", lp::F4E2M1 => "low_precision::F4E2M1",
        lp::F4E2M1x2 => "low_precision::F4E2M1x2",
        lp::Fp8x2E4M3 => "low_precision::Fp8x2E4M3", lp::Fp8x4E4M3 => "low_precision::Fp8x4E4M3",
        lp::Fp8x2E5M2 => "low_precision::Fp8x2E5M2", lp::Fp8x4E5M2 => "low_precision::Fp8x4E5M2",
        lp::Fp8x2E8M0 => "low_precision::Fp8x2E8M0", lp::Fp8x4E8M0 => "low_precision::Fp8x4E8M0",
        lp::Fp6E2M3 => "low_precision::Fp6E2M3", lp::Fp6E3M2 => "low_precision::Fp6E3M2",
        lp::Fp6x2E2M3 => "low_precision::Fp6x2E2M3", lp::Fp6x2E3M2 => "low_precision::Fp6x2E3M2",
        lp::Fp6x4E2M3 => "low_precision::Fp6x4E2M3", lp::Fp6x4E3M2 => "low_precision::Fp6x4E3M2",
        lp::Fp4x4E2M1 => "low_precision::Fp4x4E2M1",
        RawTensorMap => "RawTensorMap",
    };
    for (rust, size, align, cuda) in &impls {
        let t = types::all()
            .find(|t| t.rust == *rust)
            .unwrap_or_else(|| panic!("{rust} implements KernelParam but is not in the table"));
        assert_eq!((t.size, t.align), (*size, *align), "{rust}");
        match t.alias_of {
            // An alias shares the impl of the type it names, and with it that type's spelling.
            Some(of) => assert_eq!(*cuda, CType::named(types::primitive(of).unwrap().cuda)),
            None => assert_eq!(*cuda, CType::named(t.cuda), "{rust}"),
        }
    }
    for t in types::all() {
        assert!(
            impls.iter().any(|(rust, ..)| *rust == t.rust),
            "the table has {} but no impl was checked",
            t.rust
        );
    }
}

/// `void` is in the table only as what a pointer points at: the runtime's `*const c_void` and
/// `*mut c_void` are pointers to the table's `void`, spelled and mangled through it.
#[test]
fn void_pointers_are_pointers_to_the_tables_void() {
    use cuda_kernel::ffi::c_void;
    use cuda_kernel_syntax::cpp::CppType;
    assert_eq!(
        <*const c_void as KernelParam>::CUDA_TYPE,
        CType::named(types::VOID.cuda).const_pointer()
    );
    assert_eq!(
        <*mut c_void as KernelParam>::CUDA_TYPE,
        CType::named(types::VOID.cuda).pointer()
    );
    let rust = CppType::from_rust("*const core::ffi::c_void", &[]).unwrap();
    assert_eq!(rust, <*const c_void as KernelParam>::CUDA_TYPE.cpp());
    assert_eq!(rust.c_spelling(), "const void*");
    assert!(
        types::all().all(|t| t.rust != types::VOID.rust),
        "no parameter is a void"
    );
    assert_eq!(
        (
            <*const c_void as KernelParam>::SIZE,
            <*mut c_void as KernelParam>::ALIGN
        ),
        (8, 8)
    );
}
