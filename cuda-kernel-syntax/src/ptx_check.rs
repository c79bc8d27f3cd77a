//! Checking declarations against the PTX named by `#[kernel(ptx = "...")]`: every kernel must
//! be an entry of the file, with as many parameters, each of the same size and alignment.

use std::path::{Path, PathBuf};

use syn::ext::IdentExt;
use syn::{LitStr, Type};

use crate::ast::{Block, GlobalVar, Kernel, KernelGeneric, PtxLayout};
use crate::check::type_text;
use crate::demangle;
use crate::itanium::{self, CppType, TemplateArg};
use crate::ptx::{self, Entry, PtxParam};
use crate::report::Errors;
use crate::types::{self, BuiltinType, Class};

/// The PTX file of a block, read.
pub struct PtxFile {
    /// Absolute path, for `include_bytes!` (so editing the file rebuilds the crate).
    pub path: PathBuf,
    /// The path as the user wrote it, for messages.
    pub shown: String,
    /// Its entries.
    pub entries: Vec<Entry>,
    /// Its `.const` and `.global` variables.
    pub globals: Vec<ptx::Global>,
}

/// Reads `lit`, resolved against `manifest_dir` or, for `"$NAME/file.ptx"`, against the
/// folder in the environment variable `NAME` (`$OUT_DIR`, where a build script writes);
/// reports an unreadable or malformed file on the literal and says what to run.
pub fn read_ptx(cx: &mut Errors, lit: &LitStr, manifest_dir: Option<&Path>) -> Option<PtxFile> {
    let shown = lit.value();
    let path = match resolve(&shown, manifest_dir) {
        Ok(path) => path,
        Err(message) => {
            cx.error(lit, message);
            return None;
        }
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            let hint = if shown.starts_with("$OUT_DIR") {
                "the build script writes it: does it compile the .cu file of that name with \
                 cuda-kernel-build?"
            } else {
                "the path is relative to the crate's Cargo.toml; generate the file with nvcc -ptx \
                 or cuda-kernel-build"
            };
            cx.error(
                lit,
                format!("cannot read PTX file {}: {e} ({hint})", path.display()),
            );
            return None;
        }
    };
    match ptx::entries(&text).and_then(|e| Ok((e, ptx::globals(&text)?))) {
        Ok((entries, globals)) => Some(PtxFile {
            path,
            shown,
            entries,
            globals,
        }),
        Err(e) => {
            cx.error(lit, format!("cannot read the kernels of {shown}: {e}"));
            None
        }
    }
}

/// Where `ptx = "..."` points: `$NAME/rest` under the environment variable `NAME`'s folder,
/// anything else relative to the manifest directory.
pub fn resolve(shown: &str, manifest_dir: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(var) = shown.strip_prefix('$') {
        let (name, rest) = var.split_once('/').unwrap_or((var, ""));
        return match std::env::var_os(name) {
            Some(dir) => Ok(PathBuf::from(dir).join(rest)),
            None if name == "OUT_DIR" => Err(
                "`$OUT_DIR` is not set: the crate needs a build script (cuda-kernel-build \
                 compiles .cu files into OUT_DIR)"
                    .to_string(),
            ),
            None => Err(format!(
                "`${name}` is not set in the environment of this build"
            )),
        };
    }
    Ok(match manifest_dir {
        Some(dir) => dir.join(shown),
        None => PathBuf::from(shown),
    })
}

/// Checks every kernel of the block against the PTX, leaving on each parameter the layout the
/// compiler must confirm where the front end cannot (`Param::ptx_layout`).
pub fn check_against_ptx(cx: &mut Errors, block: &mut Block, file: &PtxFile) {
    for global in &mut block.globals {
        global.ptx_layout = check_global(cx, global, file);
    }
    for kernel in &mut block.kernels {
        if kernel.is_generic() {
            check_instances(cx, kernel, file);
            continue;
        }
        let Some(entry) = check_entry_exists(cx, kernel, file) else {
            continue;
        };
        if !check_param_count(cx, kernel, entry, &file.shown) {
            continue; // the per-parameter checks would only repeat the shift
        }
        let layouts: Vec<_> = (0..kernel.params.len().min(entry.params.len()))
            .map(|i| {
                // A type the parse refused is reported already.
                (kernel.params[i].type_error.is_none())
                    .then(|| check_param(cx, kernel, i, &entry.params[i]))
                    .flatten()
            })
            .collect();
        for (param, layout) in kernel.params.iter_mut().zip(layouts) {
            param.ptx_layout = layout;
        }
    }
}

