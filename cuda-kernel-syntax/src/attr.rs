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
    /// What every kernel fn of the block takes unless it says otherwise.
    pub defaults: BlockDefaults,
}

/// Arguments of the block that are defaults for its kernel fns.
#[derive(Default)]
pub struct BlockDefaults {
    /// `names(F8E4M3 = "f8_e4m3")`: what `{T}` stands for in the families of the block, for
    /// the types named (a fn's own `names` come first).
    pub type_names: Vec<TypeName>,
    /// `cpp`: every kernel fn without `name = "..."` is a C++ kernel.
    pub cpp: Option<Path>,
    /// `namespace = "ns"`: the C++ namespace of every C++ kernel of the block that names none.
    pub namespace: Option<LitStr>,
}

/// `F8E4M3 = "f8_e4m3"` in `names(...)`: the text a type gives `{T}` in a family's symbol
/// pattern instead of its Rust name.
#[derive(Clone)]
pub struct TypeName {
    /// The type, as the declaration writes it.
    pub ty: Path,
    /// The text `{T}` becomes.
    pub name: LitStr,
}

impl TypeName {
    /// The built-in type it names, by the path's last segment (`F8E4M3`,
    /// `low_precision::F8E4M3`); `None` for a type of the user's.
    pub fn builtin(&self) -> Option<&'static crate::types::BuiltinType> {
        let last = self.ty.segments.last()?.ident.to_string();
        crate::types::by_name(&last)
    }
}

/// Parses the block's arguments, reporting unknown ones and going on.
pub fn parse_block_args(cx: &mut Errors, args: proc_macro2::TokenStream) -> BlockArgs {
    let mut krate = None;
    let mut ptx = None;
    let mut module = None;
    let mut type_names = Vec::new();
    let mut cpp = None;
    let mut namespace = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            parse_crate_arg(&meta, &mut krate)
        } else if meta.path.is_ident("ptx") {
            set_once(&meta, &mut ptx, meta.value()?.parse()?)
        } else if meta.path.is_ident("module") {
            let value = meta.value()?;
            let vis: Visibility = value.parse()?;
            set_once(&meta, &mut module, (vis, value.parse()?))
        } else if meta.path.is_ident("names") {
            parse_type_names(&meta, &mut type_names)
        } else if meta.path.is_ident("cpp") {
            set_once(&meta, &mut cpp, meta.path.clone())
        } else if meta.path.is_ident("namespace") {
            set_once(&meta, &mut namespace, parse_namespace(&meta)?)
        } else {
            Err(meta.error(format!(
                "unknown #[kernel] argument `{}`: expected `ptx = \"file.ptx\"`, `module = Name`, `cpp`, `namespace = \"ns\"`, `names(Type = \"name\", ...)` or `crate = path`",
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
        defaults: BlockDefaults {
            type_names,
            cpp,
            namespace,
        },
    }
}

/// `namespace = "cutlass::gemm"`: a C++ namespace, nested ones joined by `::`.
fn parse_namespace(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    let lit: LitStr = meta.value()?.parse()?;
    if !crate::cpp::valid_cpp_name(&lit.value()) {
        return Err(syn::Error::new(
            lit.span(),
            "expected the kernel's C++ namespace, nested ones joined by `::` (`ns`, `cutlass::gemm`)",
        ));
    }
    Ok(lit)
}

/// `names(F8E4M3 = "f8_e4m3", half::f16 = "half")`, refusing a type named twice and a name
/// that cannot be part of a symbol.
fn parse_type_names(meta: &ParseNestedMeta<'_>, out: &mut Vec<TypeName>) -> syn::Result<()> {
    meta.parse_nested_meta(|entry| {
        let name: LitStr = entry.value()?.parse()?;
        let text = name.value();
        if text.is_empty() || !text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(syn::Error::new(
                name.span(),
                "a type's name in a symbol is letters, digits and `_` (`f8_e4m3`)",
            ));
        }
        if out.iter().any(|t| t.ty == entry.path) {
            return Err(entry.error(format!("`{}` is named twice", path_text(&entry.path))));
        }
        out.push(TypeName {
            ty: entry.path.clone(),
            name,
        });
        Ok(())
    })
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
    /// `rename = Name`: the generated type's name, instead of the fn's in UpperCamelCase.
    pub rename: Option<Ident>,
    /// `namespace = "cutlass::gemm"`: the C++ namespace a `cpp` kernel is in.
    pub namespace: Option<LitStr>,
    /// `names(F8E4M3 = "f8_e4m3")`: what `{T}` stands for, for the types named.
    pub type_names: Vec<TypeName>,
    /// `#[requires(...)]` attributes: the kernel's contract, read by
    /// [`contract::parse`](crate::contract::parse).
    pub requires: Vec<syn::Attribute>,
}

/// Parses one `#[kernel(...)]` attribute on a fn into `args`.
pub fn parse_fn_args(cx: &mut Errors, attr: &Attribute, args: &mut FnArgs) {
    let result = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            set_once(&meta, &mut args.name, meta.value()?.parse()?)
        } else if meta.path.is_ident("cpp") {
            set_once(&meta, &mut args.cpp, meta.path.clone())
        } else if meta.path.is_ident("rename") {
            set_once(&meta, &mut args.rename, meta.value()?.parse()?)
        } else if meta.path.is_ident("namespace") {
            set_once(&meta, &mut args.namespace, parse_namespace(&meta)?)
        } else if meta.path.is_ident("names") {
            parse_type_names(&meta, &mut args.type_names)
        } else {
            Err(meta.error(format!(
                "unknown #[kernel] argument `{}` on a kernel fn: expected `name = \"symbol\"`, `cpp`, `namespace = \"ns\"`, `rename = Name` or `names(Type = \"name\", ...)`",
                path_text(&meta.path)
            )))
        }
    });
    if let Err(e) = result {
        cx.push(e);
    }
}

