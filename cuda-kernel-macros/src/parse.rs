//! From syn's `ItemForeignMod` to our `ast`, reporting what is not a kernel declaration.

use proc_macro2::{Ident, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, FnArg, ForeignItem, ForeignItemFn, ItemForeignMod, Pat, Visibility};

use crate::ast::{Block, Kernel, Param};
use crate::attr::{self, FnArgs};
use crate::report::Errors;

/// Attributes carried from a kernel fn to the generated type and impl.
const CARRIED_ATTRS: &[&str] = &[
    "cfg",
    "cfg_attr",
    "allow",
    "warn",
    "deny",
    "expect",
    "deprecated",
];

/// Parses the block's items, reporting each one that is not a kernel fn and going on.
pub fn parse_block(cx: &mut Errors, block: ItemForeignMod) -> Block {
    for attr in &block.attrs {
        if !attr.path().is_ident("doc") {
            cx.error(
                attr,
                "attributes on a #[kernel] block are not supported: put them on the kernel fns",
            );
        }
    }
    let mut kernels = Vec::new();
    for item in block.items {
        match item {
            ForeignItem::Fn(f) => kernels.push(parse_kernel(cx, f, false)),
            ForeignItem::Verbatim(tokens) => match parse_safe_fn(tokens.clone()) {
                Some(f) => kernels.push(parse_kernel(cx, f, true)),
                None => cx.error(tokens, "expected a kernel declaration: `fn name(params);`"),
            },
            ForeignItem::Static(s) => cx.error(
                quote::quote!(#s),
                "statics cannot be declared in a #[kernel] block, only kernel fns: read a \
                 __device__ or __constant__ variable with CudaModule::get_global",
            ),
            ForeignItem::Type(t) => cx.error(
                quote::quote!(#t),
                "types cannot be declared in a #[kernel] block, only kernel fns: declare the \
                 type outside the block",
            ),
            ForeignItem::Macro(m) => cx.error(
                &m.mac,
                "macros are not expanded inside a #[kernel] block: write the kernel fns out",
            ),
            other => cx.error(other, "expected a kernel declaration: `fn name(params);`"),
        }
    }
    Block {
        abi: block.abi,
        kernels,
    }
}

/// `safe fn ...;`, which syn hands over as verbatim tokens.
fn parse_safe_fn(tokens: TokenStream) -> Option<ForeignItemFn> {
    let parser = |input: ParseStream| {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let safe: Ident = input.parse()?;
        if safe != "safe" {
            return Err(syn::Error::new(safe.span(), "expected `safe`"));
        }
        let mut f: ForeignItemFn = input.parse()?;
        f.attrs = attrs;
        f.vis = vis;
        Ok(f)
    };
    parser.parse2(tokens).ok()
}

fn parse_kernel(cx: &mut Errors, f: ForeignItemFn, safe: bool) -> Kernel {
    let mut docs = Vec::new();
    let mut attrs = Vec::new();
    let mut args = FnArgs::default();
    for attr in f.attrs {
        let path = attr.path();
        if path.is_ident("doc") {
            docs.push(attr);
        } else if path.is_ident("kernel") {
            attr::parse_fn_args(cx, &attr, &mut args);
        } else if path.is_ident("link_name") {
            cx.error(
                &attr,
                "use #[kernel(name = \"symbol\")] to bind a kernel to another symbol",
            );
        } else if CARRIED_ATTRS.iter().any(|name| path.is_ident(name)) {
            attrs.push(attr);
        } else {
            cx.error(
                &attr,
                "unsupported attribute on a kernel fn: expected doc comments, #[kernel(name = \"...\")], #[cfg], lint attributes or #[deprecated]",
            );
        }
    }
    let mut params = Vec::new();
    for input in &f.sig.inputs {
        match input {
            FnArg::Typed(pat_type) => match &*pat_type.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() => {
                    params.push(Param {
                        ident: p.ident.clone(),
                        ty: (*pat_type.ty).clone(),
                    })
                }
                pat => cx.error(
                    pat,
                    "kernel parameters need a plain name: write `name: Type` (the name becomes the launcher's argument)",
                ),
            },
            FnArg::Receiver(r) => cx.error(r, "kernels take no `self`: write `name: Type`"),
        }
    }
    Kernel {
        docs,
        attrs,
        vis: f.vis,
        safe,
        ident: f.sig.ident.clone(),
        symbol: args.name,
        cpp: args.cpp,
        sig: f.sig,
        params,
    }
}
