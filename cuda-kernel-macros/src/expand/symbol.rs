//! Symbols: how a generic kernel's instance is named at load (Itanium symbols, family
//! patterns), and the assertions that a struct parameter's C++ name is the PTX's.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use cuda_kernel_syntax::ast::{Kernel, KernelGeneric};
use cuda_kernel_syntax::itanium::CppType;
use cuda_kernel_syntax::mangle;

/// How a generic kernel's instance is named at load time: the Itanium symbol of the template
/// instance, or the family's pattern filled in; for a kernel named at run time, with `name`
/// for its run-time part (left open, in braces, without one).
pub(super) fn symbol_body(
    p: &dyn ToTokens,
    kernel: &Kernel,
    name: Option<TokenStream>,
    internal: bool,
) -> TokenStream {
    let symbol = &kernel.symbol;
    if kernel.cpp.is_some() {
        // A device function parameter: the function `name` names (`ops::neg`), external;
        // loading tries it as a `static` one too (`Kernel::__internal_symbol`).
        let function = kernel.device_fn.as_ref().map(|_| {
            let params = kernel.device_fn_params().unwrap_or_default();
            let params = params.iter().map(|ty| cpp_type_tokens(p, ty));
            let name = name
                .clone()
                .unwrap_or_else(|| quote!(#p::core::concat!("{", #symbol, "}")));
            quote!(#p::TemplateArg::Function {
                name: ::std::string::ToString::to_string(#name),
                params: ::std::vec![#(#params),*],
                internal: #internal,
            })
        });
        let args = kernel.generics.iter().map(|g| match g {
            KernelGeneric::Type(t) => quote!(#p::template_arg::<#t>()),
            KernelGeneric::Const {
                ident,
                enum_name: Some(name),
                ..
            } => quote!(#p::TemplateArg::Enum {
                name: ::std::string::String::from(#name),
                value: #ident as i128,
            }),
            KernelGeneric::Const { ident, code, .. } => {
                let code = code.unwrap_or("i");
                quote!(#p::TemplateArg::Int { code: #code, value: #ident as i128 })
            }
        });
        let args = kernel.template_args(args.collect(), function);
        let generics = kernel.type_params();
        let generics: Vec<&str> = generics.iter().map(String::as_str).collect();
        let params = kernel.params.iter().map(|param| {
            // The checks refused a parameter C++ cannot spell; `int` keeps the stand-in typed.
            let ty = mangle::cpp_type(&param.ty, &generics).unwrap_or(CppType::builtin("i32"));
            // A struct by its CUDA name (`ns::shapes::Interval`), as a plain kernel's.
            if ty.names_a_class() {
                let ty = &param.ty;
                return quote!(<#ty as #p::KernelParam>::CUDA_TYPE.cpp());
            }
            cpp_type_tokens(p, &ty)
        });
        quote!(#p::itanium::mangle(#symbol, #p::core::option::Option::Some(&[#(#args),*]), &[#(#params),*]))
    } else {
        let names = type_names(p, kernel);
        let mut subs: Vec<TokenStream> = kernel
            .generics
            .iter()
            .map(|g| match g {
                KernelGeneric::Type(t) => {
                    let name = t.to_string();
                    quote!((#name, #p::family_name_with::<#t>(#names)))
                }
                KernelGeneric::Const { ident, .. } => {
                    let name = ident.to_string();
                    quote!((#name, ::std::string::ToString::to_string(&#ident)))
                }
            })
            .collect();
        if let (Some(hole), Some(value)) = (&kernel.run_time_name, name) {
            subs.push(quote!((#hole, ::std::string::ToString::to_string(#value))));
        }
        quote!(#p::itanium::family_symbol(#symbol, &[#(#subs),*]))
    }
}

/// For a generic `extern "C"` declaration over types alone (a family, `affine_{T}`), also one
/// named at run time (`u{op}_{T}`): its symbol as data (`Kernel::__SYMBOL`: the pattern, each
/// type parameter's CUDA type, the block's names), from which loading names each instance in
/// the runtime, and which the `Kernel` trait's own `symbol` functions read. `None` for a C++
/// kernel or a family over constants, whose symbol functions compute it ([`symbol_body`]).
pub(super) fn family_symbol(p: &dyn ToTokens, kernel: &Kernel) -> Option<TokenStream> {
    let over_types = kernel
        .generics
        .iter()
        .all(|g| matches!(g, KernelGeneric::Type(_)));
    let derived = kernel.is_generic() || kernel.run_time_name.is_some();
    if kernel.cpp.is_some() || !over_types || !derived {
        return None;
    }
    let pattern = &kernel.symbol;
    let types = kernel.generics.iter().filter_map(|g| match g {
        KernelGeneric::Type(t) => {
            let name = t.to_string();
            Some(quote!((#name, <#t as #p::KernelParam>::CUDA_TYPE)))
        }
        KernelGeneric::Const { .. } => None,
    });
    let names = type_names(p, kernel);
    let option = quote!(#p::core::option::Option);
    // The trait's `symbol` and `symbol_named` read it: nothing more per declaration.
    Some(quote! {
        const __SYMBOL: #option<&'static #p::FamilySymbol> = #option::Some(&#p::FamilySymbol {
            pattern: #pattern,
            types: &[#(#types),*],
            names: #names,
        });
    })
}

/// The block's names for types (`names(F8E4M3 = "f8_e4m3")`) as a slice of each type's
/// `CUDA_TYPE` and its name, spanned on the type (a type that is not a parameter type is an
/// error there).
fn type_names(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    let names = kernel.type_names.iter().map(|named| {
        let (ty, text) = (&named.ty, &named.name);
        quote_spanned!(ty.span()=> (<#ty as #p::KernelParam>::CUDA_TYPE, #text))
    });
    quote!(&[#(#names),*])
}

/// A `cpp` kernel taking structs (not a template): its symbol derived at load, each struct
/// by its CUDA name (`<Pair as KernelParam>::CUDA_TYPE`, which may be `geo::Pair`), as a
/// template instance's is; `None` for any other kernel, whose `NAME` is its symbol.
pub(super) fn struct_symbol_body(p: &dyn ToTokens, kernel: &Kernel) -> Option<TokenStream> {
    if kernel.cpp.is_none() || kernel.name_arg.is_some() || kernel.unmangled_param.is_some() {
        return None;
    }
    let types: Vec<CppType> = kernel
        .params
        .iter()
        .map(|param| mangle::cpp_type(&param.ty, &[]))
        .collect::<Option<_>>()?;
    if !types.iter().any(CppType::names_a_class) {
        return None;
    }
    let name = kernel.cpp_name();
    let params = kernel.params.iter().zip(&types).map(|(param, cpp)| {
        if cpp.names_a_class() {
            let ty = &param.ty;
            quote!(<#ty as #p::KernelParam>::CUDA_TYPE.cpp())
        } else {
            cpp_type_tokens(p, cpp)
        }
    });
    Some(quote!(#p::itanium::mangle(#name, #p::core::option::Option::None, &[#(#params),*])))
}

/// For a `cpp` kernel the PTX check found by its structs' C++ names: a compile-time assertion
/// that each struct's CUDA name is the one the PTX's entry gives it.
pub(super) fn struct_name_asserts(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    // One assertion per struct (`iv: Interval` and `offset: *const Interval` are one), at the
    // struct's name in its first parameter.
    let mut structs: Vec<(&syn::Type, &str, Vec<String>)> = Vec::new();
    for (index, name) in &kernel.cuda_names {
        let param = &kernel.params[*index];
        let mut ty = &param.ty;
        while let syn::Type::Ptr(ptr) = ty {
            ty = &ptr.elem;
        }
        match structs.iter_mut().find(|(t, _, _)| *t == ty) {
            Some((_, _, params)) => params.push(format!("`{}`", param.ident)),
            None => structs.push((ty, name, vec![format!("`{}`", param.ident)])),
        }
    }
    let asserts = structs.iter().map(|(ty, name, params)| {
        let message = format!(
            "the PTX's `{}` takes `{name}` ({} {}), and this struct's CUDA name is not `{name}`: \
             declare the struct with #[kernel_param(cuda_name = \"{name}\")]",
            kernel.cpp_name(),
            if params.len() > 1 {
                "parameters"
            } else {
                "parameter"
            },
            params.join(", ")
        );
        quote_spanned! {ty.span()=>
            const _: () = ::core::assert!(
                #p::same_name(<#ty as #p::KernelParam>::CUDA_TYPE, #name),
                #message
            );
        }
    });
    quote!(#(#asserts)*)
}

/// `ty` as an expression that builds it, for generated code.
pub(super) fn cpp_type_tokens(p: &dyn ToTokens, ty: &CppType) -> TokenStream {
    match ty {
        CppType::Builtin(t) => {
            let rust = t.rust;
            quote!(#p::CppType::builtin(#rust))
        }
        CppType::Named(name) => quote!(#p::CppType::Named(::std::string::String::from(#name))),
        CppType::Param(index) => {
            let index = proc_macro2::Literal::usize_unsuffixed(*index);
            quote!(#p::CppType::Param(#index))
        }
        CppType::Pointer { to_const, to } => {
            let to = cpp_type_tokens(p, to);
            quote!(#p::CppType::Pointer { to_const: #to_const, to: ::std::boxed::Box::new(#to) })
        }
    }
}