/// The `#[kernel(...)]` attribute of a kernel fn as generated declarations write it, read back
/// by [`parse_fn_args`] into the same arguments (the round trip is tested): the one writer of
/// the fn attribute's grammar.
///
/// ```
/// use cuda_kernel_syntax::attr::FnAttr;
/// let attr = FnAttr { cpp: true, namespace: Some("ns".into()), ..FnAttr::default() };
/// assert_eq!(attr.written(), "#[kernel(cpp, namespace = \"ns\")]");
/// assert_eq!(FnAttr::default().written(), "");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnAttr {
    /// `name = "symbol"`: the entry symbol, a pattern or a C++ name.
    pub name: Option<String>,
    /// `cpp`: the symbol is the C++ mangling of the signature.
    pub cpp: bool,
    /// `namespace = "ns"`: the C++ namespace of a `cpp` kernel.
    pub namespace: Option<String>,
    /// `rename = Name`: the launcher type's name.
    pub rename: Option<String>,
}

impl FnAttr {
    /// `#[kernel(name = "...", cpp, namespace = "...", rename = Name)]` with the arguments set,
    /// in that order; empty where none is.
    pub fn written(&self) -> String {
        let mut args: Vec<String> = Vec::new();
        if let Some(name) = &self.name {
            args.push(format!("name = {name:?}"));
        }
        if self.cpp {
            args.push("cpp".to_string());
        }
        if let Some(namespace) = &self.namespace {
            args.push(format!("namespace = {namespace:?}"));
        }
        if let Some(rename) = &self.rename {
            args.push(format!("rename = {rename}"));
        }
        match args.is_empty() {
            true => String::new(),
            false => format!("#[kernel({})]", args.join(", ")),
        }
    }
}

/// The attribute of a generated block, `#[::cuda_kernel::kernel(ptx = "...", module = pub
/// Name)]` (without `module` where `None`), which [`parse_block_args`] reads back.
pub fn block_attr(ptx: &str, module: Option<&str>) -> String {
    match module {
        Some(module) => format!("#[::cuda_kernel::kernel(ptx = {ptx:?}, module = pub {module})]"),
        None => format!("#[::cuda_kernel::kernel(ptx = {ptx:?})]"),
    }
}

