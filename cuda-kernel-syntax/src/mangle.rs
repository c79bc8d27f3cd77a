//! Itanium C++ mangled names of kernels declared `#[kernel(cpp)]`, derived from the Rust
//! signature, so a C++ kernel without `extern "C"` can be bound without spelling its symbol.
//!
//! Covers non-template functions whose parameters are the built-in types of [`types`](crate::types) and
//! structs, and pointers to them (`const` pointees included), with the Itanium ABI's
//! substitutions. Template instantiations are not derived: bind those with `name = "..."`.
//!
//! ```
//! let params: [syn::Type; 2] = [syn::parse_quote!(*const f32), syn::parse_quote!(*mut f32)];
//! assert_eq!(cuda_kernel_syntax::mangle::mangle("copy", &params).unwrap(), "_Z4copyPKfPf");
//! ```

use syn::Type;

use crate::itanium::{self, CppType};

/// The C++ type a declaration's Rust type stands for ([`crate::cpp::from_syn`]).
pub fn cpp_type(ty: &Type, generics: &[&str]) -> Option<CppType> {
    crate::cpp::from_syn(ty, generics)
}

/// The mangled name of `void name(params...)`, or the parameter whose type has no C++ spelling
/// known to the macro.
pub fn mangle<'a>(
    name: &str,
    params: impl IntoIterator<Item = &'a Type>,
) -> Result<String, &'a Type> {
    mangle_with_class_names(name, params, &|_| None)
}

/// [`mangle`], each struct named as `rename` gives it (a Rust struct's name, `Interval`, as
/// its CUDA name, `ns::shapes::Interval`): the build step's view of a kernel whose structs it
/// knows.
pub fn mangle_with_class_names<'a>(
    name: &str,
    params: impl IntoIterator<Item = &'a Type>,
    rename: &dyn Fn(&str) -> Option<String>,
) -> Result<String, &'a Type> {
    let params = params
        .into_iter()
        .map(|ty| {
            cpp_type(ty, &[])
                .map(|t| t.with_class_names(rename))
                .ok_or(ty)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(itanium::mangle(name, None, &params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn m(name: &str, params: &[Type]) -> String {
        mangle(name, params).unwrap()
    }

    #[test]
    fn matches_nvcc_symbols() {
        // Symbols nvcc 13.0 emitted (kernels/ptx/cxx_fixtures.ptx, ../shared/CUDA-ABI.md).
        assert_eq!(
            m(
                "saxpy",
                &[
                    parse_quote!(*const f32),
                    parse_quote!(*mut f32),
                    parse_quote!(f32),
                    parse_quote!(i32)
                ]
            ),
            "_Z5saxpyPKfPffi"
        );
        assert_eq!(
            m(
                "vector_add",
                &[
                    parse_quote!(*const f32),
                    parse_quote!(*const f32),
                    parse_quote!(*mut f32),
                    parse_quote!(u32)
                ]
            ),
            "_Z10vector_addPKfS0_Pfj"
        );
    }

    #[test]
    fn struct_types_and_their_pointers_are_substituted() {
        // void k(float4, float4*, const float4*, float4*): 6float4 = S_, P6float4 = S0_,
        // K6float4 = S1_, PK6float4 = S2_.
        assert_eq!(
            m(
                "k",
                &[
                    parse_quote!(Float4),
                    parse_quote!(*mut Float4),
                    parse_quote!(*const Float4),
                    parse_quote!(*mut Float4),
                ]
            ),
            "_Z1k6float4PS_PKS_S0_"
        );
        assert_eq!(
            m("h", &[parse_quote!(half::f16), parse_quote!(Particle)]),
            "_Z1h6__half8Particle"
        );
        assert_eq!(m("e", &[]), "_Z1ev");
    }

    #[test]
    fn matches_gxx_on_generated_signatures() {
        // g++ mangles the same declarations; every symbol must agree.
        let types: Vec<(Type, &str)> = vec![
            (parse_quote!(bool), "bool"),
            (parse_quote!(i8), "signed char"),
            (parse_quote!(u8), "unsigned char"),
            (parse_quote!(i16), "short"),
            (parse_quote!(u16), "unsigned short"),
            (parse_quote!(i32), "int"),
            (parse_quote!(u32), "unsigned"),
            (parse_quote!(i64), "int64_t"),
            (parse_quote!(u64), "uint64_t"),
            (parse_quote!(c_longlong), "long long"),
            (parse_quote!(ffi::c_ulonglong), "unsigned long long"),
            (parse_quote!(f32), "float"),
            (parse_quote!(f64), "double"),
            (parse_quote!(half::f16), "__half"),
            (parse_quote!(Float4), "float4"),
            (parse_quote!(Uchar3), "uchar3"),
            (parse_quote!(Particle), "Particle"),
            (parse_quote!(*const f32), "const float*"),
            (parse_quote!(*mut f32), "float*"),
            (parse_quote!(*const Float4), "const float4*"),
            (parse_quote!(*mut Float4), "float4*"),
            (parse_quote!(*mut *const f32), "const float**"),
            (parse_quote!(*const *mut Particle), "Particle* const*"),
            (parse_quote!(*mut *mut Uchar3), "uchar3**"),
            (parse_quote!(ffi::size_t), "unsigned long"),
            (parse_quote!(ptrdiff_t), "long"),
            (parse_quote!(c_long), "long"),
            (parse_quote!(c_ulong), "unsigned long"),
            (parse_quote!(c_char), "char"),
            (parse_quote!(*const size_t), "const unsigned long*"),
        ];
        let mut next = crate::test_rng(0x5eed_u64);
        let mut cpp = String::from(
            "#include <cstdint>\n\
             struct float4 { float x, y, z, w; }; struct uchar3 { unsigned char x, y, z; };\n\
             struct __half { unsigned short x; }; struct Particle { int a; };\n",
        );
        let mut expected = Vec::new();
        for k in 0..200 {
            let len = next(9);
            let picks: Vec<usize> = (0..len).map(|_| next(types.len())).collect();
            let name = format!("k{k}");
            let params: Vec<Type> = picks.iter().map(|&i| types[i].0.clone()).collect();
            expected.push(mangle(&name, &params).unwrap());
            let c_params: Vec<&str> = picks.iter().map(|&i| types[i].1).collect();
            cpp.push_str(&format!("void {name}({}) {{}}\n", c_params.join(", ")));
        }
        let symbols = crate::gxx_symbols(&cpp);
        for symbol in &expected {
            assert!(
                symbols.lines().any(|l| l.ends_with(&format!(" {symbol}"))),
                "g++ has no symbol {symbol}; it has:\n{symbols}"
            );
        }
    }

    #[test]
    fn unknown_types_are_reported() {
        let params: [Type; 1] = [parse_quote!([u8; 4])];
        assert!(mangle("k", &params).is_err());
    }
}