/// Rule: the kernel's entry symbol is an `.entry` of the PTX. When only C++-mangled entries of
/// that name exist, say so and how to bind one.
fn check_entry_exists<'a>(
    cx: &mut Errors,
    kernel: &Kernel,
    file: &'a PtxFile,
) -> Option<&'a Entry> {
    let symbol = &kernel.symbol;
    if let Some(entry) = ptx::find(&file.entries, symbol) {
        return Some(entry);
    }
    let span: &dyn quote::ToTokens = match &kernel.name_arg {
        Some(lit) => lit,
        None => &kernel.ident,
    };
    let base = kernel.ident.unraw().to_string();
    let derived = kernel.cpp.is_some() && kernel.name_arg.is_none();
    let mangled = ptx::mangled_matches(&file.entries, if derived { &base } else { symbol });
    let shown = |e: &Entry| match demangle::demangle(&e.name) {
        Some(text) => format!("`{text}` (`{}`)", e.name),
        None => format!("`{}`", e.name),
    };
    let names: Vec<_> = mangled.iter().map(|e| shown(e)).collect();
    // Only an entry taking the declared types is ever suggested.
    let declared: Option<Vec<String>> = kernel
        .params
        .iter()
        .map(|p| crate::mangle::cpp_type(&p.ty, &[]).map(|t| demangle::spelled(&t)))
        .collect();
    let matching: Vec<&&Entry> = mangled
        .iter()
        .filter(|e| declared.is_some() && demangle::param_types(&e.name) == declared)
        .collect();
    let message = if derived && !mangled.is_empty() {
        format!(
            "{} has no entry `{symbol}`, the symbol #[kernel(cpp)] derives from this declaration, \
             but has {}: the parameter types differ from the C++ declaration's (i8 mangles as \
             signed char, i64 as long long: see cuda_kernel::ffi for char, long and size_t)",
            file.shown,
            names.join(", ")
        )
    } else if let Some(first) = matching.first() {
        let template = demangle::demangle(&first.name)
            .is_some_and(|t| t.split('(').next().is_some_and(|head| head.contains('<')));
        let how = if template {
            format!(
                "declare the template generic (`fn {base}<T>(...)` under #[kernel(cpp)]) and load \
                 the instance by its arguments, or bind it with #[kernel(name = \"{}\")]",
                first.name
            )
        } else {
            format!(
                "bind it with #[kernel(cpp)], which derives its symbol, or #[kernel(name = \"{}\")]",
                first.name
            )
        };
        format!(
            "{} has no entry `{symbol}`, but has the C++ kernel {} taking the declared parameter \
             types: {how}",
            file.shown,
            shown(first)
        )
    } else if !mangled.is_empty() {
        format!(
            "{} has no entry `{symbol}`; its C++ kernel{} of that name {} {}, and none takes the \
             declared parameter types ({}): declare the parameters of the one you mean",
            file.shown,
            if mangled.len() > 1 { "s" } else { "" },
            if mangled.len() > 1 { "are" } else { "is" },
            names.join(", "),
            declared.unwrap_or_default().join(", ")
        )
    } else if file.entries.is_empty() {
        format!(
            "{} has no entry `{symbol}`: it declares no kernels at all",
            file.shown
        )
    } else {
        let names: Vec<_> = file
            .entries
            .iter()
            .map(|e| demangle::shown(&e.name))
            .collect();
        format!(
            "{} has no entry `{symbol}`; its entries are: {}",
            file.shown,
            names.join(", ")
        )
    };
    cx.error(span, message);
    None
}

