//! The arguments of `#[kernel(...)]` on a block, and of `#[kernel(...)]` on a fn inside it.

use proc_macro2::Ident;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Path, Visibility};

use crate::report::Errors;

/// `#[kernel(crate = path, ptx = "file.ptx")]` on the block.
pub struct BlockArgs {
    /// Where the runtime is: `::cuda_kernel` unless re-exported elsewhere.
    pub krate: Path,
    /// The PTX to check the declarations against, relative to the crate's manifest directory
    /// or to an environment variable's folder (`"$OUT_DIR/kernels.ptx"`).
    pub ptx: Option<LitStr>,
    /// `module = pub MlKernels`: a type that embeds the PTX and loads every kernel of the block.
    pub module: Option<(Visibility, Ident)>,
}

/// Parses the block's arguments, reporting unknown ones and going on.
pub fn parse_block_args(cx: &mut Errors, args: proc_macro2::TokenStream) -> BlockArgs {
    let mut krate = None;
    let mut ptx = None;
    let mut module = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            parse_crate_arg(&meta, &mut krate)
        } else if meta.path.is_ident("ptx") {
            set_once(&meta, &mut ptx, meta.value()?.parse()?)
        } else if meta.path.is_ident("module") {
            let value = meta.value()?;
            let vis: Visibility = value.parse()?;
            set_once(&meta, &mut module, (vis, value.parse()?))
        } else {
            Err(meta.error(format!(
                "unknown #[kernel] argument `{}`: expected `ptx = \"file.ptx\"`, `module = Name` or `crate = path`",
                path_text(&meta.path)
            )))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.push(e);
    }
    if let (Some((_, name)), None) = (&module, &ptx) {
        cx.error(
            name,
            "`module` embeds the block's PTX and loads its kernels from it: add `ptx = \"file.ptx\"`",
        );
    }
    BlockArgs {
        krate: krate.unwrap_or_else(runtime_path),
        ptx,
        module,
    }
}

/// `crate = path`, for crates that re-export the runtime: one parser for `#[kernel(...)]` and
/// `#[kernel_param(...)]`.
pub fn parse_crate_arg(meta: &ParseNestedMeta<'_>, krate: &mut Option<Path>) -> syn::Result<()> {
    set_once(meta, krate, meta.value()?.parse()?)
}

/// Stores an argument's value, refusing a second one.
fn set_once<T>(meta: &ParseNestedMeta<'_>, slot: &mut Option<T>, value: T) -> syn::Result<()> {
    if slot.replace(value).is_some() {
        return Err(meta.error(format!("duplicate `{}` argument", path_text(&meta.path))));
    }
    Ok(())
}

/// `::cuda_kernel`, where generated code finds the runtime unless told otherwise.
pub fn runtime_path() -> Path {
    syn::parse_quote!(::cuda_kernel)
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
            set_once(&meta, &mut args.name, meta.value()?.parse()?)
        } else if meta.path.is_ident("cpp") {
            set_once(&meta, &mut args.cpp, meta.path.clone())
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
