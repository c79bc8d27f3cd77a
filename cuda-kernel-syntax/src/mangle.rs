//! Itanium C++ mangled names of kernels declared `#[kernel(cpp)]`, derived from the Rust
//! signature, so a C++ kernel without `extern "C"` can be bound without spelling its symbol.
//!
//! Covers non-template functions whose parameters are the built-in types of [`types`] and
//! structs, and pointers to them (`const` pointees included), with the Itanium ABI's
//! substitutions. Template instantiations are not derived: bind those with `name = "..."`.
//!
//! ```
//! let params: [syn::Type; 2] = [syn::parse_quote!(*const f32), syn::parse_quote!(*mut f32)];
//! assert_eq!(cuda_kernel_syntax::mangle::mangle("copy", &params).unwrap(), "_Z4copyPKfPf");
//! ```

use syn::Type;

use crate::types;

/// The mangled name of `void name(params...)`, or the parameter whose type has no C++ spelling
/// known to the macro.
pub fn mangle<'a>(
    name: &str,
    params: impl IntoIterator<Item = &'a Type>,
) -> Result<String, &'a Type> {
    let mut out = format!("_Z{}{}", name.len(), name);
    let mut subs: Vec<String> = Vec::new();
    let mut any = false;
    for ty in params {
        any = true;
        let encoded = encode(ty, &mut subs).ok_or(ty)?;
        out.push_str(&encoded);
    }
    if !any {
        out.push('v');
    }
    Ok(out)
}

/// The encoding of `ty` as it goes into the name, recording substitution candidates in the
/// order the Itanium ABI defines (a component before the types built from it).
fn encode(ty: &Type, subs: &mut Vec<String>) -> Option<String> {
    encode_parts(ty, subs).map(|(_, emitted)| emitted)
}

/// `(full, emitted)`: the spelled-out encoding that identifies the type as a candidate, and
/// what goes into the name (a substitution when the type was seen before).
fn encode_parts(ty: &Type, subs: &mut Vec<String>) -> Option<(String, String)> {
    match ty {
        Type::Ptr(ptr) => {
            let (inner_full, inner_emitted) = encode_parts(&ptr.elem, subs)?;
            let (qualified_full, qualified_emitted) = if ptr.mutability.is_none() {
                let full = format!("K{inner_full}");
                let emitted = substitute_or_add(&full, &format!("K{inner_emitted}"), subs);
                (full, emitted)
            } else {
                (inner_full, inner_emitted)
            };
            let full = format!("P{qualified_full}");
            let emitted = substitute_or_add(&full, &format!("P{qualified_emitted}"), subs);
            Some((full, emitted))
        }
        Type::Paren(p) => encode_parts(&p.elem, subs),
        Type::Group(g) => encode_parts(&g.elem, subs),
        Type::Path(path) if path.qself.is_none() => {
            let name = path.path.segments.last()?.ident.to_string();
            let builtin = types::by_name(&name);
            if let Some(code) = builtin.and_then(|t| t.itanium) {
                // Fundamental types are never substitution candidates.
                return Some((code.to_string(), code.to_string()));
            }
            // A class type: CUDA's name for a built-in one (`Float4` is `float4`), the Rust
            // name for a user's struct.
            let source = builtin.map_or(name.as_str(), |t| t.cuda);
            let full = format!("{}{}", source.len(), source);
            let emitted = substitute_or_add(&full, &full, subs);
            Some((full, emitted))
        }
        _ => None,
    }
}

/// `S_`, `S0_`, `S1_`... for a seen candidate; otherwise records it and emits `emitted`.
fn substitute_or_add(full: &str, emitted: &str, subs: &mut Vec<String>) -> String {
    if let Some(i) = subs.iter().position(|s| s == full) {
        return if i == 0 {
            "S_".to_string()
        } else {
            format!("S{}_", base36(i - 1))
        };
    }
    subs.push(full.to_string());
    emitted.to_string()
}

fn base36(mut n: usize) -> String {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[n % 36]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
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
            (parse_quote!(i64), "long long"),
            (parse_quote!(u64), "unsigned long long"),
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
        let mut state = 0x5eed_u64;
        let mut next = move |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % n
        };
        let mut cpp = String::from(
            "struct float4 { float x, y, z, w; }; struct uchar3 { unsigned char x, y, z; };\n\
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
        let dir = std::env::temp_dir().join(format!("cuda-kernel-mangle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("m.cpp"), &cpp).unwrap();
        let compiled = std::process::Command::new("g++")
            .args(["-c", "-o"])
            .arg(dir.join("m.o"))
            .arg(dir.join("m.cpp"))
            .status()
            .expect("g++ runs");
        assert!(compiled.success());
        let nm = std::process::Command::new("nm")
            .arg(dir.join("m.o"))
            .output()
            .expect("nm runs");
        let symbols = String::from_utf8(nm.stdout).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
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