/// Rule: the declaration has as many parameters as the entry.
/// When the counts differ and a parameter before the end already sits in a slot of another
/// shape, that parameter is named (a parameter dropped from the middle shifts every later one).
/// Returns whether the per-parameter checks still make sense.
fn check_param_count(cx: &mut Errors, kernel: &Kernel, entry: &Entry, shown: &str) -> bool {
    let (declared, actual) = (kernel.params.len(), entry.params.len());
    if declared != actual {
        let shifted = kernel
            .params
            .iter()
            .zip(&entry.params)
            .enumerate()
            .find(|(_, (p, ptx))| {
                known_layout(&p.ty)
                    .is_some_and(|(size, align, _)| (size, align) != (ptx.size, ptx.align))
            });
        if let Some((i, (param, ptx))) = shifted {
            cx.error(
                &param.ident,
                format!(
                    "`{}` takes {actual} parameters in {shown} but {declared} are declared here, \
                     and `{}` is declared where the PTX has parameter {i} as {} ({}): a parameter \
                     is {} before `{}`",
                    entry.name,
                    param.ident,
                    ptx.describe(),
                    suggestion(ptx),
                    if declared < actual {
                        "missing"
                    } else {
                        "extra"
                    },
                    param.ident
                ),
            );
            return false;
        }
    }
    if declared > actual {
        for param in &kernel.params[actual..] {
            cx.error(
                &param.ident,
                format!(
                    "`{}` takes {actual} parameter{} in {shown}: `{}` has no counterpart there",
                    entry.name,
                    if actual == 1 { "" } else { "s" },
                    param.ident
                ),
            );
        }
    } else if declared < actual {
        let missing: Vec<_> = entry.params[declared..]
            .iter()
            .map(|p| format!("{} ({})", p.describe(), suggestion(p)))
            .collect();
        cx.error(
            &kernel.sig.ident,
            format!(
                "`{}` takes {actual} parameters in {shown} but {declared} are declared here: \
                 missing {}",
                entry.name,
                missing.join(", ")
            ),
        );
    }
    true
}

/// Size, alignment and float-ness of the types whose layout the front end knows itself:
/// pointers and Rust primitives.
fn known_layout(ty: &Type) -> Option<(usize, usize, Option<bool>)> {
    match ty {
        Type::Ptr(_) => Some((8, 8, None)),
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().and_then(|name| {
            types::primitive(&name.to_string())
                .map(|t| (t.size, t.align, Some(t.class == Class::Float)))
        }),
        _ => None,
    }
}

/// Rule: each parameter has the PTX's size and alignment, and a scalar's kind (integer or
/// floating point) matches. Checked here for pointers and Rust primitives; for other types the
/// returned layout becomes a compile-time assertion.
fn check_param(
    cx: &mut Errors,
    kernel: &Kernel,
    index: usize,
    ptx: &PtxParam,
) -> Option<PtxLayout> {
    let (ident, ty) = (&kernel.params[index].ident, &kernel.params[index].ty);
    let declared = format!("`{ident}: {}`", type_text(ty));
    let ptx_side = format!(
        "{} ({} byte{}{})",
        ptx.describe(),
        ptx.size,
        if ptx.size == 1 { "" } else { "s" },
        if ptx.array_len.is_some() {
            format!(", align {}", ptx.align)
        } else {
            String::new()
        }
    );
    let known = known_layout(ty).map(|(size, align, float)| {
        let what = match ty {
            Type::Ptr(_) => "a 64-bit device address".to_string(),
            _ => format!("{size} byte{}", if size == 1 { "" } else { "s" }),
        };
        (size, align, what, float)
    });
    let Some((size, align, what, float)) = known else {
        return Some(PtxLayout {
            size: ptx.size,
            align: ptx.align,
            message: format!(
                "{declared} does not match parameter {index} of `{}`, which the PTX declares as \
                 {ptx_side}: did you mean {}?",
                kernel.symbol,
                suggestion(ptx)
            ),
        });
    };
    if (size, align) != (ptx.size, ptx.align) {
        cx.error(
            ty,
            format!(
                "{declared} is {what} but the PTX declares {ptx_side}: did you mean {}?",
                suggestion(ptx)
            ),
        );
    } else if float == Some(false) && ptx.is_float() {
        cx.error(
            ty,
            format!(
                "{declared} is an integer but the PTX declares {}, a float: did you mean {}?",
                ptx.ty,
                suggestion(ptx)
            ),
        );
    } else if float == Some(true) && ptx.is_integer() {
        cx.error(
            ty,
            format!(
                "{declared} is a float but the PTX declares {}, an integer: did you mean {}?",
                ptx.ty,
                suggestion(ptx)
            ),
        );
    }
    None
}

/// The Rust types that fit a PTX parameter.
fn suggestion(ptx: &PtxParam) -> String {
    types::suggestion(&ptx.ty, ptx.array_len, ptx.size, ptx.align)
}

