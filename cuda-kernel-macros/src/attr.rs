//! The arguments of `#[kernel(...)]` on a block, and of `#[kernel(...)]` on a fn inside it.

use syn::{Attribute, LitStr, Path};

use crate::report::Errors;

/// `#[kernel(crate = path, ptx = "file.ptx")]` on the block.
pub struct BlockArgs {
    /// Where the runtime is: `::cuda_kernel` unless re-exported elsewhere.
    pub krate: Path,
    /// The PTX to check the declarations against, relative to the crate's manifest directory.
    pub ptx: Option<LitStr>,
}

/// Parses the block's arguments, reporting unknown ones and going on.
pub fn parse_block_args(cx: &mut Errors, args: proc_macro2::TokenStream) -> BlockArgs {
    let mut krate = None;
    let mut ptx = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            let path: Path = meta.value()?.parse()?;
            if krate.replace(path).is_some() {
                return Err(meta.error("duplicate `crate` argument"));
            }
            Ok(())
        } else if meta.path.is_ident("ptx") {
            let path: LitStr = meta.value()?.parse()?;
            if ptx.replace(path).is_some() {
                return Err(meta.error("duplicate `ptx` argument"));
            }
            Ok(())
        } else {
            Err(meta.error(format!(
                "unknown #[kernel] argument `{}`: expected `ptx = \"file.ptx\"` or `crate = path`",
                path_text(&meta.path)
            )))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.push(e);
    }
    BlockArgs {
        krate: krate.unwrap_or_else(|| syn::parse_quote!(::cuda_kernel)),
        ptx,
    }
}

/// `#[kernel(name = "symbol")]` on a fn: binds the declaration to an explicit entry symbol.
#[derive(Default)]
pub struct FnArgs {
    /// The entry symbol, when it differs from the fn's name.
    pub name: Option<LitStr>,
    /// `cpp`: the entry symbol is the C++ mangling of the fn's signature.
    pub cpp: Option<Path>,
}

/// Parses one `#[kernel(...)]` attribute on a fn into `args`.
pub fn parse_fn_args(cx: &mut Errors, attr: &Attribute, args: &mut FnArgs) {
    let result = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            let name: LitStr = meta.value()?.parse()?;
            if args.name.replace(name).is_some() {
                return Err(meta.error("duplicate `name` argument"));
            }
            Ok(())
        } else if meta.path.is_ident("cpp") {
            if args.cpp.replace(meta.path.clone()).is_some() {
                return Err(meta.error("duplicate `cpp` argument"));
            }
            Ok(())
        } else {
            Err(meta.error(format!(
                "unknown #[kernel] argument `{}` on a kernel fn: expected `name = \"symbol\"` or `cpp`",
                path_text(&meta.path)
            )))
        }
    });
    if let Err(e) = result {
        cx.push(e);
    }
}

fn path_text(path: &Path) -> String {
    let mut text = String::new();
    for (i, segment) in path.segments.iter().enumerate() {
        if i > 0 {
            text.push_str("::");
        }
        text.push_str(&segment.ident.to_string());
    }
    text
}
