//! From syn's `ItemForeignMod` to our `ast`, reporting what is not a kernel declaration.

use proc_macro2::{Ident, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::{
    Attribute, Data, DeriveInput, Expr, Fields, FnArg, ForeignItem, ForeignItemFn, GenericParam,
    ItemForeignMod, LitStr, Member, Pat, Type, Visibility,
};

use syn::ext::IdentExt;

use crate::ast::{
    Block, DeviceFnParam, Field, GlobalVar, Kernel, KernelGeneric, Param, ParamStruct,
};
use crate::attr::{self, BlockDefaults, FnArgs};
use crate::report::Errors;
use crate::{check, mangle, types};

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
/// `defaults` are the block's arguments its kernels take unless they say otherwise: its
/// `names(...)` (which each kernel's own come before), `cpp` and `namespace`.
pub fn parse_block(cx: &mut Errors, block: ItemForeignMod, defaults: &BlockDefaults) -> Block {
    for attr in &block.attrs {
        // `#[rustfmt::skip]` is rustfmt's, which reads the source: nothing to carry.
        let rustfmt = attr
            .path()
            .segments
            .first()
            .is_some_and(|s| s.ident == "rustfmt");
        if !attr.path().is_ident("doc") && !rustfmt {
            cx.error(
                attr,
                "attributes on a #[kernel] block are not supported: put them on the kernel fns",
            );
        }
    }
    let mut kernels = Vec::new();
    let mut globals = Vec::new();
    for item in block.items {
        match item {
            ForeignItem::Fn(f) => kernels.push(parse_kernel(cx, f, false, defaults)),
            ForeignItem::Verbatim(tokens) => match parse_safe_fn(tokens.clone()) {
                Some(f) => kernels.push(parse_kernel(cx, f, true, defaults)),
                // A body written out: the kernel's code is the .cu's.
                None => match syn::parse2::<syn::ItemFn>(tokens.clone()) {
                    Ok(f) => cx.error(
                        &f.block,
                        "a kernel declaration has no body: its code is in the .cu; end the \
                         declaration with `;`",
                    ),
                    Err(_) => cx.error(tokens, "expected a kernel declaration: `fn name(params);`"),
                },
            },
            ForeignItem::Static(s) => globals.push(parse_global(cx, s)),
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
    if let Some(namespace) = &defaults.namespace {
        if !kernels.is_empty() && kernels.iter().all(|k| k.cpp.is_none()) {
            cx.error(
                namespace,
                "the block's `namespace` applies to its C++ kernels, and it has none: add `cpp` \
                 to the block (`#[kernel(ptx = \"...\", cpp, namespace = \"...\")]`) or to its \
                 kernel fns; an extern \"C\" kernel has no namespace in its symbol",
            );
        }
    }
    Block {
        abi: block.abi,
        kernels,
        globals,
    }
}

/// Doc comments, attributes carried to the generated items, and `#[kernel(...)]` arguments of
/// a fn or static of the block; anything else is reported with `unsupported`.
fn split_attrs(
    cx: &mut Errors,
    all: Vec<Attribute>,
    unsupported: &str,
) -> (Vec<Attribute>, Vec<Attribute>, FnArgs) {
    let mut docs = Vec::new();
    let mut attrs = Vec::new();
    let mut args = FnArgs::default();
    for attr in all {
        let path = attr.path();
        if path.is_ident("doc") {
            docs.push(attr);
        } else if path.is_ident("requires") {
            args.requires.push(attr);
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
            cx.error(&attr, unsupported);
        }
    }
    (docs, attrs, args)
}

/// `static NAME: T;`: a `__constant__` or `__device__` variable of the module.
fn parse_global(cx: &mut Errors, s: syn::ForeignItemStatic) -> GlobalVar {
    let (docs, attrs, args) = split_attrs(
        cx,
        s.attrs,
        "unsupported attribute on a device global: expected doc comments, \
         #[kernel(name = \"...\")], #[cfg] or lint attributes",
    );
    if let Some(cpp) = &args.cpp {
        cx.error(
            cpp,
            "`cpp` derives kernel symbols: name a global with `name = \"...\"`",
        );
    }
    if let Some(requires) = args.requires.first() {
        cx.error(
            requires,
            "#[requires] states when a kernel's launch is memory-safe; a global has no contract",
        );
    }
    if let Some(rename) = &args.rename {
        cx.error(
            rename,
            "`rename` names a kernel's launcher type; a global's type is named after the static",
        );
    }
    if let Some(entry) = args.type_names.first() {
        cx.error(
            &entry.ty,
            "`names` applies to families of kernels, not to globals",
        );
    }
    if let syn::StaticMutability::Mut(m) = &s.mutability {
        cx.error(
            m,
            "write `static`: a device global is written and read through its generated type, \
             never as a Rust static",
        );
    }
    let type_error = match &*s.ty {
        // An array by value is what a global holds (`__constant__ float coeffs[16]`).
        Type::Array(array) => check::param_type_error(&array.elem),
        ty => check::param_type_error(ty),
    };
    GlobalVar {
        docs,
        attrs,
        vis: s.vis,
        symbol: args
            .name
            .as_ref()
            .map_or_else(|| s.ident.unraw().to_string(), LitStr::value),
        ident: s.ident,
        name_arg: args.name,
        ty: *s.ty,
        type_error,
        ptx_layout: None,
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

fn parse_kernel(cx: &mut Errors, f: ForeignItemFn, safe: bool, defaults: &BlockDefaults) -> Kernel {
    let (docs, attrs, mut args) = split_attrs(
        cx,
        f.attrs,
        "unsupported attribute on a kernel fn: expected doc comments, #[kernel(name = \"...\")], #[requires(...)], #[cfg], lint attributes or #[deprecated]",
    );
    // The block's `cpp` for a fn that names no symbol, its `namespace` for a C++ fn that names
    // none.
    if args.cpp.is_none() && args.name.is_none() {
        args.cpp = defaults.cpp.clone();
    }
    if args.namespace.is_none() && args.cpp.is_some() {
        args.namespace = defaults.namespace.clone();
    }
    let mut params = Vec::new();
    for input in &f.sig.inputs {
        match input {
            FnArg::Typed(pat_type) => match &*pat_type.pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() => {
                    let (read_only, grid_constant) = parse_param_attrs(cx, &pat_type.attrs);
                    // A type of the table is a parameter type: nothing to find wrong with it.
                    let builtin = crate::ast::builtin_of(&pat_type.ty);
                    params.push(Param {
                        ident: p.ident.clone(),
                        type_error: match builtin {
                            Some(_) => None,
                            None => check::param_type_error(&pat_type.ty),
                        },
                        ty: (*pat_type.ty).clone(),
                        read_only,
                        grid_constant,
                        ptx_layout: None,
                        builtin,
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
    let (generics, device_fn) = parse_generics(cx, &f.sig.generics);
    let contract = crate::contract::parse(cx, &args.requires, &params, &generics);
    // A placeholder no generic parameter fills is chosen at run time (`op` of "u{op}_{T}").
    // So is a C++ template's device function parameter, by the function's name.
    let run_time_name = match (&args.name, &args.cpp, &device_fn) {
        (Some(pattern), None, _) => crate::pattern::holes(&pattern.value())
            .into_iter()
            .find(|hole| generics.iter().all(|g| g.ident() != hole))
            .map(str::to_string),
        (_, _, Some(f)) => Some(syn::ext::IdentExt::unraw(&f.ident).to_string()),
        _ => None,
    };
    let mut type_names = args.type_names.clone();
    for name in &defaults.type_names {
        if type_names.iter().all(|t| t.ty != name.ty) {
            type_names.push(name.clone());
        }
    }
    let (symbol, unmangled_param) = if generics.is_empty() && run_time_name.is_none() {
        resolve_symbol(&f.sig.ident, &args, &params)
    } else {
        // The template's name (in its namespace), or the family's pattern; instances are named
        // at load time.
        (
            args.name
                .as_ref()
                .map_or_else(|| cpp_name(&f.sig.ident, &args), LitStr::value),
            None,
        )
    };
    let type_name = Kernel::type_name_of(&f.sig.ident, args.rename.as_ref());
    Kernel {
        docs,
        attrs,
        vis: f.vis,
        safe,
        ident: f.sig.ident.clone(),
        name_arg: args.name,
        cpp: args.cpp,
        namespace: args.namespace,
        symbol,
        unmangled_param,
        cuda_names: Vec::new(),
        sig: f.sig,
        generics,
        device_fn,
        params,
        rename: args.rename,
        type_name,
        type_names,
        run_time_name,
        members: None,
        contract,
    }
}

/// The type and const parameters of a generic declaration. Bounds are not needed (every type
/// argument is a `KernelParam`) and lifetimes mean nothing to a kernel: both are reported.
fn parse_generics(
    cx: &mut Errors,
    generics: &syn::Generics,
) -> (Vec<KernelGeneric>, Option<DeviceFnParam>) {
    let mut device_fn: Option<DeviceFnParam> = None;
    if let Some(clause) = &generics.where_clause {
        cx.error(
            clause,
            "kernel declarations take no where clause: every type argument is a KernelParam",
        );
    }
    let mut out = Vec::new();
    for param in &generics.params {
        match param {
            GenericParam::Type(t) => {
                if !t.bounds.is_empty() || t.default.is_some() {
                    cx.error(
                        t,
                        "write the type parameter alone (`T`): every type argument is a KernelParam",
                    );
                }
                out.push(KernelGeneric::Type(t.ident.clone()));
            }
            // `const op: fn(f32) -> f32`: a device function, chosen by name at load.
            GenericParam::Const(c) if matches!(c.ty, Type::BareFn(_)) => {
                let Type::BareFn(f) = &c.ty else { continue };
                if device_fn.is_some() {
                    cx.error(
                        &c.ident,
                        "one template parameter that is a device function can be chosen at \
                         load: declare the kernel once per other function, with `rename`",
                    );
                    continue;
                }
                let position = out.len();
                device_fn = Some(DeviceFnParam {
                    ident: c.ident.clone(),
                    position,
                    params: f.inputs.iter().map(|a| a.ty.clone()).collect(),
                    ty: f.clone(),
                });
            }
            GenericParam::Const(c) => {
                // Any built-in integer type, by the name its path ends in: the primitives
                // (`u32` is `unsigned int`, `usize` is `size_t`) and `ffi`'s C types
                // (`c_long`, `c_char`, `size_t`), each with its C++ code.
                let code = match &c.ty {
                    Type::Path(p) if p.qself.is_none() => p.path.segments.last().and_then(|s| {
                        types::by_name(&s.ident.to_string())
                            .filter(|t| t.class == types::Class::Integer)
                            .and_then(|t| t.itanium)
                    }),
                    _ => None,
                };
                out.push(KernelGeneric::Const {
                    ident: c.ident.clone(),
                    ty: Box::new(c.ty.clone()),
                    code,
                    enum_name: parse_const_attrs(cx, &c.attrs),
                });
            }
            GenericParam::Lifetime(l) => cx.error(l, "kernel declarations take no lifetimes"),
        }
    }
    (out, device_fn)
}

/// `#[kernel(enum = "Mode")]` on a const parameter: a template value parameter of that C++
/// enum; other attributes are refused.
fn parse_const_attrs(cx: &mut Errors, attrs: &[Attribute]) -> Option<String> {
    let mut name = None;
    for attr in attrs {
        if !attr.path().is_ident("kernel") {
            cx.error(
                attr,
                "unsupported attribute on a const parameter: expected #[kernel(enum = \"Name\")]",
            );
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("enum") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                let value = lit.value();
                if !valid_cpp_name(&value) {
                    return Err(syn::Error::new(
                        lit.span(),
                        "expected the C++ enum's name, qualified by its namespaces where it has any (`Mode`, `ns::Mode`)",
                    ));
                }
                name = Some(value);
                Ok(())
            } else {
                Err(meta.error("unknown #[kernel] argument on a const parameter: expected `enum = \"Name\"`"))
            }
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    name
}

/// `#[kernel(read_only)]` and `#[kernel(grid_constant)]` on a parameter; other attributes are
/// refused.
fn parse_param_attrs(
    cx: &mut Errors,
    attrs: &[Attribute],
) -> (Option<syn::Path>, Option<syn::Path>) {
    let (mut read_only, mut grid_constant) = (None, None);
    for attr in attrs {
        if !attr.path().is_ident("kernel") {
            cx.error(
                attr,
                "unsupported attribute on a kernel parameter: expected #[kernel(read_only)] or #[kernel(grid_constant)]",
            );
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("read_only") {
                read_only = Some(meta.path.clone());
                Ok(())
            } else if meta.path.is_ident("grid_constant") {
                grid_constant = Some(meta.path.clone());
                Ok(())
            } else {
                Err(meta.error(
                    "unknown #[kernel] argument on a parameter: expected `read_only` or `grid_constant`",
                ))
            }
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    (read_only, grid_constant)
}

/// The kernel's C++ name: the fn's, in `namespace = "..."` where given (`ns::scale`).
fn cpp_name(ident: &Ident, args: &FnArgs) -> String {
    crate::ast::cpp_name(ident, args.namespace.as_ref(), args.cpp.is_some())
}

/// The entry symbol: `name = "..."`, the C++ mangling for `cpp` (with the index of the first
/// parameter it cannot spell), or the fn's name.
fn resolve_symbol(ident: &Ident, args: &FnArgs, params: &[Param]) -> (String, Option<usize>) {
    let name = cpp_name(ident, args);
    match (&args.name, &args.cpp) {
        (Some(symbol), _) => (symbol.value(), None),
        (None, Some(_)) => match mangle::mangle(&name, params.iter().map(|p| &p.ty)) {
            Ok(symbol) => (symbol, None),
            Err(ty) => (name, params.iter().position(|p| std::ptr::eq(&p.ty, ty))),
        },
        (None, None) => (name, None),
    }
}

/// Rule: a kernel parameter struct is a non-generic `#[repr(C)]` struct, not packed, with at
/// least one field, and no references among its fields.
pub fn parse_param_struct<'a>(cx: &mut Errors, input: &'a DeriveInput) -> Option<ParamStruct<'a>> {
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(e) => {
            cx.error(
                e.enum_token,
                "enums cannot be kernel parameters: a C enum is an int, pass its value as i32 or u32",
            );
            return None;
        }
        Data::Union(u) => {
            cx.error(
                u.union_token,
                "unions cannot derive KernelParam: which bytes are meaningful is not known; \
                 declare a #[repr(C)] struct of the largest member, or pass device memory",
            );
            return None;
        }
    };
    // Lifetimes only, for references among the fields: the references are the mistake, and
    // said at each (below).
    let holds_references = data
        .fields
        .iter()
        .any(|f| matches!(array_dims(&f.ty).1, Type::Reference(_)));
    let lifetimes_only = input
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
    let for_references = lifetimes_only && holds_references;
    let generic = !input.generics.params.is_empty();
    if generic && !for_references {
        cx.error(
            &input.generics,
            "generic structs cannot derive KernelParam: derive it on a concrete struct",
        );
    }
    let repr_align = check_repr(cx, input);
    if data.fields.is_empty() {
        cx.error(
            &input.ident,
            "a kernel parameter struct needs at least one field: C has no empty structs",
        );
    }
    let mut fields = Vec::new();
    for (i, field) in data.fields.iter().enumerate() {
        let (member, c_name) = match (&field.ident, &data.fields) {
            (Some(ident), _) => (Member::Named(ident.clone()), ident.to_string()),
            (None, Fields::Unnamed(_)) => (Member::Unnamed(i.into()), format!("f{i}")),
            (None, _) => continue,
        };
        let (dims, elem) = array_dims(&field.ty);
        if let Type::Reference(r) = elem {
            // The pointer to write: to the slice's element, const as the reference is shared.
            let pointee = match &*r.elem {
                Type::Slice(slice) => crate::check::type_text(&slice.elem),
                other => crate::check::type_text(other),
            };
            let ptr = if r.mutability.is_some() {
                "*mut"
            } else {
                "*const"
            };
            cx.error(
                r,
                format!(
                    "references cannot be kernel parameters: a struct reaches device memory \
                     through a pointer, write `{ptr} {pointee}`"
                ),
            );
        }
        fields.push(Field {
            member,
            c_name,
            ty: &field.ty,
            dims,
        });
    }
    Some(ParamStruct {
        input,
        repr_align,
        fields,
        cuda_name: kernel_param_cuda_name(input).unwrap_or_else(|| input.ident.to_string()),
    })
}

/// `cuda_name = "..."` of `#[kernel_param(...)]` where it is valid ([`parse_kernel_param_args`]
/// reports what is not).
fn kernel_param_cuda_name(input: &DeriveInput) -> Option<String> {
    let mut name = None;
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("kernel_param"))
    {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("cuda_name") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                name = valid_cpp_name(&lit.value()).then(|| lit.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    name
}

pub use crate::cpp::valid_cpp_name;

/// Rule: `#[repr(C)]` is present and `packed` is not; returns the `align(N)`, if any.
fn check_repr(cx: &mut Errors, input: &DeriveInput) -> usize {
    let mut has_c = false;
    let mut align = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") {
                has_c = true;
            } else if meta.path.is_ident("packed") {
                if meta.input.peek(syn::token::Paren) {
                    let _ = meta.input.parse::<TokenStream>();
                }
                cx.error(
                    &meta.path,
                    "packed structs cannot be kernel parameters: the device aligns every field; remove repr(packed)",
                );
            } else if meta.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in meta.input);
                let lit = content.parse::<syn::LitInt>()?;
                // rustc itself refuses an alignment that is not a power of two.
                align = lit.base10_parse::<usize>().ok().filter(|n| n.is_power_of_two());
            } else if meta.path.is_ident("transparent") {
                cx.error(&meta.path, "write #[repr(C)]: kernel parameter structs follow C layout");
            } else {
                // repr(u8) and the like only apply to enums, which are reported already.
                let _ = meta.input.parse::<TokenStream>();
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    if !has_c {
        cx.error(
            &input.ident,
            "kernel parameter structs need #[repr(C)]: without it Rust may reorder the fields",
        );
    }
    align.unwrap_or(1)
}

/// `[[T; 3]; 2]` -> `([2, 3], T)`.
fn array_dims(ty: &Type) -> (Vec<&Expr>, &Type) {
    let mut dims = Vec::new();
    let mut ty = ty;
    while let Type::Array(array) = ty {
        dims.push(&array.len);
        ty = &array.elem;
    }
    (dims, ty)
}

/// `#[kernel_param(crate = path, cuda_name = "geo::Pair")]`: where the runtime is, for crates
/// that re-export it, and the struct's C++ name where it is not the Rust one (a struct in a C++
/// namespace).
pub fn parse_kernel_param_args(cx: &mut Errors, input: &DeriveInput) -> syn::Path {
    let mut krate = None;
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("kernel_param"))
    {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                attr::parse_crate_arg(&meta, &mut krate)
            } else if meta.path.is_ident("cuda_name") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                match valid_cpp_name(&lit.value()) {
                    true => Ok(()),
                    false => Err(syn::Error::new(
                        lit.span(),
                        "expected the struct's C++ name, qualified by its namespaces where it has any (`Pair`, `geo::Pair`)",
                    )),
                }
            } else {
                Err(meta.error(
                    "unknown #[kernel_param] argument: expected `crate = path` or `cuda_name = \"Name\"`",
                ))
            }
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    krate.unwrap_or_else(attr::runtime_path)
}
