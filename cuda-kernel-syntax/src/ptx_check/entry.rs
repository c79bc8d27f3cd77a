//! An `extern "C"` kernel (or one bound by its symbol) against its PTX entry: the entry is
//! there, takes as many parameters as declared, each of the declared size and alignment.

use syn::Type;
use syn::ext::IdentExt;

use crate::ast::{Kernel, PtxLayout};
use crate::check::type_text;
use crate::demangle;
use crate::itanium::CppType;
use crate::ptx::{self, Entry, PtxParam};
use crate::report::Errors;
use crate::types::{self, Class};

use super::*;

/// Whether a declared parameter type is the type `found` in a symbol, but for the namespaces of a
/// struct's name (`Pair` is `geo::Pair`).
pub(super) fn same_but_namespaces(declared: &CppType, found: &CppType) -> bool {
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
pub(super) fn entry_by_struct_names(
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
pub(super) fn entry_with_structs(
    declared: &[CppType],
    qualified: &str,
    file: &PtxFile,
    fit: fn(&CppType, &CppType) -> bool,
) -> Option<(String, Vec<(usize, String)>)> {
    let mut found = file.entries.iter().filter_map(|e| {
        if demangle::function_name(&e.name).as_deref() != Some(qualified) {
            return None;
        }
        let types = demangle::param_cpp_types(&e.name)?;
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

/// What a `name = "..."` that is no entry of the PTX names there as C++.
pub(super) enum ByCppName {
    /// Not such a name, or an entry's exact symbol: bound as written.
    NotApplicable,
    /// The one entry it names (its symbol, as this nvcc run wrote it).
    Found(String),
    /// Reported: it names several.
    Ambiguous,
}

/// A kernel bound by its C++ name (`name = "k_bin<op_repeat, float>"`, `name =
/// "(anonymous namespace)::fill"`, `name = "vol"` for `vol(int volatile*)`): the one entry
/// whose demangled name, nvcc's internal names left out, is the one written
/// ([`demangle::names_entry`]). Its symbol may carry a hash of the source's path or a counter
/// of the nvcc run; the declaration does not, and loading finds the entry in whatever run made
/// the module (`KernelInfo::load`).
pub(super) fn entry_by_cpp_name(cx: &mut Errors, kernel: &Kernel, file: &PtxFile) -> ByCppName {
    let Some(name) = &kernel.name_arg else {
        return ByCppName::NotApplicable;
    };
    if kernel.symbol_at_load() || kernel.cpp.is_some() {
        return ByCppName::NotApplicable;
    }
    let written = name.value();
    if ptx::find(&file.entries, &written).is_some() {
        return ByCppName::NotApplicable;
    }
    let found: Vec<&Entry> = file
        .entries
        .iter()
        .filter(|e| demangle::names_entry(&written, &e.name))
        .collect();
    match found[..] {
        [] => ByCppName::NotApplicable,
        [one] => ByCppName::Found(one.name.clone()),
        _ => {
            let list: Vec<String> = found
                .iter()
                .map(|e| format!("`{}`", demangle::shown(&e.name)))
                .collect();
            cx.error(
                name,
                format!(
                    "`{written}` names {} kernels of {}: {}; write the one you mean with its \
                     parameter list (`name = \"{}\"`)",
                    found.len(),
                    file.shown,
                    list.join(", "),
                    demangle::instance_name(&found[0].name)
                        .zip(demangle::param_types(&found[0].name))
                        .map(|(n, p)| format!("{n}({})", p.join(", ")))
                        .unwrap_or_default()
                ),
            );
            ByCppName::Ambiguous
        }
    }
}

/// Rule: the kernel's entry symbol is an `.entry` of the PTX. When only C++-mangled entries of
/// that name exist, say so and how to bind one.
pub(super) fn check_entry_exists<'a>(
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
    // The symbol as messages show it: a mangled one (derived from the declaration, or written)
    // as the C++ it stands for.
    let wanted = match demangle::demangle(symbol) {
        Some(_) => demangle::written(symbol),
        None => symbol.to_string(),
    };
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
                format!("{} has no entry `{wanted}`{hint}", file.shown),
            );
            return None;
        }
    }
    let shown = |e: &Entry| format!("`{}`", demangle::shown(&e.name));
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
            "{} has no entry `{wanted}`, the C++ kernel #[kernel(cpp)] derives from this \
             declaration, but has {}: the parameter types differ from the C++ declaration's (i8 mangles as \
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
                demangle::written(&first.name)
            )
        } else {
            format!(
                "bind it with #[kernel(cpp)], which derives its symbol, or #[kernel(name = \"{}\")]",
                demangle::written(&first.name)
            )
        };
        format!(
            "{} has no entry `{wanted}`, but has the C++ kernel {} taking the declared parameter \
             types: {how}",
            file.shown,
            shown(first)
        )
    } else if !mangled.is_empty() {
        format!(
            "{} has no entry `{wanted}`; its C++ kernel{} of that name {} {}, and none takes the \
             declared parameter types ({}): declare the parameters of the one you mean",
            file.shown,
            if mangled.len() > 1 { "s" } else { "" },
            if mangled.len() > 1 { "are" } else { "is" },
            names.join(", "),
            declared.unwrap_or_default().join(", ")
        )
    } else if file.entries.is_empty() {
        format!(
            "{} has no entry `{wanted}`: it declares no kernels at all",
            file.shown
        )
    } else if let Some((entry, name)) = near_miss(
        match &kernel.name_arg {
            Some(_) => symbol,
            None => &base,
        },
        &file.entries,
    ) {
        format!(
            "{} has no entry `{wanted}`, but has `{}`: if that is the kernel, bind it with \
             #[kernel(name = \"{name}\")]{}",
            file.shown,
            demangle::written(&entry.name),
            if kernel.cpp.is_some() {
                " in place of `cpp`"
            } else {
                ""
            }
        )
    } else {
        let names: Vec<_> = file
            .entries
            .iter()
            .map(|e| demangle::shown(&e.name))
            .collect();
        format!(
            "{} has no entry `{wanted}`; its entries are: {}",
            file.shown,
            names.join(", ")
        )
    };
    cx.error(span, message);
    None
}