/// Rule: a generic declaration has instances in the PTX, and every instance whose arguments
/// are built-in types takes the declared parameters with them substituted. Template instances
/// are found by their symbols for every built-in type argument (const arguments stand for any
/// value); family members by their names (`affine_f16`).
fn check_instances(cx: &mut Errors, kernel: &Kernel, file: &PtxFile) {
    let type_params = kernel.type_params();
    let generics: Vec<&str> = type_params.iter().map(String::as_str).collect();
    let candidates: Vec<&BuiltinType> = types::all().filter(|t| t.alias_of.is_none()).collect();
    let mut combos: Vec<Vec<&BuiltinType>> = vec![Vec::new()];
    for _ in &type_params {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                candidates.iter().map(move |t| {
                    let mut c = c.clone();
                    c.push(t);
                    c
                })
            })
            .collect();
    }
    let mut found = 0;
    for combo in &combos {
        let entry = if kernel.cpp.is_some() {
            let Some(params) = kernel
                .params
                .iter()
                .map(|p| crate::mangle::cpp_type(&p.ty, &generics))
                .collect::<Option<Vec<_>>>()
            else {
                return; // reported by the checks
            };
            let mut combo_types = combo.iter();
            let args: Vec<TemplateArg> = kernel
                .generics
                .iter()
                .map(|g| match g {
                    KernelGeneric::Type(_) => {
                        let t = combo_types.next().expect("one type per type parameter");
                        TemplateArg::Type(CppType::from_path_name(t.rust, &[]))
                    }
                    KernelGeneric::Const { code, .. } => TemplateArg::Int {
                        code: code.unwrap_or("i"),
                        value: WILDCARD,
                    },
                })
                .collect();
            let symbol = itanium::mangle(&kernel.symbol, Some(&args), &params);
            file.entries
                .iter()
                .find(|e| matches_wildcards(&e.name, &symbol))
        } else {
            if kernel
                .generics
                .iter()
                .any(|g| matches!(g, KernelGeneric::Const { .. }))
            {
                return; // a family over values: its members are named at load time
            }
            let names: Vec<(&str, String)> = generics
                .iter()
                .zip(combo)
                .map(|(g, t)| (*g, t.name().to_string()))
                .collect();
            let symbol = itanium::family_symbol(&kernel.symbol, &names);
            ptx::find(&file.entries, &symbol)
        };
        let Some(entry) = entry else {
            continue;
        };
        found += 1;
        check_instance(cx, kernel, &generics, combo, entry, &file.shown);
    }
    if found == 0 {
        let prefix = format!("_Z{}{}I", kernel.symbol.len(), kernel.symbol);
        let instances: Vec<&Entry> = file
            .entries
            .iter()
            .filter(|e| kernel.cpp.is_some() && e.name.starts_with(&prefix))
            .collect();
        // Instances over a struct of the user's cannot be matched here (`load` checks them).
        let unknowable = instances.iter().any(|e| !builtin_template_args(&e.name));
        if !instances.is_empty() && !unknowable {
            let names: Vec<_> = instances.iter().map(|e| demangle::shown(&e.name)).collect();
            cx.error(
                &kernel.ident,
                format!(
                    "none of the instances of the template `{}` in {} takes the declared \
                     parameters; they are: {}",
                    kernel.symbol,
                    file.shown,
                    names.join(", ")
                ),
            );
        } else if instances.is_empty() {
            let what = if kernel.cpp.is_some() {
                format!("no instance of the template `{}`", kernel.symbol)
            } else {
                format!(
                    "no member of the family `{}` for a built-in type",
                    kernel.symbol
                )
            };
            let names: Vec<_> = file
                .entries
                .iter()
                .map(|e| demangle::shown(&e.name))
                .collect();
            cx.error(
                &kernel.ident,
                format!(
                    "{} has {what}; its entries are: {}",
                    file.shown,
                    names.join(", ")
                ),
            );
        }
    }
}

/// Whether every template argument of the C++ symbol is a built-in type or a value.
fn builtin_template_args(symbol: &str) -> bool {
    let Some(text) = demangle::demangle(symbol) else {
        return false;
    };
    let head = text.split('(').next().unwrap_or_default();
    let (Some(open), Some(close)) = (head.find('<'), head.rfind('>')) else {
        return false;
    };
    head[open + 1..close].split(',').all(|arg| {
        let arg = arg
            .trim()
            .trim_end_matches('*')
            .trim_end_matches(" const")
            .trim();
        arg.parse::<i128>().is_ok()
            || arg == "true"
            || arg == "false"
            || types::by_cuda_name(arg).is_some()
    })
}

