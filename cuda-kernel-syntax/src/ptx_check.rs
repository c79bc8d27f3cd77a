//! Checking declarations against the PTX named by `#[kernel(ptx = "...")]`: every kernel must
//! be an entry of the file, with as many parameters, each of the same size and alignment.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use syn::ext::IdentExt;
use syn::{LitStr, Type};

use crate::ast::{Block, GlobalVar, Kernel, KernelGeneric, Member, MemberType, Members, PtxLayout};
use crate::check::type_text;
use crate::demangle;
use crate::itanium::{self, CppType, TemplateArg};
use crate::pattern;
use crate::ptx::{self, Entry, PtxParam};
use crate::report::Errors;
use crate::types::{self, Class};

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
    match read_cached(text) {
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

/// The entries and globals of a PTX text, read once per process for the same text: a crate's
/// blocks often check against one file (a backend's `#[kernel]` blocks, each naming the PTX of
/// its module), and the macro runs unoptimized in a debug build. The text itself is the key, so
/// an edited file is read again; the few most recent files are kept.
fn read_cached(text: String) -> Result<(Vec<ptx::Entry>, Vec<ptx::Global>), ptx::PtxError> {
    type Read = Arc<(Vec<ptx::Entry>, Vec<ptx::Global>)>;
    static CACHE: Mutex<Vec<(String, Read)>> = Mutex::new(Vec::new());
    const KEPT: usize = 8;
    let cache = || {
        CACHE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some((_, read)) = cache().iter().find(|(kept, _)| *kept == text) {
        return Ok((read.0.clone(), read.1.clone()));
    }
    let read = ptx::entries_and_globals(&text)?;
    let mut kept = cache();
    if kept.len() == KEPT {
        kept.remove(0);
    }
    kept.push((text, Arc::new(read.clone())));
    Ok(read)
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
    // Entries another declaration of the block binds are not members of a run-time family.
    let mut claimed: Vec<String> = Vec::new();
    for kernel in block.kernels.iter().filter(|k| k.run_time_name.is_none()) {
        if !kernel.symbol_at_load() {
            claimed.push(kernel.symbol.clone());
        } else if kernel.cpp.is_none() {
            claimed.extend(
                family_members(kernel, file, &[])
                    .into_iter()
                    .map(|m| m.symbol),
            );
        }
    }
    // An entry two run-time patterns match belongs to the one with more fixed text:
    // `badd_f32` to `b{op}_{T}`, not to `{op}_{T}`.
    let run_time: Vec<(usize, Vec<String>)> = block
        .kernels
        .iter()
        .filter(|k| k.run_time_name.is_some() && k.cpp.is_none())
        .map(|k| {
            let members = family_members(k, file, &claimed);
            (
                literal_len(&k.symbol),
                members.into_iter().map(|m| m.symbol).collect(),
            )
        })
        .collect();
    for kernel in &mut block.kernels {
        if kernel.symbol_at_load() && kernel.cpp.is_none() {
            let mut exclude = Vec::new();
            if kernel.run_time_name.is_some() {
                exclude.extend(claimed.iter().cloned());
                let own = literal_len(&kernel.symbol);
                for (len, symbols) in &run_time {
                    if *len > own {
                        exclude.extend(symbols.iter().cloned());
                    }
                }
            }
            kernel.members = Some(check_family(cx, kernel, file, &exclude));
            continue;
        }
        if kernel.is_generic() || kernel.device_fn.is_some() {
            let (members, names) = check_template_instances(cx, kernel, file);
            kernel.members = members;
            kernel.cuda_names = names;
            continue;
        }
        if let Some((symbol, names)) = entry_by_struct_names(kernel, file) {
            kernel.symbol = symbol;
            kernel.cuda_names = names;
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

/// Whether a declared parameter type is the type `found` in a symbol, but for the namespaces of a
/// struct's name (`Pair` is `geo::Pair`).
fn same_but_namespaces(declared: &CppType, found: &CppType) -> bool {
    match (declared, found) {
        (CppType::Named(a), CppType::Named(b)) => b.rsplit("::").next() == Some(a.as_str()),
        (CppType::Pointer { to_const: c, to: a }, CppType::Pointer { to_const: d, to: b }) => {
            c == d && same_but_namespaces(a, b)
        }
        (a, b) => a == b,
    }
}

/// A `cpp` kernel taking structs, whose derived symbol names each struct by its Rust name
/// (`Pair`): the one entry of its C++ name whose parameters are the declared ones, a struct
/// matching a class of the same name in any namespace (`geo::Pair`). Its symbol, and the C++
/// names of the structs where they differ from the Rust names, which the expansion asserts are
/// the structs' CUDA names (`#[kernel_param(cuda_name = "geo::Pair")]`).
fn entry_by_struct_names(
    kernel: &Kernel,
    file: &PtxFile,
) -> Option<(String, Vec<(usize, String)>)> {
    if kernel.cpp.is_none() || kernel.name_arg.is_some() || kernel.is_generic() {
        return None;
    }
    if ptx::find(&file.entries, &kernel.symbol).is_some() {
        return None;
    }
    let declared: Vec<CppType> = kernel
        .params
        .iter()
        .map(|p| crate::mangle::cpp_type(&p.ty, &[]))
        .collect::<Option<_>>()?;
    declared.iter().find_map(CppType::class_name)?;
    let qualified = kernel.cpp_name();
    // Structs named as in C++ but for namespaces first; else any struct where a struct is.
    entry_with_structs(&declared, &qualified, file, same_but_namespaces)
        .or_else(|| entry_with_structs(&declared, &qualified, file, CppType::same_but_class_names))
}

/// The one entry of `qualified` whose parameters `fit` the declared ones, with the C++ names of
/// its structs where they differ from the declared ones.
fn entry_with_structs(
    declared: &[CppType],
    qualified: &str,
    file: &PtxFile,
    fit: fn(&CppType, &CppType) -> bool,
) -> Option<(String, Vec<(usize, String)>)> {
    let mut found = file.entries.iter().filter_map(|e| {
        if demangle::function_name(&e.name).as_deref() != Some(qualified) {
            return None;
        }
        let types: Vec<CppType> = demangle::param_types(&e.name)?
            .iter()
            .map(|t| CppType::from_cpp(t))
            .collect::<Option<_>>()?;
        let fits =
            types.len() == declared.len() && declared.iter().zip(&types).all(|(d, t)| fit(d, t));
        fits.then(|| {
            let names = declared
                .iter()
                .zip(&types)
                .enumerate()
                .filter_map(|(i, (d, t))| {
                    let (d, t) = (d.class_name()?, t.class_name()?);
                    (d != t).then(|| (i, t.to_string()))
                })
                .collect();
            (e.name.clone(), names)
        })
    });
    let one = found.next()?;
    found.next().is_none().then_some(one)
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
    let mangled: Vec<&Entry> = if derived {
        // The C++ kernels of that name in the declared namespace (or none).
        let qualified = kernel.cpp_name();
        file.entries
            .iter()
            .filter(|e| demangle::function_name(&e.name).as_deref() == Some(qualified.as_str()))
            .collect()
    } else {
        ptx::mangled_matches(&file.entries, symbol)
    };
    if derived && mangled.is_empty() {
        if let Some(hint) = namespace_hint(kernel, file) {
            cx.error(
                span,
                format!("{} has no entry `{symbol}`{hint}", file.shown),
            );
            return None;
        }
    }
    let shown = |e: &Entry| match demangle::demangle(&e.name) {
        Some(text) => format!("`{text}` (`{}`)", e.name),
        None => format!("`{}`", e.name),
    };
    let names: Vec<_> = mangled.iter().map(|e| shown(e)).collect();
    // Only an entry taking the declared types is ever suggested.
    let declared: Option<Vec<String>> = kernel
        .params
        .iter()
        .map(|p| crate::mangle::cpp_type(&p.ty, &[]).map(|t| t.demangled()))
        .collect();
    let matching: Vec<&&Entry> = mangled
        .iter()
        .filter(|e| declared.is_some() && demangle::param_types(&e.name) == declared)
        .collect();
    let message = if derived && !mangled.is_empty() {
        format!(
            "{} has no entry `{symbol}`, the symbol #[kernel(cpp)] derives from this declaration, \
             but has {}: the parameter types differ from the C++ declaration's (i8 mangles as \
             signed char, i64 as int64_t, which is long, usize as size_t: see cuda_kernel::ffi for char and long long)",
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
    // A TMA descriptor: 128 bytes, aligned to 128 by CUDA 13's `cuda.h` and to 64 by CUDA 12's
    // (its offset is the driver's either way).
    if crate::ast::is_descriptor(ty) {
        if ptx.size != 128 || (ptx.align != 64 && ptx.align != 128) || ptx.array_len.is_none() {
            cx.error(
                ty,
                format!(
                    "{declared} is a TMA descriptor (`CUtensorMap`, 128 bytes aligned to 128, or to 64 before CUDA 13) but the PTX declares {ptx_side}: did you mean {}?",
                    suggestion(ptx)
                ),
            );
        }
        return None;
    }
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

/// The fixed text of a symbol pattern, in bytes: how specific it is.
fn literal_len(pattern: &str) -> usize {
    pattern::pieces(pattern)
        .iter()
        .map(|piece| match piece {
            pattern::Piece::Text(text) => text.len(),
            pattern::Piece::Hole(_) => 0,
        })
        .sum()
}

/// What a type parameter of a family can stand for: each built-in type under its name (or the
/// name `names(...)` gives it), and each type `names(...)` names that is not built in.
struct TypeChoice {
    /// What `{T}` becomes.
    name: String,
    /// The type, for generated code.
    ty: MemberType,
    /// Its size and alignment, where the front end knows them.
    layout: Option<(usize, usize)>,
}

fn type_choices(kernel: &Kernel) -> Vec<TypeChoice> {
    let builtin = types::all()
        .filter(|t| t.alias_of.is_none())
        .map(|t| TypeChoice {
            name: kernel.family_name(t),
            ty: MemberType::Builtin(t.rust),
            layout: Some((t.size, t.align)),
        });
    let users = kernel
        .type_names
        .iter()
        .filter(|named| named.builtin().is_none())
        .map(|named| TypeChoice {
            name: named.name.value(),
            ty: MemberType::Path(crate::attr::path_text(&named.ty)),
            layout: None,
        });
    builtin.chain(users).collect()
}

/// The entries of the PTX the kernel's pattern matches (leaving out `exclude`), with each type
/// parameter's choice and the run-time part.
fn family_members(kernel: &Kernel, file: &PtxFile, exclude: &[String]) -> Vec<Member> {
    family_matches(kernel, file, exclude)
        .into_iter()
        .map(|(member, _, _)| member)
        .collect()
}

/// A member, its entry, and its type arguments' sizes and alignments where known.
type Match<'f> = (Member, &'f Entry, Vec<Option<(usize, usize)>>);

/// [`family_members`], with each member's entry and its type arguments' layouts.
fn family_matches<'f>(kernel: &Kernel, file: &'f PtxFile, exclude: &[String]) -> Vec<Match<'f>> {
    let Some(pattern) = &kernel.name_arg else {
        return Vec::new();
    };
    let pattern = pattern.value();
    let choices = type_choices(kernel);
    let names: Vec<String> = choices.iter().map(|c| c.name.clone()).collect();
    let type_params = kernel.type_params();
    let consts: Vec<String> = kernel
        .generics
        .iter()
        .filter(|g| matches!(g, KernelGeneric::Const { .. }))
        .map(|g| g.ident().to_string())
        .collect();
    let closed = |hole: &str| type_params.iter().any(|t| t == hole).then_some(&names[..]);
    let pattern = pattern::Pattern::new(&pattern);
    let mut out = Vec::new();
    for entry in &file.entries {
        let Some(filled) = pattern.fill(&entry.name, &closed) else {
            continue;
        };
        if exclude.contains(&entry.name) {
            continue;
        }
        let value = |hole: &str| filled.iter().find(|(h, _)| *h == hole).map(|(_, v)| v);
        if consts
            .iter()
            .any(|c| value(c).is_none_or(|v| v.parse::<i128>().is_err()))
        {
            continue;
        }
        let picked: Vec<Option<&TypeChoice>> = type_params
            .iter()
            .map(|t| value(t).and_then(|v| choices.iter().find(|c| &c.name == v)))
            .collect();
        out.push((
            Member {
                symbol: entry.name.clone(),
                types: picked.iter().map(|c| c.map(|c| c.ty.clone())).collect(),
                run_time_name: kernel.run_time_name.as_deref().and_then(value).cloned(),
                args: Vec::new(),
            },
            entry,
            picked.iter().map(|c| c.and_then(|c| c.layout)).collect(),
        ));
    }
    out
}

/// Rule: a family (`"affine_{T}"`) or a kernel named at run time (`"u{op}_{T}"`) has members
/// in the PTX, and every member takes the declared parameters with its type arguments
/// substituted. A mistake shared by several members is one error naming them.
fn check_family(cx: &mut Errors, kernel: &Kernel, file: &PtxFile, exclude: &[String]) -> Members {
    let matches = family_matches(kernel, file, exclude);
    if matches.is_empty() {
        let names: Vec<_> = file
            .entries
            .iter()
            .map(|e| demangle::shown(&e.name))
            .collect();
        let what = if kernel.run_time_name.is_some() {
            format!("no entry matching `{}`", kernel.symbol)
        } else {
            format!("no member of the family `{}`", kernel.symbol)
        };
        let span: &dyn quote::ToTokens = match &kernel.name_arg {
            Some(lit) => lit,
            None => &kernel.ident,
        };
        cx.error(
            span,
            format!(
                "{} has {what}; its entries are: {}{}",
                file.shown,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                },
                if kernel.type_names.is_empty() && kernel.is_generic() {
                    " (a type's name in a symbol is its Rust name, `f16` for half::f16: give \
                     others with `names(Type = \"name\")`)"
                } else {
                    ""
                }
            ),
        );
    }
    let generics = kernel.type_params();
    let generics: Vec<&str> = generics.iter().map(String::as_str).collect();
    let mut problems = Problems::default();
    for (member, entry, layouts) in &matches {
        instance_problems(
            kernel,
            &generics,
            layouts,
            entry,
            &member.symbol,
            &mut problems,
        );
    }
    problems.report(cx, kernel, &file.shown);
    let types_known = matches
        .iter()
        .all(|(member, _, _)| member.types.iter().all(Option::is_some));
    Members {
        entries: matches.into_iter().map(|(member, _, _)| member).collect(),
        types_known,
        file: file.shown.clone(),
    }
}

/// Mistakes of a generic declaration, each with the instances or members it concerns, so that
/// a wrong parameter shared by nine members is one error.
#[derive(Default)]
struct Problems {
    /// (parameter, or `None` for the count; the mistake) and the instances showing it.
    found: Vec<(Option<usize>, String, Vec<String>)>,
}

impl Problems {
    fn add(&mut self, param: Option<usize>, what: String, instance: String) {
        match self
            .found
            .iter_mut()
            .find(|(p, w, _)| *p == param && *w == what)
        {
            Some((_, _, instances)) => instances.push(instance),
            None => self.found.push((param, what, vec![instance])),
        }
    }

    fn report(self, cx: &mut Errors, kernel: &Kernel, shown: &str) {
        for (param, what, instances) in self.found {
            let listed: Vec<String> = instances.iter().take(6).map(|i| format!("`{i}`")).collect();
            let more = instances.len().saturating_sub(6);
            let which = match (instances.len(), more) {
                (1, _) => listed[0].clone(),
                (_, 0) => format!("{} ({} members)", listed.join(", "), instances.len()),
                _ => format!(
                    "{} and {more} more ({} members)",
                    listed.join(", "),
                    instances.len()
                ),
            };
            let message = what.replace("{which}", &which).replace("{file}", shown);
            match param {
                Some(i) => cx.error(&kernel.params[i].ty, message),
                None => cx.error(&kernel.ident, message),
            }
        }
    }
}

/// Rule: a C++ function template has instances in the PTX, and every instance takes the
/// declared parameters with its arguments substituted. Instances are read from the PTX's
/// symbols, whatever their arguments (built-in types, CUDA's class types, structs, pointers,
/// values of any integer type, `bool` or an enum): each argument is read back to the C++ type
/// or value it is ([`TemplateArg::from_demangled`]), and an instance is the declaration's when
/// the declaration mangled with those arguments is its symbol. Families of `extern "C"`
/// kernels are [`check_family`]'s. Returns the instances as members, for the compile-time check
/// of the types a launcher is loaded for.
///
/// A struct of a namespace (`ns::shapes::Interval`) is declared by its Rust name: an instance
/// whose parameters are the declared ones but for the namespaces of a struct's name is the
/// declaration's, and the C++ names of such structs are returned with their parameters'
/// indices, for the expansion to assert that they are the structs' CUDA names.
fn check_template_instances(
    cx: &mut Errors,
    kernel: &Kernel,
    file: &PtxFile,
) -> (Option<Members>, Vec<(usize, String)>) {
    let mut cuda_names: Vec<(usize, String)> = Vec::new();
    let members = template_instances(cx, kernel, file, &mut cuda_names);
    (members, cuda_names)
}

/// The C++ names of the declared structs in `entry`'s parameters where they differ from the
/// Rust names (`(0, "ns::shapes::Interval")`), if `entry`, an instance of the template with
/// `args`, takes the declared parameters but for the namespaces of those names.
fn struct_names_in_instance(
    params: &[CppType],
    args: &[TemplateArg],
    entry: &str,
) -> Option<Vec<(usize, String)>> {
    fn substituted(ty: &CppType, types: &[&CppType]) -> Option<CppType> {
        Some(match ty {
            CppType::Param(i) => (*types.get(*i)?).clone(),
            CppType::Pointer { to_const, to } => CppType::Pointer {
                to_const: *to_const,
                to: Box::new(substituted(to, types)?),
            },
            other => other.clone(),
        })
    }
    let types: Vec<&CppType> = args
        .iter()
        .filter_map(|a| match a {
            TemplateArg::Type(ty) => Some(ty),
            _ => None,
        })
        .collect();
    let found: Vec<CppType> = demangle::param_types(entry)?
        .iter()
        .map(|t| CppType::from_cpp(t))
        .collect::<Option<_>>()?;
    if found.len() != params.len() {
        return None;
    }
    let mut names = Vec::new();
    for (i, (declared, found)) in params.iter().zip(&found).enumerate() {
        let declared = substituted(declared, &types)?;
        if !declared.same_but_class_names(found) {
            return None;
        }
        if let (Some(d), Some(f)) = (declared.class_name(), found.class_name()) {
            if d != f {
                names.push((i, f.to_string()));
            }
        }
    }
    Some(names)
}

fn template_instances(
    cx: &mut Errors,
    kernel: &Kernel,
    file: &PtxFile,
    cuda_names: &mut Vec<(usize, String)>,
) -> Option<Members> {
    let type_params = kernel.type_params();
    let generics: Vec<&str> = type_params.iter().map(String::as_str).collect();
    let Some(params) = kernel
        .params
        .iter()
        .map(|p| crate::mangle::cpp_type(&p.ty, &generics))
        .collect::<Option<Vec<_>>>()
    else {
        return None; // reported by the checks
    };
    let prefix = itanium::template_instance_prefix(&kernel.symbol);
    let instances: Vec<&Entry> = file
        .entries
        .iter()
        .filter(|e| e.name.starts_with(&prefix))
        .collect();
    let mut members = Vec::new();
    let mut problems = Problems::default();
    let mut types_known = true;
    for entry in &instances {
        let Some(args) = instance_args(kernel, &entry.name) else {
            continue;
        };
        // nvcc's run-dependent internal names (a `static` device function's) masked, as the
        // mangler writes them.
        let entry_name = itanium::without_internal_parts(&entry.name);
        if itanium::mangle(&kernel.symbol, Some(&args), &params) != entry_name {
            // A struct of a namespace, named so in the symbol: the instance is the
            // declaration's if the structs' C++ names make the symbol.
            let Some(names) = struct_names_in_instance(&params, &args, &entry.name)
                .filter(|names| !names.is_empty())
            else {
                continue; // another overload of the template, or declared otherwise (below)
            };
            let named: Vec<CppType> = params
                .iter()
                .zip(0..)
                .map(|(ty, i)| match names.iter().find(|(at, _)| *at == i) {
                    Some((_, name)) => {
                        let name = name.clone();
                        ty.clone().with_class_names(&move |_| Some(name.clone()))
                    }
                    None => ty.clone(),
                })
                .collect();
            if itanium::mangle(&kernel.symbol, Some(&args), &named) != entry_name {
                continue;
            }
            for name in names {
                if !cuda_names.contains(&name) {
                    cuda_names.push(name);
                }
            }
        }
        let type_args: Vec<&CppType> = args
            .iter()
            .filter_map(|a| match a {
                TemplateArg::Type(ty) => Some(ty),
                _ => None,
            })
            .collect();
        let types: Vec<Option<MemberType>> = type_args
            .iter()
            .map(|ty| ty.as_builtin().map(|t| MemberType::Builtin(t.rust)))
            .collect();
        types_known &= types.iter().all(Option::is_some);
        let layouts: Vec<Option<(usize, usize)>> = type_args
            .iter()
            .map(|ty| match ty {
                CppType::Builtin(t) => Some((t.size, t.align)),
                CppType::Pointer { .. } => Some((8, 8)),
                _ => None,
            })
            .collect();
        let instance = demangle::shown(&entry.name);
        instance_problems(kernel, &generics, &layouts, entry, &instance, &mut problems);
        // A device function's instance is chosen by the function's name.
        let run_time_name = args.iter().find_map(|a| match a {
            TemplateArg::Function { name, .. } => Some(name.clone()),
            _ => None,
        });
        members.push(Member {
            symbol: entry.name.clone(),
            types,
            run_time_name,
            args,
        });
    }
    problems.report(cx, kernel, &file.shown);
    if !members.is_empty() {
        return Some(Members {
            entries: members,
            types_known,
            file: file.shown.clone(),
        });
    }
    if !instances.is_empty() && value_types_differ(cx, kernel, &instances) {
        return None;
    }
    if !instances.is_empty() && instance_params_differ(cx, kernel, &params, &instances, file) {
        return None;
    }
    if !instances.is_empty() {
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
    } else if let Some(hint) = namespace_hint(kernel, file) {
        cx.error(
            &kernel.ident,
            format!(
                "{} has no instance of the template `{}`{hint}",
                file.shown, kernel.symbol
            ),
        );
    } else {
        let what = format!("no instance of the template `{}`", kernel.symbol);
        let names: Vec<_> = file
            .entries
            .iter()
            .map(|e| demangle::shown(&e.name))
            .collect();
        // nvcc compiles a template only for the instances the .cu names: the explicit
        // instantiation to add, for the first built-in type and an example value.
        let example: Vec<&str> = kernel
            .generics
            .iter()
            .map(|g| match g {
                KernelGeneric::Type(_) => "f32",
                KernelGeneric::Const { .. } => "128",
            })
            .collect();
        let hint = match crate::cuda::instantiation(kernel, &example) {
            Some(line) => format!(
                " (nvcc compiles a template only for the instances the .cu instantiates: add \
                 one for each type you load, e.g. `{line}`)"
            ),
            None => String::new(),
        };
        let listed = if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        };
        cx.error(
            &kernel.ident,
            format!("{} has {what}{hint}; its entries are: {listed}", file.shown),
        );
    }
    None
}

/// The template arguments of an instance's symbol, read back as the C++ types and values they
/// are, one for each of the declaration's generic parameters and each of the kind the parameter
/// declares (a type, or a value); `None` for an instance of another shape.
fn instance_args(kernel: &Kernel, symbol: &str) -> Option<Vec<TemplateArg>> {
    let mut args = demangle::template_args(symbol)?;
    if args.len() != kernel.generics.len() + usize::from(kernel.device_fn.is_some()) {
        return None;
    }
    // The device function's, of the declared parameter types.
    let function = match &kernel.device_fn {
        Some(f) => {
            let arg = TemplateArg::from_demangled(&args.remove(f.position.min(args.len())))?;
            match &arg {
                TemplateArg::Function { params, .. }
                    if Some(params) == kernel.device_fn_params().as_ref() => {}
                _ => return None,
            }
            Some(arg)
        }
        None => None,
    };
    let generic: Vec<TemplateArg> = args
        .iter()
        .zip(&kernel.generics)
        .map(|(text, generic)| {
            let arg = TemplateArg::from_demangled(text)?;
            let fits = match (generic, &arg) {
                (KernelGeneric::Type(_), TemplateArg::Type(_)) => true,
                // A value is matched whatever the type the declaration gives it: the symbol
                // comparison tells a parameter declared with another type.
                (KernelGeneric::Const { code, .. }, TemplateArg::Int { code: found, .. }) => {
                    code.is_none_or(|c| c == *found)
                }
                (KernelGeneric::Const { enum_name, .. }, TemplateArg::Enum { name, .. }) => {
                    enum_name.as_deref() == Some(name.as_str())
                }
                _ => false,
            };
            fits.then_some(arg)
        })
        .collect::<Option<_>>()?;
    Some(kernel.template_args(generic, function))
}

/// Where the PTX has C++ kernels of the declaration's name in another namespace than the one
/// declared (none, or another): which, and how to declare the namespace.
fn namespace_hint(kernel: &Kernel, file: &PtxFile) -> Option<String> {
    let base = kernel.ident.unraw().to_string();
    let qualified = kernel.cpp_name();
    let elsewhere: Vec<(String, String)> = file
        .entries
        .iter()
        .filter_map(|e| {
            let function = demangle::function_name(&e.name)?;
            let (namespace, name) = function.rsplit_once("::").unwrap_or(("", &function));
            (name == base && function != qualified)
                .then(|| (namespace.to_string(), demangle::shown(&e.name)))
        })
        .collect();
    if elsewhere.is_empty() {
        return None;
    }
    let mut namespaces: Vec<&str> = elsewhere.iter().map(|(ns, _)| ns.as_str()).collect();
    namespaces.dedup();
    let shown: Vec<&str> = elsewhere.iter().map(|(_, s)| s.as_str()).collect();
    let spelled = |ns: &str| match ns {
        "" => "the global namespace".to_string(),
        ns => format!("namespace `{ns}`"),
    };
    let (place, how) = match namespaces.as_slice() {
        [""] => (spelled(""), "declare it without `namespace`".to_string()),
        [ns] => (
            spelled(ns),
            format!("declare it with #[kernel(cpp, namespace = \"{ns}\")]"),
        ),
        several => (
            several
                .iter()
                .map(|ns| spelled(ns))
                .collect::<Vec<_>>()
                .join(" and "),
            "declare the one you mean with #[kernel(cpp, namespace = \"...\")]".to_string(),
        ),
    };
    Some(format!(
        ", but has `{base}` in {place}: {}; {how}",
        shown.join(", ")
    ))
}

/// Rule: a template value parameter is declared with the C type the PTX's instances have
/// (nvcc mangles the type into the symbol: `Lj128E` is `(unsigned int)128`). One error per
/// parameter declared otherwise, naming the type to declare; `true` if there was one.
fn value_types_differ(cx: &mut Errors, kernel: &Kernel, instances: &[&Entry]) -> bool {
    let mut reported = false;
    for (i, generic) in kernel.generics.iter().enumerate() {
        let KernelGeneric::Const {
            ident,
            ty,
            code: Some(code),
            enum_name: None,
        } = generic
        else {
            continue;
        };
        let declared = itanium::fundamental_name(code);
        // The value as the symbol has it: `(unsigned int)128`, or `128` for an `int`.
        let found = instances.iter().find_map(|e| {
            let args = demangle::template_args(&e.name)?;
            let TemplateArg::Int { code: found, .. } = TemplateArg::from_demangled(args.get(i)?)?
            else {
                return None;
            };
            let c_type = itanium::fundamental_name(found);
            (c_type != declared).then(|| (c_type.to_string(), demangle::shown(&e.name)))
        });
        let Some((c_type, instance)) = found else {
            continue;
        };
        // The Rust types for that C type: the primitives (`u64` or `usize` for `unsigned
        // long`), else `ffi`'s (`ffi::c_char`).
        let of_type = |primitive: bool| -> Vec<String> {
            types::all()
                .filter(|t| t.class == types::Class::Integer && t.primitive == primitive)
                .filter(|t| t.itanium.map(itanium::fundamental_name) == Some(c_type.as_str()))
                .map(|t| format!("`{}`", t.rust))
                .collect()
        };
        let mut rust = of_type(true);
        if rust.is_empty() {
            rust = of_type(false);
        }
        let suggestion = match rust.is_empty() {
            true => String::new(),
            false => format!(": declare it {}", rust.join(" or ")),
        };
        cx.error(
            ty,
            format!(
                "the template value parameter `{ident}` is `{c_type}` in the PTX's instances \
                 (`{instance}`), but declared as `{declared}`{suggestion}"
            ),
        );
        reported = true;
    }
    reported
}

/// Where a declared parameter list parts from an instance's.
enum Parting {
    /// Parameter `at` is `found` there (as the declaration would write it, with the
    /// template's type parameters where the declaration has them).
    Type { at: usize, found: CppType },
    /// The instance has `found` where the declaration has parameter `at` (or ends).
    Missing { at: usize, found: CppType },
    /// Parameter `at` and those after it are not the instance's.
    Extra { at: usize },
}

/// Rule: a template's declaration takes the parameters its instances take. Where no instance
/// does, the partings from the instance closest to the declaration (of the declaration's
/// template arguments, with the fewest), each reported at its parameter with what the PTX has
/// there and the Rust to write. `false` where no instance is of the declaration's arguments.
fn instance_params_differ(
    cx: &mut Errors,
    kernel: &Kernel,
    params: &[CppType],
    instances: &[&Entry],
    file: &PtxFile,
) -> bool {
    let mut closest: Option<(Vec<Parting>, &Entry, usize)> = None;
    for entry in instances {
        let Some(args) = instance_args(kernel, &entry.name) else {
            continue;
        };
        let Some(found) = demangle::param_types(&entry.name).and_then(|types| {
            types
                .iter()
                .map(|t| CppType::from_cpp(t))
                .collect::<Option<Vec<_>>>()
        }) else {
            continue;
        };
        let type_args: Vec<&CppType> = args
            .iter()
            .filter_map(|a| match a {
                TemplateArg::Type(ty) => Some(ty),
                _ => None,
            })
            .collect();
        let partings = partings(params, &found, &type_args);
        if partings.is_empty() {
            continue; // the declaration's but for something else (a struct's C++ name)
        }
        if closest
            .as_ref()
            .is_none_or(|(p, _, _)| partings.len() < p.len())
        {
            closest = Some((partings, entry, found.len()));
        }
    }
    let Some((partings, entry, count)) = closest else {
        return false;
    };
    let instance = demangle::shown(&entry.name);
    let generics = kernel.type_params();
    let rust = |ty: &CppType| rust_of(ty, &generics);
    let symbol = &kernel.symbol;
    let declared = kernel.params.len();
    let counts = format!(
        "`{symbol}`'s instances in {} take {count} parameter{} but {declared} {} declared here",
        file.shown,
        if count == 1 { "" } else { "s" },
        if declared == 1 { "is" } else { "are" }
    );
    for parting in partings {
        match parting {
            Parting::Type { at, found } => {
                let param = &kernel.params[at];
                let descriptor = found
                    .as_builtin()
                    .is_some_and(|t| t.rust == types::TENSOR_MAP[0].rust);
                if descriptor {
                    cx.error(
                        &param.ty,
                        format!(
                            "`{}: {}` is a TMA descriptor (`const __grid_constant__ CUtensorMap`) \
                             in the PTX's instance `{instance}`: declare `{}: TensorMap<E, N>`, \
                             with E its element type and N its rank (or `cuda_kernel::RawTensorMap` \
                             untyped)",
                            param.ident,
                            type_text(&param.ty),
                            param.ident
                        ),
                    );
                    continue;
                }
                let read_only = match (&param.ty, &found) {
                    (
                        Type::Ptr(p),
                        CppType::Pointer {
                            to_const: false, ..
                        },
                    ) if p.mutability.is_none() => {
                        " (with `#[kernel(read_only)]` before it where the kernel only reads \
                         through it, for a launcher that borrows it shared)"
                    }
                    _ => "",
                };
                cx.error(
                    &param.ty,
                    format!(
                        "`{}: {}` is `{}` in the PTX's instance `{instance}`: declare `{}: {}`{read_only}",
                        param.ident,
                        type_text(&param.ty),
                        demangle::for_messages(&found.demangled()),
                        param.ident,
                        rust(&found)
                    ),
                );
            }
            Parting::Missing { at, found } => {
                let place = match kernel.params.get(at) {
                    Some(next) => format!("before `{}`", next.ident),
                    None => match kernel.params.last() {
                        Some(last) => format!("after `{}`", last.ident),
                        None => "as its first".to_string(),
                    },
                };
                let message = format!(
                    "{counts}: the instance `{instance}` has a parameter `{}` {place} (declared \
                     in Rust as `{}`)",
                    demangle::for_messages(&found.demangled()),
                    rust(&found)
                );
                match kernel.params.get(at) {
                    Some(next) => cx.error(&next.ident, message),
                    None => cx.error(&kernel.ident, message),
                }
            }
            Parting::Extra { at } => {
                let param = &kernel.params[at];
                cx.error(
                    &param.ident,
                    format!(
                        "{counts}: `{}` and what follows it are not parameters of the instance \
                         `{instance}`",
                        param.ident
                    ),
                );
            }
        }
    }
    true
}

/// Where `declared` (with the template's type parameters) parts from `found`, an instance's
/// parameters, with `type_args` the instance's type arguments.
fn partings(declared: &[CppType], found: &[CppType], type_args: &[&CppType]) -> Vec<Parting> {
    let same = |d: &CppType, f: &CppType| substitute(d, type_args).same_but_class_names(f);
    if declared.len() == found.len() {
        return declared
            .iter()
            .zip(found)
            .enumerate()
            .filter(|(_, (d, f))| !same(d, f))
            .map(|(at, (d, f))| Parting::Type {
                at,
                found: generalized(d, f, type_args),
            })
            .collect();
    }
    let at = declared
        .iter()
        .zip(found)
        .position(|(d, f)| !same(d, f))
        .unwrap_or(declared.len().min(found.len()));
    if declared.len() < found.len() {
        // Nothing declared to compare with: the instance's type arguments are the template's
        // parameters wherever they appear (`float*` of `reduce0<float>` is `T*`).
        vec![Parting::Missing {
            at,
            found: generalized(&parameters_of(&found[at], type_args), &found[at], type_args),
        }]
    } else {
        vec![Parting::Extra { at }]
    }
}

/// `ty` (an instance's parameter type) with the template's type parameter of each of its
/// arguments in their places.
fn parameters_of(ty: &CppType, type_args: &[&CppType]) -> CppType {
    if let Some(i) = type_args.iter().position(|t| *t == ty) {
        return CppType::Param(i);
    }
    match ty {
        CppType::Pointer { to_const, to } => CppType::Pointer {
            to_const: *to_const,
            to: Box::new(parameters_of(to, type_args)),
        },
        other => other.clone(),
    }
}

/// `ty` with the template's type parameters replaced by an instance's arguments.
fn substitute(ty: &CppType, type_args: &[&CppType]) -> CppType {
    match ty {
        CppType::Param(i) => type_args.get(*i).map_or(ty.clone(), |t| (*t).clone()),
        CppType::Pointer { to_const, to } => CppType::Pointer {
            to_const: *to_const,
            to: Box::new(substitute(to, type_args)),
        },
        other => other.clone(),
    }
}

/// `found` (an instance's parameter type) with the template's type parameter back where the
/// declaration has it and the instance its argument: `float*` for a declared `*const T` of
/// `reduce0<float>` is `T*`.
fn generalized(declared: &CppType, found: &CppType, type_args: &[&CppType]) -> CppType {
    match (declared, found) {
        (CppType::Param(i), f) if type_args.get(*i) == Some(&f) => declared.clone(),
        (CppType::Pointer { to: d, .. }, CppType::Pointer { to_const, to: f }) => {
            CppType::Pointer {
                to_const: *to_const,
                to: Box::new(generalized(d, f, type_args)),
            }
        }
        (_, f) => f.clone(),
    }
}

/// A C++ type as a declaration writes it in Rust, a template type parameter by its declared
/// name (`*mut T`, `u32`, `cuda_kernel::half::f16`).
fn rust_of(ty: &CppType, generics: &[String]) -> String {
    match ty {
        CppType::Param(i) => generics
            .get(*i)
            .cloned()
            .unwrap_or_else(|| ty.rust("cuda_kernel")),
        CppType::Pointer { to_const, to } => format!(
            "*{} {}",
            if *to_const { "const" } else { "mut" },
            rust_of(to, generics)
        ),
        other => other.rust("cuda_kernel"),
    }
}

/// Rule: an instance takes as many parameters as declared, each of the size and alignment the
/// declaration gives it with the type arguments substituted (`layouts`, one per type parameter,
/// `None` where unknown). `{which}` in a problem's text stands for the instances it concerns.
fn instance_problems(
    kernel: &Kernel,
    generics: &[&str],
    layouts: &[Option<(usize, usize)>],
    entry: &Entry,
    instance: &str,
    problems: &mut Problems,
) {
    if entry.params.len() != kernel.params.len() {
        // Entries a run-time pattern matches may be other kernels: say how to set them apart.
        let hint = match &kernel.run_time_name {
            Some(name) => format!(
                ": if they are other kernels, declare them with a pattern of their own that fixes \
                 `{{{name}}}` (entries another declaration of the block binds are not members of \
                 this one)"
            ),
            None => String::new(),
        };
        problems.add(
            None,
            format!(
                "{{which}} take{} {} parameters in {{file}} but {} are declared{hint}",
                if entry.params.len() == 1 { "s" } else { "" },
                entry.params.len(),
                kernel.params.len()
            ),
            instance.to_string(),
        );
        return;
    }
    for (i, (param, ptx)) in kernel.params.iter().zip(&entry.params).enumerate() {
        let layout = match &param.ty {
            Type::Ptr(_) => Some((8, 8)),
            Type::Path(p) => p.path.get_ident().and_then(|name| {
                let name = name.to_string();
                match generics.iter().position(|g| *g == name) {
                    Some(k) => layouts.get(k).copied().flatten(),
                    None => types::primitive(&name).map(|t| (t.size, t.align)),
                }
            }),
            _ => None,
        };
        if let Some((size, align)) = layout {
            if (size, align) != (ptx.size, ptx.align) {
                problems.add(
                    Some(i),
                    format!(
                        "`{}: {}` is {size} byte{} in {{which}}, whose parameter {i} the PTX \
                         declares as {} ({} byte{})",
                        param.ident,
                        type_text(&param.ty),
                        if size == 1 { "" } else { "s" },
                        ptx.describe(),
                        ptx.size,
                        if ptx.size == 1 { "" } else { "s" },
                    ),
                    instance.to_string(),
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
