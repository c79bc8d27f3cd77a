//! C++ templates: their instances read from the PTX's symbols, each checked against the
//! declaration with its arguments substituted; where none is the declaration's, the mistake at
//! the parameter or value it concerns.

use syn::Type;
use syn::ext::IdentExt;

use crate::ast::{Kernel, KernelGeneric, Member, MemberType, Members};
use crate::check::type_text;
use crate::demangle;
use crate::itanium::{self, CppType, TemplateArg};
use crate::ptx::Entry;
use crate::report::Errors;
use crate::types::{self};

use super::*;

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
pub(super) fn check_template_instances(
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
pub(super) fn struct_names_in_instance(
    params: &[CppType],
    args: &[TemplateArg],
    entry: &str,
) -> Option<Vec<(usize, String)>> {
    let types = type_args(args);
    let found = demangle::param_cpp_types(entry)?;
    if found.len() != params.len() {
        return None;
    }
    let mut names = Vec::new();
    for (i, (declared, found)) in params.iter().zip(&found).enumerate() {
        let declared = substitute(declared, &types)?;
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

pub(super) fn template_instances(
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
        .filter(|e| itanium::without_nv_static_prefix(&e.name).starts_with(&prefix))
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
        let entry_name =
            itanium::without_internal_parts(itanium::without_nv_static_prefix(&entry.name));
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
        let type_args = type_args(&args);
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
    no_instance_error(cx, kernel, file, &instances);
    None
}

/// The error of a template declaration no instance of the PTX is: the instances there are,
/// the namespace it may be in, or the explicit instantiation to add.
fn no_instance_error(cx: &mut Errors, kernel: &Kernel, file: &PtxFile, instances: &[&Entry]) {
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
}

/// The template arguments of an instance's symbol, read back as the C++ types and values they
/// are, one for each of the declaration's generic parameters and each of the kind the parameter
/// declares (a type, or a value); `None` for an instance of another shape.
pub(super) fn instance_args(kernel: &Kernel, symbol: &str) -> Option<Vec<TemplateArg>> {
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
pub(super) fn namespace_hint(kernel: &Kernel, file: &PtxFile) -> Option<String> {
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
pub(super) fn value_types_differ(cx: &mut Errors, kernel: &Kernel, instances: &[&Entry]) -> bool {
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
pub(super) enum Parting {
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
pub(super) fn instance_params_differ(
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
        let Some(found) = demangle::param_cpp_types(&entry.name) else {
            continue;
        };
        let type_args = type_args(&args);
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
pub(super) fn partings(
    declared: &[CppType],
    found: &[CppType],
    type_args: &[&CppType],
) -> Vec<Parting> {
    let same = |d: &CppType, f: &CppType| {
        substitute(d, type_args).is_some_and(|d| d.same_but_class_names(f))
    };
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
pub(super) fn parameters_of(ty: &CppType, type_args: &[&CppType]) -> CppType {
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

/// An instance's type arguments, in order (its values and device functions left out).
pub(super) fn type_args(args: &[TemplateArg]) -> Vec<&CppType> {
    args.iter()
        .filter_map(|a| match a {
            TemplateArg::Type(ty) => Some(ty),
            _ => None,
        })
        .collect()
}

/// `ty` with the template's type parameters replaced by an instance's arguments (`None` for a
/// parameter the instance has no argument for).
pub(super) fn substitute(ty: &CppType, type_args: &[&CppType]) -> Option<CppType> {
    Some(match ty {
        CppType::Param(i) => (*type_args.get(*i)?).clone(),
        CppType::Pointer { to_const, to } => CppType::Pointer {
            to_const: *to_const,
            to: Box::new(substitute(to, type_args)?),
        },
        other => other.clone(),
    })
}

/// `found` (an instance's parameter type) with the template's type parameter back where the
/// declaration has it and the instance its argument: `float*` for a declared `*const T` of
/// `reduce0<float>` is `T*`.
pub(super) fn generalized(declared: &CppType, found: &CppType, type_args: &[&CppType]) -> CppType {
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
pub(super) fn rust_of(ty: &CppType, generics: &[String]) -> String {
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