/// The one entry whose name is `name` but for case, underscores or a letter (two in a long
/// name): `saxpyKernel` for `saxpy_kernel`, `vector_ad` for `vector_add`, with the name `#[kernel(name = "...")]`
/// binds it by: its symbol, or a C++ kernel's name as C++ writes it.
fn near_miss<'a>(name: &str, entries: &'a [Entry]) -> Option<(&'a Entry, String)> {
    let key = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let wanted = key(name);
    let named: Vec<(&Entry, String, String)> = entries
        .iter()
        .filter_map(|e| {
            let (plain, bound) = match demangle::instance_name(&e.name) {
                Some(instance) => {
                    let function = demangle::function_name(&e.name)?;
                    let last = function
                        .rsplit("::")
                        .next()
                        .unwrap_or(&function)
                        .to_string();
                    (last, instance)
                }
                None => (e.name.clone(), e.name.clone()),
            };
            Some((e, key(&plain), bound))
        })
        .collect();
    let alike: Vec<_> = named.iter().filter(|(_, k, _)| *k == wanted).collect();
    // A letter off in a short name, two in a long one.
    let most = if wanted.len() < 12 { 1 } else { 2 };
    let close: Vec<_> = match alike.is_empty() && wanted.len() >= 5 {
        true => named
            .iter()
            .filter(|(_, k, _)| edit_distance(k, &wanted) <= most)
            .collect(),
        false => alike,
    };
    match close[..] {
        [(entry, _, bound)] => Some((entry, bound.clone())),
        _ => None,
    }
}

/// Levenshtein distance between two short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substituted = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Rule: the declaration has as many parameters as the entry.
/// When the counts differ and a parameter before the end already sits in a slot of another
/// shape, that parameter is named (a parameter dropped from the middle shifts every later one).
/// Returns whether the per-parameter checks still make sense.
pub(super) fn check_param_count(
    cx: &mut Errors,
    kernel: &Kernel,
    entry: &Entry,
    shown: &str,
) -> bool {
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
                     and `{}` is declared where the PTX has parameter {} as {} ({}): a parameter \
                     is {} before `{}`",
                    demangle::shown(&entry.name),
                    param.ident,
                    i + 1,
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
                    demangle::shown(&entry.name),
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
                demangle::shown(&entry.name),
                missing.join(", ")
            ),
        );
    }
    true
}

/// Size, alignment and float-ness of the types whose layout the front end knows itself:
/// pointers and Rust primitives.
pub(super) fn known_layout(ty: &Type) -> Option<(usize, usize, Option<bool>)> {
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
pub(super) fn check_param(
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
    if kernel.params[index].is_descriptor() {
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
        // A struct of the user's in place of a built-in type (a hand-made `float2`): the
        // built-in types, and the attribute that aligns the struct as the PTX does.
        let mut fits = suggestion(ptx);
        let built_in = match ty {
            Type::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|s| types::by_name(&s.ident.to_string()).is_some()),
            _ => true,
        };
        let any_fits = !types::fitting(&ptx.ty, ptx.array_len, ptx.size, ptx.align).is_empty();
        if !built_in && any_fits {
            fits = format!(
                "{fits}, or a struct of {} bytes with #[repr(C, align({}))]",
                ptx.size, ptx.align
            );
        }
        return Some(PtxLayout {
            size: ptx.size,
            align: ptx.align,
            message: format!(
                "{declared} does not match parameter {} of `{}`, which the PTX declares as \
                 {ptx_side}: did you mean {fits}?",
                index + 1,
                demangle::shown(&kernel.symbol),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(names: &[&str]) -> Vec<Entry> {
        names
            .iter()
            .map(|n| Entry {
                name: n.to_string(),
                line: 1,
                params: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn a_near_miss_is_one_entry_alike_but_for_case_underscores_or_a_letter() {
        let ptx = entries(&[
            "saxpyKernel",
            "_Z9vectorAddPKfS0_Pfi",
            "vector_sub",
            "scale",
        ]);
        let near = |name: &str| near_miss(name, &ptx).map(|(_, bound)| bound);
        assert_eq!(near("saxpy_kernel").as_deref(), Some("saxpyKernel"));
        // A C++ kernel by the name `name = "..."` binds it by.
        assert_eq!(near("vector_add").as_deref(), Some("vectorAdd"));
        assert_eq!(near("vector_sb").as_deref(), Some("vector_sub"));
        assert_eq!(near("layernorm_forwrd_kernel3"), None);
        // Another kernel, not a misspelling of one: two letters apart in a short name, or too
        // short to say.
        assert_eq!(near("vector_mul"), None);
        assert_eq!(near("scal"), None);
        assert_eq!(edit_distance("vector_sub", "vector_add"), 3);
    }
}
