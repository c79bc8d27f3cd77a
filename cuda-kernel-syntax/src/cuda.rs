//! CUDA C spellings of declarations: the prototypes and struct declarations the build step
//! writes for nvcc to check kernels against.
//!
//! ```
//! let block: syn::ItemForeignMod = syn::parse_quote! {
//!     unsafe extern "C" { fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32); }
//! };
//! let mut cx = cuda_kernel_syntax::report::Errors::default();
//! let block = cuda_kernel_syntax::parse::parse_block(&mut cx, block, &Default::default());
//! assert_eq!(
//!     cuda_kernel_syntax::cuda::prototype(&block.kernels[0], &[]).unwrap(),
//!     "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, unsigned int n);"
//! );
//! ```

use syn::Type;

use crate::ast::Kernel;
use crate::types;

/// How CUDA C spells `ty`: the built-in types by the table, pointers with their `const`s
/// (`*const *mut f32` is `float* const*`), other paths as struct names ([`CppType::c_spelling`]
/// of [`crate::cpp::from_syn`]). `None` for types C cannot spell (which the checks report).
///
/// [`CppType::c_spelling`]: crate::cpp::CppType::c_spelling
pub fn c_type(ty: &Type) -> Option<String> {
    c_type_in(ty, &[])
}

/// [`c_type`], spelling each struct of `cuda_names` (Rust name, CUDA name: `("Pair",
/// "geo::Pair")` for `#[kernel_param(cuda_name = "geo::Pair")]`) by its CUDA name, qualified
/// from the global namespace (`::geo::Pair`, which a prototype in a namespace also finds).
pub fn c_type_in(ty: &Type, cuda_names: &[(String, String)]) -> Option<String> {
    let rename = |name: &str| {
        cuda_names
            .iter()
            .find(|(rust, cuda)| rust == name && cuda.contains("::"))
            .map(|(_, cuda)| format!("::{cuda}"))
    };
    crate::cpp::from_syn(ty, &[]).map(|t| t.with_class_names(&rename).c_spelling())
}

/// The kernel's prototype: `extern "C" __global__ void name(params);`, or a C++ declaration
/// for a `cpp` kernel. `None` for a kernel bound to an explicit symbol (a template instance:
/// a prototype of it would declare another function) or with a type C cannot spell. Structs
/// are spelled by their CUDA names where `cuda_names` has them ([`c_type_in`]).
pub fn prototype(kernel: &Kernel, cuda_names: &[(String, String)]) -> Option<String> {
    if kernel.name_arg.is_some() || kernel.is_generic() {
        return None;
    }
    let params = kernel
        .params
        .iter()
        .map(|p| {
            let grid_constant = match p.is_grid_constant() {
                true => "const __grid_constant__ ",
                false => "",
            };
            let ty = c_type_in(&p.ty, cuda_names)?;
            Some(format!("{grid_constant}{ty} {}", p.ident))
        })
        .collect::<Option<Vec<_>>>()?;
    let linkage = if kernel.cpp.is_some() {
        ""
    } else {
        "extern \"C\" "
    };
    let name = syn::ext::IdentExt::unraw(&kernel.ident);
    let prototype = format!("{linkage}__global__ void {name}({});", params.join(", "));
    Some(match (&kernel.namespace, &kernel.cpp) {
        (Some(ns), Some(_)) => format!("namespace {} {{ {prototype} }}", ns.value()),
        _ => prototype,
    })
}