/// `#[kernel(grid_constant)]` on a value parameter the kernel declares `const
/// __grid_constant__`, as generated declarations write it (read back by the parser's parameter
/// attributes; tested below).
pub const GRID_CONSTANT: &str = "#[kernel(grid_constant)]";

/// `#[kernel(enum = "ns::Mode")]` on a const parameter whose values are the C++ enum's, as
/// generated declarations write it (read back by the parser; tested below).
pub fn enum_attr(name: &str) -> String {
    format!("#[kernel(enum = {name:?})]")
}

/// `half::f16`, as written.
pub fn path_text(path: &Path) -> String {
    let mut text = String::new();
    for (i, segment) in path.segments.iter().enumerate() {
        if i > 0 {
            text.push_str("::");
        }
        text.push_str(&segment.ident.to_string());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every combination the writer makes is read back by the parser into the same arguments.
    #[test]
    fn the_written_attributes_read_back() {
        let names = [
            None,
            Some("affine_{T}"),
            Some("scale<float>(float*, int)"),
            Some("k\"q"),
        ];
        let namespaces = [None, Some("ns"), Some("cutlass::gemm")];
        let renames = [None, Some("ScaleT")];
        let mut count = 0;
        for name in names {
            for cpp in [false, true] {
                for namespace in namespaces {
                    for rename in renames {
                        let attr = FnAttr {
                            name: name.map(str::to_string),
                            cpp,
                            namespace: namespace.map(str::to_string),
                            rename: rename.map(str::to_string),
                        };
                        let text = attr.written();
                        if text.is_empty() {
                            assert_eq!(attr, FnAttr::default());
                            continue;
                        }
                        let parsed: Vec<Attribute> =
                            syn::parse::Parser::parse_str(Attribute::parse_outer, &text).unwrap();
                        let mut cx = Errors::default();
                        let mut args = FnArgs::default();
                        parse_fn_args(&mut cx, &parsed[0], &mut args);
                        assert!(cx.is_empty(), "{text}");
                        let back = FnAttr {
                            name: args.name.map(|l| l.value()),
                            cpp: args.cpp.is_some(),
                            namespace: args.namespace.map(|l| l.value()),
                            rename: args.rename.map(|i| i.to_string()),
                        };
                        assert_eq!(back, attr, "{text}");
                        count += 1;
                    }
                }
            }
        }
        assert_eq!(count, 4 * 2 * 3 * 2 - 1);
        // The parameters' attributes, through the parser of a block.
        let text = format!(
            "extern \"C\" {{ #[kernel(cpp)] fn k<{} const M: i32>({} x: u32); }}",
            enum_attr("ns::Mode"),
            GRID_CONSTANT
        );
        let item: syn::ItemForeignMod = syn::parse_str(&text).unwrap();
        let mut cx = Errors::default();
        let block = crate::parse::parse_block(&mut cx, item, &BlockDefaults::default());
        assert!(cx.is_empty(), "{text}");
        let kernel = &block.kernels[0];
        assert!(kernel.params[0].grid_constant.is_some());
        assert!(matches!(
            &kernel.generics[0],
            crate::ast::KernelGeneric::Const { enum_name: Some(e), .. } if e == "ns::Mode"
        ));
        for module in [None, Some("Kernels")] {
            for ptx in ["$OUT_DIR/fill.ptx", "kernels/a b.ptx"] {
                let text = block_attr(ptx, module);
                let parsed: Vec<Attribute> =
                    syn::parse::Parser::parse_str(Attribute::parse_outer, &text).unwrap();
                let syn::Meta::List(list) = &parsed[0].meta else {
                    panic!("{text}")
                };
                let mut cx = Errors::default();
                let args = parse_block_args(&mut cx, list.tokens.clone());
                assert!(cx.is_empty(), "{text}");
                assert_eq!(args.ptx.map(|l| l.value()).as_deref(), Some(ptx));
                assert_eq!(
                    args.module.map(|(vis, name)| (
                        matches!(vis, syn::Visibility::Public(_)),
                        name.to_string()
                    )),
                    module.map(|m| (true, m.to_string()))
                );
            }
        }
    }
}