/// Stands for any value of a const argument in a template instance's symbol.
const WILDCARD: i128 = 7_777_777_777_777_777;

/// Whether `name` is `symbol` with each `WILDCARD` literal replaced by some integer.
fn matches_wildcards(name: &str, symbol: &str) -> bool {
    let marker = WILDCARD.to_string();
    let mut parts = symbol.split(marker.as_str());
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    for part in parts {
        let digits = rest.strip_prefix('n').unwrap_or(rest);
        let len = digits.len()
            - digits
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        if len == 0 {
            return false;
        }
        match digits[len..].strip_prefix(part) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

/// Rule: an instance takes as many parameters as declared, each of the size and alignment the
/// declaration gives it with the type arguments substituted.
fn check_instance(
    cx: &mut Errors,
    kernel: &Kernel,
    generics: &[&str],
    combo: &[&BuiltinType],
    entry: &Entry,
    shown: &str,
) {
    let instance = demangle::shown(&entry.name);
    if entry.params.len() != kernel.params.len() {
        cx.error(
            &kernel.ident,
            format!(
                "`{instance}` takes {} parameters in {shown} but {} are declared",
                entry.params.len(),
                kernel.params.len()
            ),
        );
        return;
    }
    for (i, (param, ptx)) in kernel.params.iter().zip(&entry.params).enumerate() {
        let layout = match &param.ty {
            Type::Ptr(_) => Some((8, 8)),
            Type::Path(p) => p.path.get_ident().and_then(|name| {
                let name = name.to_string();
                match generics.iter().position(|g| *g == name) {
                    Some(k) => Some((combo[k].size, combo[k].align)),
                    None => types::primitive(&name).map(|t| (t.size, t.align)),
                }
            }),
            _ => None,
        };
        if let Some((size, align)) = layout {
            if (size, align) != (ptx.size, ptx.align) {
                cx.error(
                    &param.ty,
                    format!(
                        "`{}: {}` is {size} byte{} in `{instance}`, whose parameter {i} the PTX \
                         declares as {} ({} byte{})",
                        param.ident,
                        type_text(&param.ty),
                        if size == 1 { "" } else { "s" },
                        ptx.describe(),
                        ptx.size,
                        if ptx.size == 1 { "" } else { "s" },
                    ),
                );
            }
        }
    }
}

/// Rule: a declared global is a `.const` or `.global` variable of the PTX with the declared
/// type's size and alignment: checked here for primitives and arrays of them with literal
/// lengths, left to the compiler (the returned layout) for other types.
fn check_global(cx: &mut Errors, global: &GlobalVar, file: &PtxFile) -> Option<PtxLayout> {
    if global.type_error.is_some() {
        return None;
    }
    let Some(found) = file.globals.iter().find(|g| g.name == global.symbol) else {
        let span: &dyn quote::ToTokens = match &global.name_arg {
            Some(lit) => lit,
            None => &global.ident,
        };
        let names: Vec<_> = file.globals.iter().map(|g| g.name.as_str()).collect();
        cx.error(
            span,
            format!(
                "{} has no __constant__ or __device__ variable `{}`; its variables are: {}",
                file.shown,
                global.symbol,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        );
        return None;
    };
    let ptx_side = format!(
        "{} {}{} ({} byte{}, align {})",
        found.space,
        found.ty,
        found
            .array_len
            .map(|n| format!("[{n}]"))
            .unwrap_or_default(),
        found.size,
        if found.size == 1 { "" } else { "s" },
        found.align
    );
    let declared = format!("`{}: {}`", global.ident, type_text(&global.ty));
    let (elem, count) = match &global.ty {
        Type::Array(a) => match &a.len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => (&*a.elem, n.base10_parse::<usize>().ok()),
            _ => (&*a.elem, None),
        },
        ty => (ty, Some(1)),
    };
    match (known_layout(elem), count) {
        (Some((size, align, _)), Some(count)) => {
            // Only the size: nvcc may align a variable beyond its type, and the host copies
            // bytes to its address either way.
            if size * count != found.size {
                cx.error(
                    &global.ty,
                    format!(
                        "{declared} is {} bytes aligned to {align}, but the PTX declares {ptx_side}",
                        size * count
                    ),
                );
            }
            None
        }
        _ => Some(PtxLayout {
            size: found.size,
            align: found.align,
            message: format!("{declared} does not match the PTX's {ptx_side}"),
        }),
    }
}
