//! Compile-time checks the PTX check leaves to rustc: sizes and alignments of types only the
//! compiler knows, and the descriptor types a declaration names.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use cuda_kernel_syntax::ast::{Kernel, ParamKind};

/// A descriptor parameter's type as written (`TensorMap<f16, 2>`), named in the expansion
/// (the launcher takes its own `TensorMapArg` bound): so the user's import of it is used, and a
/// path that does not resolve is reported where it was written. For stand-ins too.
pub(super) fn tensor_map_uses(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    let attrs = &kernel.attrs;
    // Outside the launcher's impl, where its generic parameters are unknown: a type naming one
    // (`TensorMap<T, 2>`) is left out.
    let generic = |ty: &syn::Type| {
        fn mentions(tokens: TokenStream, names: &[String]) -> bool {
            tokens.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => names.contains(&i.to_string()),
                proc_macro2::TokenTree::Group(g) => mentions(g.stream(), names),
                _ => false,
            })
        }
        let names: Vec<String> = kernel
            .generics
            .iter()
            .map(|g| g.ident().to_string())
            .collect();
        mentions(ty.to_token_stream(), &names)
    };
    let uses = kernel.params.iter().filter_map(|param| {
        let ParamKind::TensorMap(..) = param.kind() else {
            return None;
        };
        if generic(&param.ty) {
            return None;
        }
        let param_ty = &param.ty;
        Some(quote! {
            #(#attrs)*
            const _: () = {
                let _: #p::PhantomData<#param_ty>;
            };
        })
    });
    quote!(#(#uses)*)
}

/// Compile-time checks of a real launcher: each size and alignment the PTX check left to the
/// compiler is asserted (its layout is evaluated by [`layouts_evaluated`]).
pub(super) fn expand_checks(p: &dyn ToTokens, kernel: &Kernel) -> TokenStream {
    let attrs = &kernel.attrs;
    let layout_checks = kernel.params.iter().filter_map(|param| {
        let layout = param.ptx_layout.as_ref()?;
        let param_ty = &param.ty;
        let (size, align, message) = (layout.size, layout.align, &layout.message);
        let condition = quote_spanned! {param_ty.span()=>
            <#param_ty as KernelParam>::SIZE == #size && <#param_ty as KernelParam>::ALIGN == #align
        };
        Some(ptx_assertion(p, attrs, param_ty, condition, message))
    });
    quote! {
        #(#layout_checks)*
    }
}

/// A check the PTX check left to the compiler: `condition` (on `<ty as KernelParam>`) must hold,
/// or rustc reports `message` at `ty`: a const panic whose tokens are spanned on the type, so
/// that rustc's one error is the message at the user's type (a trait bound, as before, added
/// rustc's lines naming the generated trait and function).
pub(super) fn ptx_assertion(
    p: &dyn ToTokens,
    attrs: &[syn::Attribute],
    ty: &syn::Type,
    condition: TokenStream,
    message: &str,
) -> TokenStream {
    // A const panic spanned on the type: rustc's one error is the message, at the type, with no
    // name of the generated code in it.
    let escaped = message.replace('{', "{{").replace('}', "}}");
    let check = quote_spanned! {ty.span()=>
        if !(#condition) {
            ::core::panic!(#escaped)
        }
    };
    quote! {
        #(#attrs)*
        const _: () = {
            use #p::KernelParam;
            #check
        };
    }
}
