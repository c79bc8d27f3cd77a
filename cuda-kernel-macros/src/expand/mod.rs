//! Generating a typed launcher per kernel: a layout constant plus calls into the runtime.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, quote};
use syn::Path;

use std::path::PathBuf;

use cuda_kernel_syntax::ast::{Block, Kernel, KernelGeneric};
use cuda_kernel_syntax::report::Errors;
use cuda_kernel_syntax::{attr, check, foreign, parse, ptx_check};

mod called;
mod checks;
mod global;
mod kinds;
mod launcher;
mod members;
mod module;
mod symbol;

use called::*;
use checks::*;
use global::*;
use kinds::*;
use launcher::*;
use members::*;
use module::*;
use symbol::*;

/// `#[kernel]`: parse, check, expand, stopping after a phase that reported errors.
pub fn kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut cx = Errors::default();
    let block_args = attr::parse_block_args(&mut cx, args);
    // syn's tree, the usual declarations read without syn's general parsers (`foreign`).
    let item = match foreign::parse(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            cx.error(
                input,
                "#[kernel] goes on an `unsafe extern \"C\" { ... }` block of kernel fn declarations",
            );
            return cx.to_compile_errors();
        }
    };
    let mut block = parse::parse_block(&mut cx, item, &block_args.defaults);
    // Unlike cxx, checking does not depend on a complete parse (no name resolution across
    // items), so the kernels that parsed are checked even after parse errors: one build then
    // reports every mistake.
    check::check_block(&mut cx, &block);
    if let Some((_, module)) = &block_args.module {
        check::check_module_name(&mut cx, &block, module);
    }
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let ptx_file = block_args
        .ptx
        .as_ref()
        .and_then(|lit| ptx_check::read_ptx(&mut cx, lit, manifest_dir.as_deref()));
    if let Some(file) = &ptx_file {
        ptx_check::check_against_ptx(&mut cx, &mut block, file);
    } else if block_args.ptx.is_none() {
        check::check_cpp_names_need_ptx(&mut cx, &block);
    }
    let krate = &block_args.krate;
    let ptx_path = ptx_file
        .as_ref()
        .map(|file| file.path.to_string_lossy().into_owned());
    if cx.has_errors() {
        let errors = cx.to_compile_errors();
        let stand_ins = expand_items(krate, &block_args, &block, None, Body::StandIn);
        return quote! { #errors #stand_ins };
    }
    let items = expand_items(krate, &block_args, &block, ptx_path.as_deref(), Body::Real);
    // Makes the crate rebuild when the PTX file changes.
    let track = ptx_file.map(|file| {
        let path = file.path.to_string_lossy().into_owned();
        quote!(
            const _: &[u8] = include_bytes!(#path);
        )
    });
    quote! { #items #track }
}

/// Every generated item of the block: launchers, globals and the module type.
fn expand_items(
    krate: &Path,
    args: &attr::BlockArgs,
    block: &Block,
    ptx_path: Option<&str>,
    body: Body,
) -> TokenStream {
    let kernels = block
        .kernels
        .iter()
        .map(|k| expand_launcher(krate, k, body));
    let calls = expand_call_guards(block, args.module.as_ref().map(|(_, name)| name));
    let globals = block.globals.iter().map(|g| expand_global(krate, g, body));
    // A module named as a launcher is reported; generating both would only add a clash.
    let clashes = |name: &Ident| {
        block.kernels.iter().any(|k| k.type_ident() == *name)
            || block.globals.iter().any(|g| g.type_ident() == *name)
    };
    let module = args
        .module
        .as_ref()
        .filter(|(_, name)| !clashes(name))
        .map(|m| {
            let shown = args
                .ptx
                .as_ref()
                .map(syn::LitStr::value)
                .unwrap_or_default();
            expand_module(krate, m, block, (ptx_path, &shown), body)
        });
    // The runtime under a short name for the launchers (one glob import for the block; it
    // stays when `cfg` leaves every launcher out).
    let prelude = (!block.kernels.is_empty()).then(|| {
        quote! {
            #[allow(unused_imports)]
            use #krate::__prelude::*;
        }
    });
    let layouts = (body == Body::Real).then(|| layouts_evaluated(block));
    quote! { #prelude #(#kernels)* #calls #layouts #(#globals)* #module }
}

/// The runtime under the short name the block's glob import of `__prelude` gives it, which
/// keeps the generated code short (an identifier: interpolating it costs no call across the
/// proc-macro bridge, as a token stream would).
fn runtime() -> Ident {
    Ident::new("__ck", Span::call_site())
}

/// The items evaluating every plain launcher's layout, so that a signature over the size limit
/// fails to compile even if never launched: one array for the block (each item costs the
/// declaring crate's every rebuild), and an item of its own for a launcher under `cfg`.
fn layouts_evaluated(block: &Block) -> TokenStream {
    let p = runtime();
    let mut together = Vec::new();
    let mut apart = Vec::new();
    for kernel in block.kernels.iter().filter(|k| !k.symbol_at_load()) {
        let ty = kernel.type_ident();
        let cfg: Vec<_> = kernel
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
            .collect();
        if cfg.is_empty() {
            together.push(ty);
        } else {
            apart.push(quote!(#(#cfg)* const _: #p::ParamLayout = #ty::LAYOUT;));
        }
    }
    let count = proc_macro2::Literal::usize_unsuffixed(together.len());
    let together = (!together.is_empty())
        .then(|| quote!(const _: [#p::ParamLayout; #count] = [#(#together::LAYOUT),*];));
    quote!(#together #(#apart)*)
}

/// What the generated methods do: launch, or (beside errors) nothing, with `unreachable!()`
/// bodies that keep call sites resolving so the real errors are not buried under secondary
/// ones. Both have the same surface, generated once by [`expand_launcher`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    Real,
    StandIn,
}

/// The generics of the generated type: for its impl (`<T: KernelParam, const N: i32>`), its
/// uses (`<T, N>`) and its definition (`<T, const N: i32>`); empty for a plain kernel.
fn generics(p: &dyn ToTokens, kernel: &Kernel) -> (TokenStream, TokenStream, TokenStream) {
    if !kernel.is_generic() {
        return (quote!(), quote!(), quote!());
    }
    let bounded = bounded_generics(p, kernel);
    let mut uses = Vec::new();
    let mut declared = Vec::new();
    for g in &kernel.generics {
        match g {
            KernelGeneric::Type(t) => {
                declared.push(quote!(#t));
                uses.push(quote!(#t));
            }
            KernelGeneric::Const { ident, ty, .. } => {
                declared.push(quote!(const #ident: #ty));
                // Braced: a const parameter named as a type or module in scope (`Pair`,
                // `core`) is still the value.
                uses.push(quote!({ #ident }));
            }
        }
    }
    (
        quote!(<#(#bounded),*>),
        quote!(<#(#uses),*>),
        quote!(<#(#declared),*>),
    )
}

/// The generic parameters as an impl declares them: `T: KernelParam`, `const N: i32`.
fn bounded_generics(p: &dyn ToTokens, kernel: &Kernel) -> Vec<TokenStream> {
    bounded_generics_with(p, kernel, quote!())
}

/// [`bounded_generics`] with `more` added to each type parameter's bound.
fn bounded_generics_with(p: &dyn ToTokens, kernel: &Kernel, more: TokenStream) -> Vec<TokenStream> {
    kernel
        .generics
        .iter()
        .map(|g| match g {
            KernelGeneric::Type(t) => quote!(#t: #p::KernelParam #more),
            KernelGeneric::Const { ident, ty, .. } => quote!(const #ident: #ty),
        })
        .collect()
}

/// A placeholder's name as a Rust identifier (`op`; `r#type` for a keyword).
fn sanitized(name: &str) -> String {
    let ident: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // A keyword as a raw identifier (`r#type`), as the build step's generated names are.
    match ident.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        true => cuda_kernel_syntax::ast::rust_ident(&ident),
        false => format!("name_{ident}"),
    }
}
