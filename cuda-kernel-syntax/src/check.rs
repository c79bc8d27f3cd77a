//! The rules a kernel declaration must follow; each function opens with the rule it enforces.

use std::collections::HashSet;

use quote::ToTokens;
use syn::{GenericArgument, LitStr, PathArguments, ReturnType, Type};

use crate::ast::{Block, Kernel, KernelGeneric, Param, ParamKind};
use crate::demangle;
use crate::report::Errors;
use crate::text::Shown;
pub use crate::text::type_text;

/// The launcher's own arguments, before the kernel's: no parameter may take their names.
pub const LAUNCHER_ARGS: &[&str] = &["stream", "config"];

/// Checks the whole block, reporting every problem.
pub fn check_block(cx: &mut Errors, block: &Block) {
    check_abi(cx, &block.abi);
    check_unique_names(cx, block);
    for kernel in &block.kernels {
        check_kernel(cx, kernel);
    }
    for global in &block.globals {
        if let Some(message) = &global.type_error {
            cx.error(&global.ty, message);
        }
    }
}

/// Rule: the type `module = Name` generates is not also the name of a launcher or global type
/// of the block (`module = Unary` beside `fn unary`).
pub fn check_module_name(cx: &mut Errors, block: &Block, module: &proc_macro2::Ident) {
    let kernel = block
        .kernels
        .iter()
        .find(|k| k.type_ident() == *module)
        .map(|k| format!("the launcher of `{}`", k.ident));
    let global = block
        .globals
        .iter()
        .find(|g| g.type_ident() == *module)
        .map(|g| format!("the type of the global `{}`", g.ident));
    if let Some(what) = kernel.or(global) {
        cx.error(
            module,
            format!(
                "`module = {module}` names the block's type as {what} is named: give the module \
                 another name (`{module}Kernels`), or the launcher one with `rename = ...`"
            ),
        );
    }
}

/// Rule: kernels use the C ABI, so the block is `extern "C"` (or plain `extern`, which is "C").
fn check_abi(cx: &mut Errors, abi: &syn::Abi) {
    if let Some(name) = &abi.name {
        if name.value() != "C" {
            cx.error(
                abi,
                format!(
                    "unsupported ABI \"{}\": CUDA kernels use the C ABI, write extern \"C\"",
                    name.value()
                ),
            );
        }
    }
}

/// Rule: two kernels of a block generate different types. (Two declarations may bind the same
/// entry symbol: each is checked against the kernel on its own.)
fn check_unique_names(cx: &mut Errors, block: &Block) {
    let mut types = HashSet::new();
    for global in &block.globals {
        types.insert(global.type_ident().to_string());
    }
    for kernel in &block.kernels {
        let ty = kernel.type_ident().to_string();
        if !types.insert(ty.clone()) {
            cx.error(
                &kernel.ident,
                format!("a second kernel would generate the type `{ty}`: rename one of them"),
            );
        }
    }
    // A generic launcher checked against the PTX brings the trait of its instances there,
    // named after it (`TileInPtx`, what rustc names when an instance is missing).
    for kernel in &block.kernels {
        let ty = kernel.type_ident().to_string();
        let Some(generic) = ty
            .strip_suffix(IN_PTX)
            .and_then(|base| block.kernels.iter().find(|k| k.type_ident() == base))
            .filter(|k| k.is_generic())
        else {
            continue;
        };
        cx.error(
            &kernel.ident,
            format!(
                "the launcher `{ty}` would have the name of the trait of `{}`'s instances in the \
                 PTX: rename it (`#[kernel(rename = ...)]`)",
                generic.ident
            ),
        );
    }
}

/// What a generic launcher's trait of instances in the PTX adds to its name (`TileInPtx`).
pub const IN_PTX: &str = "InPtx";

/// Rule: `namespace = "..."` qualifies a C++ kernel's name, whose symbol the macro derives: it
/// goes with `cpp`, not with an explicit `name = "..."` (which names the whole symbol).
fn check_namespace(cx: &mut Errors, kernel: &Kernel) {
    let Some(ns) = &kernel.namespace else {
        return;
    };
    if kernel.cpp.is_none() {
        cx.error(
            ns,
            "`namespace` applies to C++ kernels: add `cpp` (`#[kernel(cpp, namespace = \"...\")]`); an extern \"C\" kernel has no namespace in its symbol",
        );
    } else if kernel.name_arg.is_some() {
        cx.error(
            ns,
            "`name = \"...\"` gives the whole symbol, namespace included: drop `namespace`, or `name` to let #[kernel(cpp)] derive the symbol",
        );
    }
}