/// The explicit instantiation a `.cu` needs for a template instance: `args` are the template
/// arguments as Rust writes them (`f32` for a type parameter, `128` for a value), substituted
/// into the parameter list: `template __global__ void scale<float>(float*, float, size_t);`.
/// `None` for a type C cannot spell.
pub fn instantiation(kernel: &Kernel, args: &[&str]) -> Option<String> {
    let mut targs = Vec::new();
    let mut substitutions = Vec::new();
    for (generic, arg) in kernel.generics.iter().zip(args) {
        match generic {
            crate::ast::KernelGeneric::Type(ident) => {
                targs.push(c_type(&syn::parse_str(arg).ok()?)?);
                substitutions.push((ident.to_string(), *arg));
            }
            crate::ast::KernelGeneric::Const {
                enum_name: Some(name),
                ..
            } => targs.push(format!("({name}){arg}")),
            crate::ast::KernelGeneric::Const { .. } => targs.push(arg.to_string()),
        }
    }
    let params = kernel
        .params
        .iter()
        .map(|p| {
            let mut text = crate::check::type_text(&p.ty);
            for (param, with) in &substitutions {
                text = substitute(&text, param, with);
            }
            let ty = c_type(&syn::parse_str(&text).ok()?)?;
            Some(match p.is_grid_constant() {
                true => format!("const __grid_constant__ {ty}"),
                false => ty,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    // As a user writes it: a descriptor as `CUtensorMap`.
    Some(crate::demangle::for_messages(&format!(
        "template __global__ void {}<{}>({});",
        kernel.symbol,
        targs.join(", "),
        params.join(", ")
    )))
}

/// The prototypes of a family's members for the scalar element types (`affine_f32`,
/// `affine_f16`, ...): declaring a member that does not exist is harmless, and nvcc then checks
/// every one that does. Empty for other kernels. The 128-bit integers are left out: no code
/// base we know has a family of them, and their prototypes would be in every family's header
/// (the header is an input of the committed PTX's key).
pub fn family_prototypes(kernel: &Kernel) -> Vec<String> {
    let (Some(pattern), None) = (&kernel.name_arg, &kernel.cpp) else {
        return Vec::new();
    };
    // A kernel named at run time has members the sources alone do not name.
    if !kernel.is_generic() || kernel.generics.len() != 1 || kernel.run_time_name.is_some() {
        return Vec::new();
    }
    let param = kernel.generics[0].ident().to_string();
    types::SCALARS
        .iter()
        .chain(&types::HALF)
        .filter(|t| t.size <= 8)
        .filter_map(|t| {
            let params = kernel
                .params
                .iter()
                .map(|p| {
                    let text = crate::check::type_text(&p.ty);
                    let substituted = substitute(&text, &param, t.rust);
                    let ty: Type = syn::parse_str(&substituted).ok()?;
                    Some(format!("{} {}", c_type(&ty)?, p.ident))
                })
                .collect::<Option<Vec<_>>>()?;
            let name =
                crate::itanium::family_symbol(&pattern.value(), &[(&param, kernel.family_name(t))]);
            Some(format!(
                "extern \"C\" __global__ void {name}({});",
                params.join(", ")
            ))
        })
        .collect()
}

/// `text` with the type parameter `param` replaced by `with` where it stands as a whole word
/// (a raw identifier, `r#ref`, is one word: the parameter `r` is not in it).
fn substitute(text: &str, param: &str, with: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' || (c == '#' && word == "r") {
            word.push(c);
            continue;
        }
        out.push_str(if word == param { with } else { &word });
        word.clear();
        out.push(c);
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn pointers_spell_their_consts_as_c_does() {
        let spell = |ty: Type| c_type(&ty).unwrap();
        assert_eq!(spell(parse_quote!(*const f32)), "const float*");
        assert_eq!(spell(parse_quote!(*mut half::f16)), "__half*");
        assert_eq!(spell(parse_quote!(*mut *const f32)), "const float**");
        assert_eq!(
            spell(parse_quote!(*const *mut Particle)),
            "Particle* const*"
        );
        assert_eq!(spell(parse_quote!(cuda_kernel::Float4)), "float4");
        assert_eq!(spell(parse_quote!(u64)), "uint64_t");
        assert_eq!(spell(parse_quote!(ffi::c_ulonglong)), "unsigned long long");
        assert!(c_type(&parse_quote!([f32; 4])).is_none());
    }

    #[test]
    fn prototypes_name_structs_by_their_cuda_names() {
        let block: syn::ItemForeignMod = parse_quote! {
            unsafe extern "C" {
                fn spread(iv: Interval, offset: *const Interval, p: Particle);
            }
        };
        let mut cx = crate::report::Errors::default();
        let defaults = crate::attr::BlockDefaults {
            cpp: Some(parse_quote!(cpp)),
            namespace: Some(parse_quote!("ns")),
            ..Default::default()
        };
        let block = crate::parse::parse_block(&mut cx, block, &defaults);
        assert!(cx.is_empty());
        let names = [
            ("Interval".to_string(), "ns::shapes::Interval".to_string()),
            ("Particle".to_string(), "Particle".to_string()),
        ];
        assert_eq!(
            prototype(&block.kernels[0], &names).unwrap(),
            "namespace ns { __global__ void spread(::ns::shapes::Interval iv, \
             const ::ns::shapes::Interval* offset, Particle p); }"
        );
    }

    #[test]
    fn explicit_instantiations_substitute_whole_words() {
        let block: syn::ItemForeignMod = parse_quote! {
            unsafe extern "C" {
                #[kernel(cpp)]
                fn tiles<T, const N: u32>(x: *const T, t: *mut Tile, n: usize);
            }
        };
        let mut cx = crate::report::Errors::default();
        let block = crate::parse::parse_block(&mut cx, block, &Default::default());
        assert_eq!(
            instantiation(&block.kernels[0], &["f32", "128"]).unwrap(),
            "template __global__ void tiles<float, 128>(const float*, Tile*, size_t);"
        );
    }
}