fn check_kernel(cx: &mut Errors, kernel: &Kernel) {
    check_signature_shape(cx, kernel);
    check_symbol(cx, kernel);
    check_cpp_mangling(cx, kernel);
    check_namespace(cx, kernel);
    check_mangled_name(cx, kernel);
    let mut names = HashSet::new();
    for param in &kernel.params {
        check_param_name(cx, param, &mut names);
        check_read_only(cx, param);
        check_grid_constant(cx, param);
        if let Some(message) = &param.type_error {
            cx.error(&param.ty, message);
        }
    }
}

/// Rule: a kernel is a C function returning void: no variadics, no return type, no
/// const/async/extern qualifiers; its generics are those [`check_generics`] allows (a C++
/// template, or a family whose symbol pattern places them).
fn check_signature_shape(cx: &mut Errors, kernel: &Kernel) {
    let sig = &kernel.sig;
    check_generics(cx, kernel);
    if let Some(variadic) = &sig.variadic {
        cx.error(
            variadic,
            "CUDA kernels cannot be variadic: declare every parameter",
        );
    }
    if let ReturnType::Type(arrow, ty) = &sig.output {
        cx.error(
            quote::quote!(#arrow #ty),
            "CUDA kernels return void: remove the return type and write results through a *mut pointer",
        );
    }
    if let Some(constness) = &sig.constness {
        cx.error(constness, "kernel declarations cannot be `const`");
    }
    if let Some(asyncness) = &sig.asyncness {
        cx.error(
            asyncness,
            "kernel declarations cannot be `async`: launches are already asynchronous",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error(
            abi,
            "the ABI belongs on the block: write `fn name(...)` inside `extern \"C\" { ... }`",
        );
    }
}

/// Rule: a generic declaration is a C++ function template (`cpp`) or a family of `extern "C"`
/// kernels whose `name` pattern places every type and const parameter (`"affine_{T}"`); const
/// parameters are integers, as C++ non-type template parameters of kernels are.
fn check_generics(cx: &mut Errors, kernel: &Kernel) {
    check_run_time_name(cx, kernel);
    check_device_fn(cx, kernel);
    if !kernel.is_generic() {
        return;
    }
    let generics = &kernel.sig.generics;
    match (&kernel.cpp, &kernel.name_arg) {
        (Some(_), _) => {}
        (None, Some(pattern)) if pattern.value().contains('{') => {
            for g in &kernel.generics {
                let placeholder = format!("{{{}}}", g.ident());
                if !pattern.value().contains(&placeholder) {
                    cx.error(
                        g.ident(),
                        format!(
                            "the family's symbol pattern does not place `{}`: write {placeholder} \
                             where its members' names differ",
                            g.ident()
                        ),
                    );
                }
            }
        }
        _ => cx.error(
            generics,
            "a generic kernel declaration binds C++ template instances with #[kernel(cpp)] \
             (`reduce0<float>` is `Reduce0::<f32>`), or a family of extern \"C\" kernels with \
             #[kernel(name = \"affine_{T}\")] (`affine_f32` is `Affine::<f32>`)",
        ),
    }
    for g in &kernel.generics {
        if let KernelGeneric::Const { ty, code: None, .. } = g {
            cx.error(
                ty,
                "a kernel's const parameter is an integer (i32 for `template <int N>`, u32 for \
                 `unsigned int`, usize or ffi::size_t for `size_t`, ffi::c_long for `long`, \
                 ffi::c_char for `char`, bool, ...)",
            );
        }
    }
}

/// Rule: at most one placeholder of a symbol pattern is left to run time (the one no generic
/// parameter fills: `op` of `"u{op}_{T}"`), and it is not next to another placeholder that
/// could swallow it.
fn check_run_time_name(cx: &mut Errors, kernel: &Kernel) {
    let Some(pattern) = &kernel.name_arg else {
        return;
    };
    if kernel.cpp.is_some() {
        return; // `cpp` with `name` is reported on its own
    }
    let text = pattern.value();
    let run_time: Vec<&str> = crate::pattern::holes(&text)
        .into_iter()
        .filter(|hole| kernel.generics.iter().all(|g| g.ident() != hole))
        .collect();
    if run_time.len() > 1 {
        cx.error(
            pattern,
            format!(
                "one part of a symbol can be chosen at run time, but {} are not generic \
                 parameters of the fn: declare the others as type or const parameters \
                 (`fn {}<T>(...)`)",
                run_time
                    .iter()
                    .map(|h| format!("`{{{h}}}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                kernel.ident
            ),
        );
    }
}

/// Rule: a template parameter that is a device function (`const op: fn(f32) -> f32`) belongs
/// to a C++ template (`cpp`, whose symbol names the function) whose other parts are fixed or
/// generic, and its parameter types are C types.
fn check_device_fn(cx: &mut Errors, kernel: &Kernel) {
    let Some(f) = &kernel.device_fn else {
        return;
    };
    if kernel.cpp.is_none() {
        cx.error(
            &f.ty,
            "a device function parameter belongs to a C++ template, whose symbol names the \
             function: add `#[kernel(cpp)]`",
        );
    }
    for ty in &f.params {
        if crate::cpp::from_syn(ty, &[]).is_none() {
            cx.error(
                ty,
                format!(
                    "`{}` is no C type: a device function's parameters are declared as a \
                     kernel's are (`f32`, `*const f32`, `u32`, ...)",
                    type_text(ty)
                ),
            );
        }
    }
}

/// Rule: an explicit entry symbol is a non-empty identifier-like string without NUL.
fn check_symbol(cx: &mut Errors, kernel: &Kernel) {
    if let Some(name) = &kernel.name_arg {
        let value = name.value();
        if kernel.symbol_at_load() {
            return; // a family's pattern, checked with the generics
        }
        let cpp_name = demangle::is_cpp_name(&value);
        if value.is_empty()
            || value.contains('\0')
            || (!cpp_name && value.chars().any(char::is_whitespace))
        {
            cx.error(
                name,
                "expected an entry symbol (\"vector_add\", \"_Z5scaleIfEvPT_S0_j\") or a C++ \
                 name (\"scale<float>\", \"ns::fill\")",
            );
        }
    }
}

/// Rule: `cpp` derives the symbol, so it goes without `name`, and every parameter type has a
/// C++ spelling the mangler knows.
fn check_cpp_mangling(cx: &mut Errors, kernel: &Kernel) {
    let Some(cpp) = &kernel.cpp else {
        return;
    };
    if kernel.name_arg.is_some() {
        cx.error(
            cpp,
            "`cpp` derives the symbol that `name` gives: keep one of them",
        );
        return;
    }
    if kernel.is_generic() {
        let generics = kernel.type_params();
        let generics: Vec<&str> = generics.iter().map(String::as_str).collect();
        for param in kernel.params.iter().filter(|p| p.type_error.is_none()) {
            if crate::mangle::cpp_type(&param.ty, &generics).is_none() {
                cx.error(
                    &param.ty,
                    format!(
                        "#[kernel(cpp)] cannot derive the C++ mangling of `{}`",
                        type_text(&param.ty)
                    ),
                );
            }
        }
        return;
    }
    if let Some(param) = kernel.unmangled_param.map(|i| &kernel.params[i]) {
        if param.type_error.is_none() {
            cx.error(
                &param.ty,
                format!(
                    "#[kernel(cpp)] cannot derive the C++ mangling of `{}`: bind the symbol with \
                     #[kernel(name = \"...\")] (the PTX's .entry line has it)",
                    type_text(&param.ty)
                ),
            );
        }
    }
}

/// Rule: `grid_constant` marks a value (`const __grid_constant__` in the kernel's C); a pointer
/// is no grid constant, and a TMA descriptor is one already.
fn check_grid_constant(cx: &mut Errors, param: &Param) {
    let Some(path) = &param.grid_constant else {
        return;
    };
    match param.kind() {
        ParamKind::ConstPtr(_) | ParamKind::MutPtr(_) => cx.error(
            path,
            "`grid_constant` is for a value the kernel declares `const __grid_constant__`: this parameter is a pointer",
        ),
        ParamKind::TensorMap(..) => cx.error(
            path,
            "a TMA descriptor is `const __grid_constant__` already: remove `grid_constant`",
        ),
        ParamKind::Value => {}
    }
}

/// Rule: `read_only` marks a `*mut T` the kernel only reads; a `*const T` is read-only already
/// and a value is not memory.
fn check_read_only(cx: &mut Errors, param: &Param) {
    let Some(path) = &param.read_only else {
        return;
    };
    match &param.ty {
        Type::Ptr(ptr) if ptr.mutability.is_some() => {}
        Type::Ptr(_) => cx.error(
            path,
            "`read_only` is for a `*mut T` the kernel only reads: a `*const T` is read-only already",
        ),
        _ => cx.error(
            path,
            "`read_only` is for a `*mut T` the kernel only reads: this parameter is not a pointer",
        ),
    }
}

/// Rule: a C++ symbol bound with `name = "_Z..."` takes the declared parameter types: the
/// symbol spells them, so `reduce0<int>` bound to float pointers is refused here, before any PTX
/// or driver could only compare sizes.
fn check_mangled_name(cx: &mut Errors, kernel: &Kernel) {
    let Some(name) = &kernel.name_arg else {
        return;
    };
    if kernel.is_generic() {
        return;
    }
    check_symbol_params(cx, kernel, &name.value(), name);
}

/// Rule: the C++ symbol `symbol` that a declaration binds (by `name = "_Z..."`, or found in the
/// PTX by its C++ name) takes the declared parameter types. A `volatile` pointee is a pointer
/// like any other to a launch: `*mut i32` binds `int volatile*`.
pub(crate) fn check_symbol_params(
    cx: &mut Errors,
    kernel: &Kernel,
    symbol: &str,
    span: &dyn quote::ToTokens,
) {
    let Some(in_symbol) = demangle::param_types(symbol) else {
        return; // not a C++ symbol
    };
    let shown = demangle::written(symbol);
    let template_args = demangle::template_args(symbol).unwrap_or_default();
    let written = kernel.name_arg.as_ref().map(LitStr::value);
    // The name as the user wrote it, with the C++ it stands for; a symbol the user did not
    // write, as that C++ alone.
    let named = match written.as_deref() {
        Some(w) if w != symbol => format!("`{w}` is {shown}"),
        Some(_) => format!("the kernel `name` binds, {shown}"),
        None => format!("`{shown}`"),
    };
    if in_symbol.len() != kernel.params.len() {
        cx.error(
            span,
            format!(
                "{named}, which takes {} parameter{}, but {} are declared",
                in_symbol.len(),
                if in_symbol.len() == 1 { "" } else { "s" },
                kernel.params.len()
            ),
        );
        return;
    }
    for (i, (param, expected)) in kernel.params.iter().zip(&in_symbol).enumerate() {
        let Some(declared) = crate::mangle::cpp_type(&param.ty, &[]) else {
            continue; // reported by the type checks
        };
        // A member type of a template's type argument (`typename PC::Eq*`, which the symbol
        // spells `psz::Config<float>::Eq*` rather than resolving the typedef) is whatever the
        // class made it, a pointer perhaps: a declared type of at least its pointer levels
        // takes its place (its size is checked against the PTX as any parameter's).
        if member_of_argument(expected, &template_args)
            .is_some_and(|levels| declared.pointee().0 >= levels)
        {
            continue;
        }
        // A pointer to a device function (`bool (*)(unsigned int*)`) is the function's address
        // on the device, which a declaration takes as a 64-bit integer (read from a
        // `__device__` variable holding it, a `static` of the block); a pointer to such
        // pointers (`float (**)(float)`) a pointer to them.
        if demangle::function_pointer_levels(expected).is_some_and(|levels| {
            let (depth, address) = declared.pointee();
            depth + 1 == levels && FUNCTION_ADDRESS.contains(&address.demangled().as_str())
        }) {
            continue;
        }
        // An anonymous namespace is no part of a class's name a declaration spells.
        let unqualified = expected
            .replace(" volatile", "")
            .replace(&format!("{}::", demangle::ANONYMOUS_NAMESPACE), "");
        // A struct (or enum) of the user's matches a class of the symbol whatever its Rust
        // name (`Activation` for `ACTIVATION`, `Self_` for `Self`), and a class template's
        // instance (`Element<float>*`, which the model of C++ types does not spell) any struct
        // in its place: a class by name is a struct's `cuda_name` business, and its size and
        // alignment are checked against the PTX as any parameter's.
        let found = crate::cpp::CppType::from_cpp(&unqualified);
        if found.is_none() && declared.names_a_class() && unqualified.contains('<') {
            continue;
        }
        let classes_alike = found
            .as_ref()
            .is_some_and(|found| declared.same_but_class_names(found));
        let declared = declared.demangled();
        if declared != unqualified && !classes_alike {
            let hint = match &found {
                Some(crate::cpp::CppType::Builtin(t)) => format!(": declare it as {}", t.rust),
                Some(crate::cpp::CppType::Pointer { to_const, to }) => match to.as_builtin() {
                    Some(t) => format!(
                        ": declare it as *{} {}",
                        if *to_const { "const" } else { "mut" },
                        t.rust
                    ),
                    None => String::new(),
                },
                _ => String::new(),
            };
            cx.error(
                &param.ty,
                format!(
                    "{named}, whose parameter {} is `{expected}`, but `{}: {}` is `{declared}`{hint}",
                    i + 1,
                    param.ident,
                    type_text(&param.ty),
                ),
            );
        }
    }
}

/// The C++ spellings of the types a declaration gives a device function's address: `u64`
/// (`uint64_t`, `unsigned long` on the 64-bit platforms CUDA runs on) and `c_ulonglong`.
const FUNCTION_ADDRESS: &[&str] = &["unsigned long", "unsigned long long"];

/// Whether `ty`, a parameter type as the demangler writes it, is a member type of one of the
/// template arguments `args` (`psz::Config<float>::Eq*`, `psz::Config<float>` an argument): a
/// name that depends on a template parameter, which a symbol spells but does not resolve; with
/// its pointer levels (the least the type has: the member may be a pointer itself).
fn member_of_argument(ty: &str, args: &[String]) -> Option<usize> {
    let mut base = ty.trim_end();
    let mut levels = 0;
    loop {
        if let Some(rest) = base.strip_suffix('*') {
            levels += 1;
            base = rest.trim_end();
        } else if let Some(rest) = base
            .strip_suffix(" const")
            .or_else(|| base.strip_suffix(" volatile"))
        {
            base = rest.trim_end();
        } else {
            break;
        }
    }
    let member = args.iter().find_map(|arg| {
        base.strip_prefix(arg.as_str())
            .and_then(|rest| rest.strip_prefix("::"))
    })?;
    let names = member.split("::").all(|name| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    names.then_some(levels)
}

/// Rule: a kernel named by its C++ name (`name = "k<op, float>"`) is looked up in the PTX, so
/// its block names one (`ptx = "..."`).
pub fn check_cpp_names_need_ptx(cx: &mut Errors, block: &Block) {
    for kernel in &block.kernels {
        let Some(name) = &kernel.name_arg else {
            continue;
        };
        if demangle::is_cpp_name(&name.value()) && !kernel.symbol_at_load() {
            cx.error(
                name,
                format!(
                    "`{}` is a C++ name, which the macro looks up among the PTX's entries: add \
                     `ptx = \"...\"` to the block's #[kernel(...)], or give the entry's symbol",
                    name.value()
                ),
            );
        }
    }
}

/// Rule: parameter names are unique, not the launcher's own (`stream`, `config`), and not
/// `__`-prefixed (reserved for generated locals).
fn check_param_name(cx: &mut Errors, param: &Param, seen: &mut HashSet<String>) {
    let name = param.ident.to_string();
    if LAUNCHER_ARGS.contains(&name.as_str()) {
        cx.error(
            &param.ident,
            format!(
                "parameter `{name}` would clash with the launcher's own `{name}` argument: rename it \
                 (names do not affect the kernel's ABI)"
            ),
        );
    } else if name.starts_with("__") {
        cx.error(
            &param.ident,
            "names starting with `__` are reserved for generated code: rename the parameter",
        );
    } else if !seen.insert(name.clone()) {
        cx.error(
            &param.ident,
            format!("parameter `{name}` is declared twice"),
        );
    }
}

/// Rule: a parameter's type is a C type passed by value: a scalar, a vector type, or a raw
/// pointer to device memory. What is not, and why, as a message saying what to write instead;
/// `None` for types left to the `KernelParam` bound.
pub fn param_type_error(ty: &Type) -> Option<String> {
    // Spelled only where a message needs it.
    let text = Shown(ty);
    match ty {
        Type::Ptr(ptr) => match &*ptr.elem {
            Type::Slice(slice) => Some(format!(
                "unsupported parameter type `{text}`: a device pointer points at elements, write {} {}",
                if ptr.mutability.is_some() {
                    "*mut"
                } else {
                    "*const"
                },
                type_text(&slice.elem)
            )),
            elem => param_type_error(elem).map(|inner| {
                // The pointee's own problem, without repeating "unsupported parameter type".
                let reason = match inner.split_once("`: ") {
                    Some((head, reason)) if head.starts_with("unsupported parameter type") => {
                        reason
                    }
                    _ => &inner,
                };
                format!("unsupported pointee in `{text}`: {reason}")
            }),
        },
        // `&TensorMap<f32, 2>`, `&mut TensorMapMut<f32, 2>`: what the launcher takes.
        Type::Reference(r) if descriptor_declared(&r.elem).is_some() => {
            descriptor_declared(&r.elem).map(|fix| descriptor_message(&text, &fix))
        }
        Type::Reference(r) => Some(match &*r.elem {
            // The pointer as mutable as the reference.
            Type::Slice(slice) => {
                let elem = type_text(&slice.elem);
                let ptr = if r.mutability.is_some() {
                    "*mut"
                } else {
                    "*const"
                };
                format!(
                    "unsupported parameter type `{text}`: device memory is a pointer to its elements, write {ptr} {elem}"
                )
            }
            Type::Path(p) if p.path.is_ident("str") => format!(
                "unsupported parameter type `{text}`: host strings cannot reach a kernel, pass device bytes as *const u8"
            ),
            // `&mut Vec<f32>`: the element type of the host container is what the pointer
            // points at.
            Type::Path(p) if container_element(&p.path).is_some() => {
                let elem = container_element(&p.path).unwrap_or_default();
                let ptr = if r.mutability.is_some() {
                    "*mut"
                } else {
                    "*const"
                };
                format!(
                    "unsupported parameter type `{text}`: host memory cannot reach a kernel, declare {ptr} {elem} and pass a CudaSlice"
                )
            }
            elem => {
                let elem = type_text(elem);
                let ptr = if r.mutability.is_some() {
                    "*mut"
                } else {
                    "*const"
                };
                format!(
                    "unsupported parameter type `{text}`: kernels take values or device pointers, write {elem} or {ptr} {elem}"
                )
            }
        }),
        Type::Slice(slice) => {
            let elem = type_text(&slice.elem);
            Some(format!(
                "unsupported parameter type `{text}`: pass device memory as *const {elem} or *mut {elem}"
            ))
        }
        Type::Array(array) => {
            let elem = type_text(&array.elem);
            Some(format!(
                "unsupported parameter type `{text}`: C does not pass arrays by value, pass device memory as *const {elem} or a vector type such as Float4"
            ))
        }
        Type::Tuple(tuple) if tuple.elems.is_empty() => {
            Some("`()` is not a kernel parameter: remove the parameter".to_string())
        }
        Type::Tuple(_) => Some(format!(
            "unsupported parameter type `{text}`: tuples have no C layout, pass each element as its own parameter"
        )),
        Type::Paren(p) => param_type_error(&p.elem),
        Type::Group(g) => param_type_error(&g.elem),
        Type::Path(p) if p.qself.is_none() => path_type_error(&p.path, &text),
        Type::Path(_) => None,
        _ => Some(format!(
            "unsupported parameter type `{text}`: kernels take scalars, vector types and *const T / *mut T"
        )),
    }
}

/// `f32` of `Vec<f32>`, `Box<[f32]>`, `CudaSlice<f32>`: the element a host or device container
/// holds.
fn container_element(path: &syn::Path) -> Option<String> {
    let last = path.segments.last()?;
    if !matches!(
        last.ident.to_string().as_str(),
        "Vec" | "Box" | "Rc" | "Arc" | "CudaSlice" | "CudaView" | "CudaViewMut"
    ) {
        return None;
    }
    match &last.arguments {
        PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            GenericArgument::Type(Type::Slice(s)) => Some(type_text(&s.elem)),
            GenericArgument::Type(t) => Some(type_text(t)),
            _ => None,
        }),
        _ => None,
    }
}

fn path_type_error(path: &syn::Path, text: &dyn std::fmt::Display) -> Option<String> {
    let last = path.segments.last()?;
    // The last segment's name, turned into text once.
    let name = last.ident.to_string();
    if name == "TensorMap" || name == "TensorMapMut" {
        let named = syn::Type::Path(syn::TypePath {
            qself: None,
            path: path.clone(),
        });
        if let Some(fix) = descriptor_declared(&named) {
            // `TensorMap<f32, 2>` itself is fine; a lifetime or the mutable descriptor is not.
            if fix != Shown(&named).to_string() || name != "TensorMap" {
                return Some(descriptor_message(text, &fix));
            }
            return None;
        }
    }
    let elem = match &last.arguments {
        PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            GenericArgument::Type(t) => Some(type_text(t)),
            _ => None,
        }),
        _ => None,
    };
    let elem = elem.unwrap_or_else(|| "T".to_string());
    let message = match name.as_str() {
        "Vec" | "Box" | "Rc" | "Arc" => format!(
            "unsupported parameter type `{text}`: host memory cannot reach a kernel, declare *const {elem} or *mut {elem} and pass a CudaSlice"
        ),
        "String" => format!(
            "unsupported parameter type `{text}`: host strings cannot reach a kernel, pass device bytes as *const u8"
        ),
        "CudaSlice" | "CudaView" | "CudaViewMut" => format!(
            "declare the C type of the parameter, *const {elem} or *mut {elem}: the launcher then takes a &{name}<{elem}>"
        ),
        "Option" => format!(
            "unsupported parameter type `{text}`: C has no Option, pass the value and a flag as two parameters"
        ),
        "char" => {
            "`char` is a 4-byte Unicode scalar in Rust: write i8 or u8 for C's char".to_string()
        }
        "str" => "unsupported parameter type `str`: pass device bytes as *const u8".to_string(),
        _ if path.segments.len() == 1 && matches!(last.arguments, PathArguments::None) => {
            return c_name_error(&name);
        }
        _ => return None,
    };
    Some(message)
}

/// A type written with its CUDA C name (`float2`, `__half`, `uint32_t`): the Rust type to write,
/// the type table's. Not `size_t` and `ptrdiff_t`, which `cuda_kernel::ffi` defines under those
/// names, nor the C types `ffi` spells (`c_long`, `c_char`).
fn c_name_error(name: &str) -> Option<String> {
    if matches!(name, "size_t" | "ptrdiff_t") {
        return None;
    }
    let c = crate::types::c_typedef(name);
    let builtin =
        crate::types::all().find(|t| t.cuda == c && t.alias_of.is_none() && t.rust != name)?;
    Some(format!(
        "`{name}` is CUDA C's name for the type: declarations name it in Rust, `{}`",
        builtin.rust_path("cuda_kernel")
    ))
}

/// For a TMA descriptor's type written as the launcher takes it or with a lifetime
/// (`TensorMapMut<f32, 2>`, `&TensorMap<'a, f32, 2>`): the declaration to write,
/// `TensorMap<f32, 2>`, keeping the path the user wrote.
fn descriptor_declared(ty: &Type) -> Option<String> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if p.qself.is_some() || (last.ident != "TensorMap" && last.ident != "TensorMapMut") {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let kept: Vec<String> = args
        .args
        .iter()
        .filter(|a| !matches!(a, GenericArgument::Lifetime(_)))
        .map(|a| match a {
            GenericArgument::Type(t) => type_text(t),
            other => other.to_token_stream().to_string().replace(' ', ""),
        })
        .collect();
    if kept.len() != 2 {
        return None;
    }
    let mut prefix = String::new();
    if p.path.leading_colon.is_some() {
        prefix.push_str("::");
    }
    for segment in p.path.segments.iter().take(p.path.segments.len() - 1) {
        prefix.push_str(&format!("{}::", segment.ident));
    }
    Some(format!("{prefix}TensorMap<{}>", kept.join(", ")))
}

/// Why a descriptor's type as written is not a declaration, and the one to write.
fn descriptor_message(text: &dyn std::fmt::Display, fix: &str) -> String {
    let launcher = fix
        .rsplit_once("TensorMap<")
        .map(|(_, args)| args.trim_end_matches('>'))
        .unwrap_or_default();
    format!(
        "declare a TMA descriptor as `{fix}`, not `{text}`, whether the kernel reads or writes \
         through it (C++: `const __grid_constant__ CUtensorMap`): the launcher takes \
         `&mut TensorMapMut<{launcher}>` for it, or `&TensorMap<{launcher}>` where the kernel only reads"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn error(ty: Type) -> String {
        param_type_error(&ty).unwrap_or_default()
    }

    /// What the parser relies on to skip `param_type_error` for a type the table knows
    /// (`Param::builtin`): no such type, however written, has anything wrong with it.
    #[test]
    fn types_of_the_table_have_no_type_error() {
        for t in crate::types::all() {
            for path in [
                t.rust.to_string(),
                t.name().to_string(),
                t.rust_path("cuda_kernel"),
                format!("my::{}", t.name()),
            ] {
                let ty: Type = syn::parse_str(&path).unwrap();
                if crate::ast::builtin_of(&ty).is_some() {
                    assert_eq!(param_type_error(&ty), None, "{path}");
                }
            }
        }
    }

    #[test]
    fn accepted_types_are_left_to_the_trait_bound() {
        for ty in [
            parse_quote!(u32),
            parse_quote!(half::f16),
            parse_quote!(cuda_kernel::Float4),
            parse_quote!(*const f32),
            parse_quote!(*mut *const u8),
            parse_quote!(MyStruct),
        ] {
            assert_eq!(param_type_error(&ty), None, "{}", type_text(&ty));
        }
    }

    #[test]
    fn rejected_types_say_what_to_write() {
        assert_eq!(
            error(parse_quote!(&[f32])),
            "unsupported parameter type `&[f32]`: device memory is a pointer to its elements, write *const f32"
        );
        assert!(error(parse_quote!(&mut [f32])).ends_with("write *mut f32"));
        assert!(error(parse_quote!(&mut u32)).contains("write u32 or *mut u32"));
        assert!(error(parse_quote!(&u32)).contains("write u32 or *const u32"));
        assert!(
            error(parse_quote!(&mut Vec<f32>)).ends_with("declare *mut f32 and pass a CudaSlice")
        );
        assert!(
            error(parse_quote!(&Vec<f32>)).ends_with("declare *const f32 and pass a CudaSlice")
        );
        assert!(error(parse_quote!(Vec<f32>)).contains("declare *const f32 or *mut f32"));
        assert!(error(parse_quote!(String)).contains("*const u8"));
        assert!(error(parse_quote!((u32, u32))).contains("tuples have no C layout"));
        assert!(error(parse_quote!([f32; 4])).contains("Float4"));
        assert!(param_type_error(&parse_quote!(usize)).is_none());
        assert!(param_type_error(&parse_quote!(*const usize)).is_none());
        assert!(error(parse_quote!(*const [f32])).contains("write *const f32"));
        assert!(
            error(parse_quote!(*const Vec<u8>))
                .starts_with("unsupported pointee in `*const Vec<u8>`")
        );
        assert!(error(parse_quote!(CudaSlice<f32>)).contains("&CudaSlice<f32>"));
        assert!(error(parse_quote!(impl Copy)).contains("unsupported parameter type"));
    }

    #[test]
    fn a_descriptor_written_as_the_launcher_takes_it_says_the_declaration() {
        for ty in [
            parse_quote!(TensorMapMut<f32, 2>),
            parse_quote!(TensorMapMut<'a, f32, 2>),
            parse_quote!(&mut TensorMapMut<'_, f32, 2>),
            parse_quote!(&TensorMap<f32, 2>),
            parse_quote!(TensorMap<'a, f32, 2>),
        ] {
            let message = error(ty);
            assert!(
                message.starts_with("declare a TMA descriptor as `TensorMap<f32, 2>`"),
                "{message}"
            );
            assert!(message.contains("`&mut TensorMapMut<f32, 2>`"), "{message}");
        }
        assert!(
            error(parse_quote!(cuda_kernel::TensorMapMut<u8, 3>))
                .starts_with("declare a TMA descriptor as `cuda_kernel::TensorMap<u8, 3>`")
        );
        assert_eq!(param_type_error(&parse_quote!(TensorMap<f32, 2>)), None);
        assert_eq!(
            param_type_error(&parse_quote!(cuda_kernel::TensorMap<f32, 2>)),
            None
        );
    }
}
