//! Declarations from the source: the `#[kernel]` block of a `.cu` file, written from its
//! device-side preprocessed text (`nvcc -E` with the PTX build's architecture and flags, so
//! that `#if __CUDA_ARCH__` branches and macros expand as they do for the PTX).
//!
//! A small scanner of our own rather than tree-sitter: it needs no C compiler at build time,
//! and preprocessed text leaves only what it must read: `__attribute__((global))` function
//! definitions, their parameter lists, the typedefs they use and the `extern "C"` and namespace
//! blocks around them, the struct definitions they take and the template heads over them.
//! Kernels it cannot express (in a namespace, over a struct with bit-fields or methods, a
//! template without instances) are named in a warning with the reason, never skipped in
//! silence.

use std::fmt::Write as _;

use cuda_kernel_syntax::types;

use crate::naming::{self, ident as rust_name};

mod accounting;
mod compiled;
mod families;
mod read;
mod rust;
mod write;

pub use accounting::{Accounting, Generated, entry_function};
pub use families::NamedFamily;
use families::*;
use read::*;
use rust::*;
use write::*;

/// What a file's block is generated with.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    /// The block's `ptx = "..."` path (`$OUT_DIR/fill.ptx`).
    pub ptx: &'a str,
    /// The module type's name.
    pub module: &'a str,
    /// Kernels the crate declares by hand: left out.
    pub hand_written: &'a [String],
    /// The PTX's entry symbols: a template is declared where it has instances there.
    pub entries: &'a [String],
    /// C structs bound to Rust types of the crate (`("Particle", "crate::params::Particle")`).
    pub structs: &'a [(String, String)],
    /// Families the build script names for this file (`u{op}_{T}` as `unary`).
    pub families: &'a [NamedFamily],
    /// Kernels of headers that the block of a file generated before declares (a header
    /// included by several files is declared once, in the first whose PTX has its kernels):
    /// left out.
    pub elsewhere: &'a [String],
    /// The compiler's facts of the file ([`crate::facts`]): what the reader of the
    /// preprocessed text cannot type (class-template instances, structs with methods or base
    /// classes, types of other headers) is declared from them, entry by entry.
    pub facts: Option<&'a crate::facts::Facts>,
}

/// The `#[kernel]` block of one `.cu` file, from its preprocessed text; `from_here` tells the
/// line markers of the file itself and its local headers from system headers' and the build
/// step's own. Kernels of local headers are declared like the file's own, once.
pub fn generate(
    source: &str,
    preprocessed: &str,
    from_here: &dyn Fn(&str) -> bool,
    options: &Options<'_>,
) -> Generated {
    let Options {
        ptx,
        module,
        hand_written,
        entries,
        structs: bound,
        families: named,
        elsewhere,
        facts,
    } = *options;
    // A hand-written name may be a pattern (`u{op}_{T}`): the kernels it matches are its.
    let tag_names: Vec<String> = family_tags().into_iter().map(|(t, _)| t).collect();
    // One written as an instance's or an overload's C++ name (`name = "scale<float>"`,
    // `fill(double*, int)`) is its entry's (a qualified name is its kernel's, above).
    let by_hand = |name: &str| {
        hand_written.iter().any(|h| {
            h == name
                || (h.contains('{') && matches(h, name, &tag_names).is_some())
                || (name.starts_with("_Z")
                    && h.contains(['<', '('])
                    && cuda_kernel_syntax::demangle::names_entry(h, name))
        })
    };
    let Scanned {
        kernels: found,
        typedefs,
        structs: defined,
        enums,
        toolkit,
        enum_defs,
    } = scan(preprocessed, from_here);
    let mut from_facts = facts.map(|facts| {
        compiled::FromFacts::new(facts, defined.iter().map(|d| d.qualified()).collect())
    });
    // The file's own structs, each once its fields read (nested ones first); bound ones are
    // the crate's.
    let mut structs: Vec<(String, String)> = bound.to_vec();
    let mut struct_items: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut struct_problems: Vec<(String, String)> = Vec::new();
    // The file's type names (naming.rs): the module type's, the structs', then the launchers'.
    let mut types = naming::TypeNames::default();
    types.reserve(module);
    // Modules holding structs whose names other types have, by namespace.
    let mut struct_modules: Vec<(String, String)> = Vec::new();
    for def in defined.iter().filter(|d| d.here) {
        let qualified = def.qualified();
        // Bound by the build script (by its name or its qualified one), or read already.
        if bound.iter().any(|(c, _)| *c == qualified || *c == def.name)
            || structs.iter().any(|(c, _)| *c == qualified)
        {
            continue;
        }
        // Its name, or where another type has it (a struct of another namespace, the module
        // type), its name in a module named after its namespace (`b::Pair`, `global::Kernels`):
        // the PTX check and the symbols see the struct by its last segment, as C++ names it.
        let rust = match types.is_taken(&def.name) || rust_name(&def.name) != def.name {
            false if naming::free_type_name(&def.name) => {
                types.claim(std::slice::from_ref(&def.name))
            }
            // `Box`, `Float4`: a name #[kernel] reads as its own.
            false => types.claim(&[format!("{}_", def.name)]),
            true => {
                let scope = def
                    .namespace
                    .as_deref()
                    .unwrap_or("global")
                    .replace("::", "_");
                let scope = match struct_modules.iter().find(|(n, _)| *n == scope) {
                    Some((_, m)) => m.clone(),
                    None => {
                        let m = types.claim(&[naming::module(&scope)]);
                        struct_modules.push((scope, m.clone()));
                        m
                    }
                };
                format!("{scope}::{}", rust_name(&def.name))
            }
        };
        match struct_item(def, &rust, &typedefs, &structs, source) {
            Ok((item, uses)) => {
                structs.push((qualified.clone(), rust));
                struct_items.push((qualified, item, uses));
            }
            Err(why) => {
                // Its name is free for a type of the compiler's facts.
                types.release(&rust);
                struct_problems.push((qualified, why))
            }
        }
    }
    // A struct of the file that could not be read still hides one of the same name in an
    // enclosing namespace, as in C++: found, and refused (an empty Rust name).
    for (qualified, _) in &struct_problems {
        structs.push((qualified.clone(), String::new()));
    }
    // The file's enums, for parameters taking a value of one: a `#[repr(C)]` struct of its
    // base type (`pool_op(1)`), named in symbols by the enum's C++ name, its enumerators as
    // constants.
    for def in enum_defs.iter().filter(|d| d.here) {
        let qualified = qualified(def.namespace.as_deref(), &def.name);
        if structs.iter().any(|(c, _)| *c == qualified) {
            continue;
        }
        let base = match &def.base[..] {
            [] => Some("i32".to_string()),
            words => builtin(&c_spelling(words)).filter(|_| {
                types::all()
                    .any(|t| t.cuda == c_spelling(words) && t.class == types::Class::Integer)
            }),
        };
        let Some(base) = base else {
            struct_problems.push((
                qualified,
                "an enum of a base type this generator does not read".into(),
            ));
            continue;
        };
        // In UpperCamelCase (`pool_op` is `PoolOp`): a tuple struct, which no parameter of the
        // file or of a launcher (`config`) may be named as.
        let camel = cuda_kernel_syntax::ast::upper_camel_case(&def.name);
        let rust = match naming::free_type_name(&camel) {
            true => types.claim(&[camel.clone(), format!("{camel}Enum")]),
            false => types.claim(&[format!("{camel}Enum")]),
        };
        let consts: String = def
            .enumerators
            .iter()
            .map_while(|(name, value)| value.map(|v| (name, v)))
            .map(|(name, value)| {
                format!(
                    "    /// `{qualified}::{name}`.\n    pub const {}: {rust} = {rust}({value});\n",
                    rust_name(name)
                )
            })
            .collect();
        let consts = match consts.is_empty() {
            true => String::new(),
            false => format!("#[allow(non_upper_case_globals)]\nimpl {rust} {{\n{consts}}}\n"),
        };
        let item = format!(
            "/// `enum {qualified}` of {source}: a value of it.\n\
             #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::cuda_kernel::KernelParam)]\n\
             #[kernel_param(cuda_name = \"{}\")]\n#[repr(C)]\n\
             pub struct {rust}(pub {base});\n{consts}",
            spelled_cuda_name(&qualified)
        );
        structs.push((qualified.clone(), rust));
        struct_items.push((qualified, item, Vec::new()));
    }
    let mut out = Generated::default();
    let mut kernels: Vec<Declared> = Vec::new();
    // The fn names of `kernels`, in Rust, each computed once.
    let mut fn_idents: Vec<String> = Vec::new();
    // Every kernel the file defines, declared or not: what a named family may match.
    let defined: Vec<String> = found.iter().map(|k| k.name.clone()).collect();
    // The kernels considered, as C++ names them (`ns::k` in a namespace): those not declared
    // in the end are the warned ones.
    let mut considered: Vec<(String, String)> = Vec::new();
    for kernel in found {
        let qualified = qualified(kernel.namespace.as_deref(), &kernel.name);
        if by_hand(&qualified) || elsewhere.contains(&qualified) {
            continue;
        }
        considered.push((kernel.name.clone(), qualified.clone()));
        let own = std::path::Path::new(&kernel.file)
            .file_name()
            .is_some_and(|f| f.to_string_lossy() == source);
        if !own {
            out.from_headers.push(qualified.clone());
        }
        let mut warn = |why: String| {
            out.warnings
                .push(format!("{source}: `{qualified}` is not generated: {why}"));
        };
        // `Self`, `self`, `super`, `crate`, `_`: no Rust identifier, raw or not, spells them,
        // and a C++ kernel's symbol is derived from its fn's name; a plain one is bound by its
        // symbol (below), a template's instances have one each.
        let unspelled = rust_name(&kernel.name).trim_start_matches("r#") != kernel.name;
        if unspelled && !kernel.extern_c {
            warn(format!(
                "named `{}`, which no Rust identifier spells: declare each instance by hand \
                 with #[kernel(name = \"<its symbol>\")]",
                kernel.name
            ));
            continue;
        }
        // In an anonymous namespace, its symbol holds a hash of the source's path; taking a
        // `volatile` pointer, a symbol no Rust type derives: either is bound by its C++ name
        // (`name = "(anonymous namespace)::fill"`), which the PTX check finds, whatever the
        // hash, and loading finds in whatever nvcc run made the module.
        let anonymous = kernel
            .namespace
            .as_deref()
            .is_some_and(|ns| ns.split("::").any(str::is_empty));
        let volatile = kernel.params.iter().any(|p| {
            p.iter()
                .any(|t| matches!(t, Token::Ident(w) if w == "volatile"))
        });
        // A variadic template (`template <typename... Args>`): no Rust generic stands for a
        // pack, so each instance of the PTX is declared by its C++ name (`k<op, float>`); so
        // is a template bound by its C++ name.
        let variadic = kernel
            .template
            .as_ref()
            .is_some_and(|head| head.iter().any(|p| is_pack(p)));
        // The names of its parameters and template parameters, one scope.
        let mut taken: Vec<String> = Vec::new();
        // A template no Rust generic declaration spells (its instances' arguments are class
        // templates, or functions whose types take references; a value parameter of a type
        // the generator does not read) is declared instance by instance, by C++ name.
        let mut by_instance: Option<String> =
            (variadic || (kernel.template.is_some() && (anonymous || volatile))).then(String::new);
        let generics = match &kernel.template {
            None => Vec::new(),
            Some(_) if by_instance.is_some() => Vec::new(),
            Some(head) => {
                let instance = cuda_kernel_syntax::itanium::template_instance_prefix(&qualified);
                if !entries.iter().any(|e| {
                    cuda_kernel_syntax::itanium::without_nv_static_prefix(e).starts_with(&instance)
                }) {
                    warn(
                        "a template the PTX has no instance of (nvcc compiles the instances the \
                         .cu names: add an explicit instantiation)"
                            .to_string(),
                    );
                    continue;
                }
                // An instance is declared by the Rust of its arguments: types the runtime
                // names and values. One whose arguments are class templates
                // (`DefaultAttention<false, true>`) or other classes no Rust type stands for
                // cannot be.
                let readable = entries
                    .iter()
                    .filter(|e| {
                        cuda_kernel_syntax::itanium::without_nv_static_prefix(e)
                            .starts_with(&instance)
                    })
                    .any(|e| {
                        cuda_kernel_syntax::demangle::template_args(e).is_some_and(|args| {
                            args.iter().all(|a| {
                                cuda_kernel_syntax::cpp::TemplateArg::from_demangled(a).is_some()
                            })
                        })
                    });
                let generic = match readable {
                    false => Err("arguments no Rust type names".to_string()),
                    true => Ok(()),
                };
                match generic.and_then(|()| {
                    head.iter()
                        .map(|p| {
                            template_param(
                                p,
                                &enums,
                                kernel.namespace.as_deref(),
                                &typedefs,
                                &structs,
                                &mut taken,
                            )
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|why| format!("a template with {why}"))
                }) {
                    Ok(generics) => generics,
                    Err(why) => {
                        by_instance = Some(why);
                        Vec::new()
                    }
                }
            }
        };
        if let Some(generic_why) = &by_instance {
            let instance = cuda_kernel_syntax::itanium::template_instance_prefix(&qualified);
            let mut any = false;
            // An instance in an anonymous namespace by the name its symbol demangles to (the
            // namespace's symbol holds a hash).
            let of_kernel = |e: &&String| {
                cuda_kernel_syntax::itanium::without_nv_static_prefix(e).starts_with(&instance)
                    || (anonymous
                        && cuda_kernel_syntax::demangle::function_name(e).as_deref()
                            == Some(qualified.as_str()))
            };
            for entry in entries.iter().filter(of_kernel) {
                any = true;
                // An instance the crate declares by hand (by its C++ name) is its.
                if by_hand(entry) {
                    continue;
                }
                match pack_instance(&kernel, entry, &structs) {
                    Ok(params) => {
                        let Some(cpp_name) = bound_name(entry, entries) else {
                            warn(format!(
                                "its instance `{}` has a symbol this generator does not read",
                                cuda_kernel_syntax::demangle::shown(entry)
                            ));
                            continue;
                        };
                        let declared = bound_by_cpp_name(
                            &kernel.name,
                            &cpp_name,
                            entry,
                            params,
                            &kernels,
                            &mut fn_idents,
                        );
                        kernels.push(declared);
                    }
                    Err(why) => match from_facts.as_mut().and_then(|f| {
                        declared_from_facts(
                            f,
                            &kernel,
                            entry,
                            entries,
                            &structs,
                            &mut types,
                            source,
                            &kernels,
                            &mut fn_idents,
                        )
                    }) {
                        Some(Ok(declared)) => kernels.push(declared),
                        _ => warn(format!(
                            "its instance `{}` {why}{}",
                            cuda_kernel_syntax::demangle::written(entry),
                            match generic_why.is_empty() {
                                true => String::new(),
                                false => format!(" (and as a template, {generic_why})"),
                            }
                        )),
                    },
                }
            }
            if !any {
                warn(
                    "a template the PTX has no instance of (nvcc compiles the instances the \
                     .cu names: add an explicit instantiation)"
                        .to_string(),
                );
            }
            continue;
        }
        let type_params: Vec<(String, String)> = generics
            .iter()
            .filter_map(|g| g.type_param.clone())
            .collect();
        let generics: Vec<String> = generics.into_iter().map(|g| g.text).collect();
        let params: Result<Vec<(String, String)>, String> = kernel
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                param(
                    p,
                    i,
                    &typedefs,
                    &type_params,
                    &structs,
                    kernel.namespace.as_deref(),
                    &mut taken,
                )
                .map_err(|why| format!("parameter {} {why}", i + 1))
            })
            .collect();
        match params {
            Ok(params) => {
                let ident = rust_name(&kernel.name);
                // One Rust name per block: a second kernel of the same name in another
                // namespace is declared in a block of its own.
                let twin = fn_idents.iter().filter(|i| **i == ident).count();
                fn_idents.push(ident);
                kernels.push(Declared {
                    namespace: kernel.namespace,
                    extern_c: kernel.extern_c,
                    generics,
                    params,
                    twin,
                    name: kernel.name,
                    symbol: None,
                    shown: None,
                    cpp_name: ((anonymous || volatile) && !kernel.extern_c)
                        .then_some(qualified.clone()),
                })
            }
            Err(why) => {
                // The compiler's facts type each of its entries (a template's instances each
                // by its C++ name).
                if let Some(from) = from_facts.as_mut() {
                    let mine: Vec<&String> = entries
                        .iter()
                        .filter(|e| {
                            let function = entry_function(e);
                            function == qualified
                                || (kernel.template.is_some()
                                    && cuda_kernel_syntax::itanium::without_nv_static_prefix(e)
                                        .starts_with(
                                            &cuda_kernel_syntax::itanium::template_instance_prefix(
                                                &qualified,
                                            ),
                                        ))
                        })
                        .collect();
                    // Instances the crate declares by hand (by their C++ names) are its.
                    let by_hand_too = mine.len();
                    let mine: Vec<&String> = mine.into_iter().filter(|e| !by_hand(e)).collect();
                    if by_hand_too > 0 && mine.is_empty() {
                        continue;
                    }
                    let mut all: Vec<Declared> = Vec::new();
                    let mut facts_why = None;
                    for entry in &mine {
                        match declared_from_facts(
                            from,
                            &kernel,
                            entry,
                            entries,
                            &structs,
                            &mut types,
                            source,
                            &kernels,
                            &mut fn_idents,
                        ) {
                            Some(Ok(declared)) => all.push(declared),
                            Some(Err(why)) => {
                                facts_why = Some(why);
                                break;
                            }
                            None => break,
                        }
                    }
                    if all.len() == mine.len() && !all.is_empty() {
                        kernels.extend(all);
                        continue;
                    }
                    // What the compiler says is the reason.
                    if let Some(why) = facts_why {
                        warn(format!(
                            "its {why}: declare the kernel by hand, with a \
                             #[derive(KernelParam)] struct of that layout"
                        ));
                        continue;
                    }
                }
                // Why a struct of the file could not be generated, where that is the reason.
                let detail = struct_problems
                    .iter()
                    .find(|(name, _)| why.contains(&format!("`{name}`")))
                    .map(|(name, problem)| format!(" (`{name}`: {problem})"))
                    .unwrap_or_default();
                warn(format!("its {why}{detail}"));
            }
        }
    }
    let families = families(
        &kernels
            .iter()
            .filter(|k| k.twin == 0)
            .cloned()
            .collect::<Vec<_>>(),
        hand_written,
        named,
        entries,
        &mut out.warnings,
        source,
    );
    let mut items = String::new();
    // The launcher types' names (naming.rs): families first, then kernels of the global
    // namespace, then those of namespaces, each in the file's order.
    let camel = |name: &str| cuda_kernel_syntax::ast::upper_camel_case(name);
    let rename = |claimed: String, name: &str| match claimed == camel(name) {
        true => String::new(),
        false => format!(", rename = {claimed}"),
    };
    let family_renames: Vec<String> = families
        .iter()
        .map(|f| rename(types.claim(&[camel(&f.name)]), &f.name))
        .collect();
    let in_family = |kernel: &Declared| {
        kernel.twin == 0 && families.iter().any(|f| f.members.contains(&kernel.name))
    };
    let mut order: Vec<usize> = (0..kernels.len())
        .filter(|&i| !in_family(&kernels[i]))
        .collect();
    order.sort_by_key(|&i| kernels[i].namespace.is_some());
    let mut kernel_renames: Vec<String> = vec![String::new(); kernels.len()];
    for i in order {
        let claimed = types.launcher(&kernels[i].qualified());
        kernel_renames[i] = rename(claimed, &rust_name(&kernels[i].name));
    }
    for (family, rename) in families.iter().zip(&family_renames) {
        let list: Vec<String> = family
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        // `get_rows_{q}`, chosen by name alone, has no type parameter.
        let generics = match family.type_params.is_empty() {
            true => String::new(),
            false => format!("<{}>", family.type_params.join(", ")),
        };
        let _ = write!(
            items,
            "    /// `{}` of {source}: {}.\n    #[kernel(name = \"{}\"{rename})]\n    \
             #[allow(non_snake_case)]\n    pub fn {}{generics}({});\n",
            family.pattern,
            family.members.join(", "),
            family.pattern,
            family.name,
            list.join(", ")
        );
        out.declared.extend(family.members.iter().cloned());
        if named.iter().any(|n| n.pattern == family.pattern) {
            out.named_families.push(family.pattern.clone());
        }
    }
    for family in named {
        let matched = defined
            .iter()
            .any(|k| matches(&family.pattern, k, &tag_names).is_some());
        if !matched {
            out.warnings.push(format!(
                "{source}: the family `{}` ({}) matches no kernel of the file",
                family.pattern, family.name
            ));
        }
    }
    // Twins (`other::plain` beside `ns::plain`), each block of them after the main one.
    let mut twin_blocks: Vec<String> = Vec::new();
    for (kernel, rename) in kernels
        .iter()
        .zip(&kernel_renames)
        .filter(|(k, _)| !in_family(k))
    {
        // A type parameter named as the launcher itself (`n<N>` is `N<N>`) takes a `_`, in the
        // parameters' types too.
        let launcher = match rename.split_once("rename = ") {
            Some((_, name)) => name.to_string(),
            None => cuda_kernel_syntax::ast::upper_camel_case(&rust_name(&kernel.name)),
        };
        let mut generics_list: Vec<String> = kernel.generics.clone();
        let mut param_types: Vec<String> = kernel.params.iter().map(|(_, t)| t.clone()).collect();
        if let Some(at) = generics_list.iter().position(|g| *g == launcher) {
            let mut renamed = format!("{launcher}_");
            while generics_list.contains(&renamed) {
                renamed.push('_');
            }
            for ty in &mut param_types {
                *ty = replace_words(ty, |w| (w == launcher).then_some(renamed.as_str()));
            }
            generics_list[at] = renamed;
        }
        // A parameter named as a type of the file (a tuple struct) or `None` takes a `_`, and
        // stays unique among the kernel's.
        let mut used: Vec<String> = kernel
            .params
            .iter()
            .map(|(n, _)| n.rsplit(' ').next().unwrap_or(n).to_string())
            .collect();
        let list: Vec<String> = kernel
            .params
            .iter()
            .zip(&param_types)
            .map(|((n, _), t)| {
                let (attr, name) = match n.rsplit_once(' ') {
                    Some((attr, name)) => (format!("{attr} "), name),
                    None => (String::new(), n.as_str()),
                };
                let mut unshadowed = naming::unshadowed(name, &types);
                if unshadowed != name {
                    while used.contains(&unshadowed) || types.is_taken(&unshadowed) {
                        unshadowed.push('_');
                    }
                    used.push(unshadowed.clone());
                }
                format!("{attr}{unshadowed}: {t}")
            })
            .collect();
        // A name a raw identifier cannot spell (`Self`, declared `Self_`) gives its symbol.
        let fn_ident = rust_name(&kernel.name);
        let spelled = fn_ident.trim_start_matches("r#") == kernel.name;
        let cpp = match (kernel.extern_c, &kernel.namespace) {
            // An instance of a variadic template, a kernel of an anonymous namespace: by its
            // C++ name.
            _ if kernel.cpp_name.is_some() => format!(
                "    #[kernel(name = \"{}\"{rename})]\n",
                kernel.cpp_name.as_deref().unwrap_or_default()
            ),
            (true, _) if !spelled => format!("    #[kernel(name = \"{}\"{rename})]\n", kernel.name),

            (true, _) if rename.is_empty() => String::new(),
            (true, _) => format!("    #[kernel({})]\n", &rename[2..]),
            (false, None) => format!("    #[kernel(cpp{rename})]\n"),
            (false, Some(ns)) => format!("    #[kernel(cpp, namespace = \"{ns}\"{rename})]\n"),
        };
        let generics = if kernel.generics.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = generics_list
                .iter()
                .map(|g| naming::unshadowed_generic(g, &types))
                .collect();
            format!("<{}>", list.join(", "))
        };
        // Names as the source writes them (`N`, `transposeNaive`, `const blockSize: u32`).
        let allow = if kernel.generics.is_empty() {
            "#[allow(non_snake_case)]"
        } else {
            "#[allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]"
        };
        let item = format!(
            "    /// `{}` of {source}.\n{cpp}    {allow}\n    pub fn {}{generics}({});\n",
            kernel.shown.clone().unwrap_or_else(|| kernel.qualified()),
            rust_name(&kernel.name),
            list.join(", ")
        );
        match kernel.twin {
            0 => items.push_str(&item),
            n => {
                if twin_blocks.len() < n {
                    twin_blocks.resize(n, String::new());
                }
                twin_blocks[n - 1].push_str(&item);
            }
        }
        out.declared
            .push(kernel.symbol.clone().unwrap_or_else(|| kernel.qualified()));
    }
    // Every entry of the PTX, by the kernel it belongs to.
    let declared_here: Vec<String> = kernels.iter().map(Declared::qualified).collect();
    let warned: Vec<&str> = considered
        .iter()
        .filter(|(_, qualified)| !declared_here.contains(qualified))
        .map(|(_, qualified)| qualified.as_str())
        .collect();
    out.from_headers.retain(|name| declared_here.contains(name));
    out.accounting.entries = entries.len();
    for entry in entries {
        let function = entry_function(entry);
        let bucket = if declared_here.contains(&function) || out.declared.iter().any(|d| d == entry)
        {
            &mut out.accounting.declared
        } else if by_hand(entry) || by_hand(&function) {
            &mut out.accounting.by_hand
        } else if elsewhere.contains(&function) {
            &mut out.accounting.elsewhere
        } else if warned.contains(&function.as_str()) {
            &mut out.accounting.warned
        } else if toolkit.contains(&function)
            || TOOLKIT_NAMESPACES
                .iter()
                .any(|ns| function.starts_with(&format!("{ns}::")))
        {
            &mut out.accounting.toolkit
        } else {
            // Defined where the scanner does not read (a system header: CUB's kernels), or
            // not found by it: named all the same.
            out.warnings.push(format!(
                "{source}: `{}` of the PTX is not generated: it is defined outside the file and \
                 its local headers (a system or toolkit header); declare it by hand",
                cuda_kernel_syntax::demangle::shown(entry)
            ));
            &mut out.accounting.warned
        };
        *bucket += 1;
    }
    // The records the compiler's facts laid out, beside the file's structs.
    if let Some(from) = from_facts {
        for (_, cpp, rust, item, uses) in from.records {
            if !item.is_empty() {
                structs.push((cpp.clone(), rust));
                struct_items.push((cpp, item, uses));
            }
        }
    }
    if !out.declared.is_empty() {
        // The file's structs the declared kernels take, and those they hold.
        let mut used: Vec<String> = Vec::new();
        let mut todo: Vec<String> = struct_items
            .iter()
            .filter(|(name, _, _)| {
                let Some((_, rust)) = structs.iter().find(|(c, _)| c == name) else {
                    return false;
                };
                mentions(&items, rust) || twin_blocks.iter().any(|b| mentions(b, rust))
            })
            .map(|(name, _, _)| name.clone())
            .collect();
        while let Some(name) = todo.pop() {
            if used.contains(&name) {
                continue;
            }
            if let Some((_, _, uses)) = struct_items.iter().find(|(n, _, _)| *n == name) {
                todo.extend(uses.iter().cloned());
            }
            used.push(name);
        }
        let struct_text = struct_text(
            &struct_items
                .iter()
                .filter(|(name, _, _)| used.contains(name))
                .map(|(_, item, _)| item.as_str())
                .collect::<Vec<_>>(),
        );
        out.rust = format!(
            "// Generated by cuda-kernel-build from {source}: every kernel the file defines that\n\
             // no hand-written #[kernel] block of the crate declares. Do not edit.\n\
             // {}.\n\
             {struct_text}\
             #[::cuda_kernel::kernel(ptx = \"{ptx}\", module = pub {module})]\n\
             unsafe extern \"C\" {{\n{items}}}\n",
            out.accounting
        );
        for block in &twin_blocks {
            let _ = write!(
                out.rust,
                "// Kernels named as one above, in another namespace: not in `{module}`.\n\
                 #[::cuda_kernel::kernel(ptx = \"{ptx}\")]\nunsafe extern \"C\" {{\n{block}}}\n"
            );
        }
    }
    out
}

/// A type's C++ name as `#[kernel_param(cuda_name = "...")]` spells it: without anonymous
/// namespaces, which no declaration names (their symbols hold a hash of the source's path; a
/// kernel taking such a type is bound by its C++ name).
fn spelled_cuda_name(qualified: &str) -> String {
    qualified.replace(
        &format!("{}::", cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE),
        "",
    )
}

/// The C++ name an entry is declared by (`k_bin<op_repeat, float>`): its instance name where
/// that names no other entry of the PTX, else with its parameter list; `None` for a symbol
/// that does not demangle.
fn bound_name(entry: &str, entries: &[String]) -> Option<String> {
    use cuda_kernel_syntax::demangle;
    let name = demangle::instance_name(entry)?;
    let others = entries
        .iter()
        .filter(|e| *e != entry && demangle::names_entry(&name, e))
        .count();
    match others {
        0 => Some(name),
        _ => Some(demangle::written(entry)),
    }
}

/// Whether the file's kernels likely need the compiler's facts: one of them takes a class
/// template, a function, or a struct with a base class, a bit-field, a method or a class
/// template among its fields, directly, through a pointer or through a typedef. A guess from
/// the text alone, made before the PTX exists, so that the facts compile runs beside the PTX
/// compile; the facts are still asked for by what the generator leaves undeclared, so a wrong
/// guess costs time, never a declaration.
pub(crate) fn may_need_facts(preprocessed: &str, from_here: &dyn Fn(&str) -> bool) -> bool {
    let scanned = scan(preprocessed, from_here);
    let mut seen: Vec<&str> = Vec::new();
    scanned
        .kernels
        .iter()
        .filter(|k| from_here(&k.file))
        .flat_map(|k| &k.params)
        .any(|param| beyond_the_reader(param, &scanned, &mut seen, 0))
}

/// [`may_need_facts`] of one type's tokens (a parameter's, a typedef's, a struct's fields).
fn beyond_the_reader<'a>(
    tokens: &'a [Token],
    scanned: &'a Scanned,
    seen: &mut Vec<&'a str>,
    depth: usize,
) -> bool {
    if depth > 8 {
        return false;
    }
    let fields = depth > 0;
    tokens.iter().enumerate().any(|(i, token)| match token {
        Token::Punct('<') => true,
        // A function pointer among the parameters; a method among the fields (`(...)`
        // followed by a body, `;` or `const`; not `sizeof(...)` in an array's length).
        Token::Punct('(') if !fields => true,
        Token::Punct('(') => {
            let mut open = 0usize;
            let close = tokens[i..].iter().position(|t| {
                match t {
                    Token::Punct('(') => open += 1,
                    Token::Punct(')') => open -= 1,
                    _ => {}
                }
                open == 0
            });
            close.is_some_and(|c| {
                matches!(
                    tokens.get(i + c + 1),
                    Some(Token::Punct('{' | ';')) | Some(Token::Ident(_))
                )
            })
        }
        // A bit-field (`unsigned leaf : 1;`).
        Token::Punct(':') => {
            matches!(tokens.get(i + 1), Some(Token::Literal(_)))
                && !matches!(tokens.get(i.wrapping_sub(1)), Some(Token::Punct(':')))
        }
        Token::Ident(name) => {
            // The types the reader spells itself (`uint64_t`, `float2`, `dim3`).
            if seen.contains(&name.as_str())
                || builtin(name).is_some()
                || types::by_cuda_name(name).is_some()
            {
                return false;
            }
            seen.push(name);
            scanned
                .typedefs
                .iter()
                .filter(|(n, _)| n == name)
                .any(|(_, to)| beyond_the_reader(to, scanned, seen, depth + 1))
                || scanned
                    .structs
                    .iter()
                    .filter(|s| s.name == *name)
                    .any(|s| s.bases || beyond_the_reader(&s.fields, scanned, seen, depth + 1))
        }
        _ => false,
    })
}

/// The fn name of a kernel declared instance by instance: the kernel's and its arguments'
/// words, as the instance's C++ name spells them (`k_bin_op_repeat_float`), unique among the
/// block's fn names.
fn instance_fn_name(
    kernel: &str,
    cpp_name: &str,
    kernels: &[Declared],
    fn_idents: &[String],
) -> String {
    let args = cpp_name
        .split_once('<')
        .map(|(_, args)| args.rsplit_once('>').map_or(args, |(a, _)| a))
        .unwrap_or_default();
    let args: String = args
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let mut base = format!("{kernel}_{args}");
    while base.contains("__") {
        base = base.replace("__", "_");
    }
    let base = base.trim_end_matches('_').to_string();
    let mut name = base.clone();
    let mut n = 2;
    while kernels.iter().any(|k| k.name == name) || fn_idents.contains(&rust_name(&name)) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// The entry `entry` of `kernel` declared from the compiler's facts: its parameters' names
/// from the kernel's declaration, their types from the facts; bound by its C++ name (an
/// `extern "C"` kernel by its own). `None` where the facts do not have the entry.
#[allow(clippy::too_many_arguments)]
fn declared_from_facts(
    from: &mut compiled::FromFacts<'_>,
    kernel: &Found,
    entry: &str,
    entries: &[String],
    structs: &[(String, String)],
    types: &mut naming::TypeNames,
    source: &str,
    kernels: &[Declared],
    fn_idents: &mut Vec<String>,
) -> Option<Result<Declared, String>> {
    let param_types = match from.params(entry, structs, types, source)? {
        Ok(t) => t,
        Err(why) => return Some(Err(why)),
    };
    let names = match instance_names(kernel, param_types.len()) {
        Ok(n) => n,
        Err(why) => return Some(Err(why)),
    };
    let mut taken = Vec::new();
    let params: Vec<(String, String)> = names
        .iter()
        .zip(param_types)
        .map(|(n, t)| (naming::param(n, &mut taken), t))
        .collect();
    if kernel.extern_c && entry == kernel.name {
        let ident = rust_name(&kernel.name);
        let twin = fn_idents.iter().filter(|i| **i == ident).count();
        fn_idents.push(ident);
        return Some(Ok(Declared {
            name: kernel.name.clone(),
            namespace: None,
            extern_c: true,
            generics: Vec::new(),
            params,
            twin,
            symbol: None,
            shown: None,
            cpp_name: None,
        }));
    }
    let Some(cpp_name) = bound_name(entry, entries) else {
        return Some(Err("has a symbol this generator does not read".to_string()));
    };
    // A plain kernel's fn is named after it; an instance's after its arguments too.
    let words = match kernel.template {
        Some(_) => cpp_name.clone(),
        None => String::new(),
    };
    let mut declared = bound_by_cpp_name(&kernel.name, &words, entry, params, kernels, fn_idents);
    declared.cpp_name = Some(cpp_name);
    Some(Ok(declared))
}

/// The entry `entry` of `kernel` declared by its C++ name `cpp_name`, as an instance is: its
/// fn named by [`instance_fn_name`] (claimed in `fn_idents`), its doc line the instance as
/// C++ writes it.
fn bound_by_cpp_name(
    kernel: &str,
    cpp_name: &str,
    entry: &str,
    params: Vec<(String, String)>,
    kernels: &[Declared],
    fn_idents: &mut Vec<String>,
) -> Declared {
    let name = instance_fn_name(kernel, cpp_name, kernels, fn_idents);
    fn_idents.push(rust_name(&name));
    Declared {
        name,
        namespace: None,
        extern_c: true,
        generics: Vec::new(),
        params,
        twin: 0,
        symbol: Some(entry.to_string()),
        shown: Some(cuda_kernel_syntax::demangle::written(entry)),
        cpp_name: Some(cpp_name.to_string()),
    }
}

/// How the `extern "C"` kernel `name` is defined in `preprocessed` (a file's own text, without
/// the build step's header): the file that defines it, and each parameter's C text with the
/// Rust type generated declarations give it (`None` where they cannot). For the build step's
/// explanation of a definition that differs from its Rust declaration.
pub(crate) fn definition_of(
    preprocessed: &str,
    from_here: &dyn Fn(&str) -> bool,
    name: &str,
    structs: &[(String, String)],
) -> Option<Definition> {
    let scanned = scan(preprocessed, from_here);
    let found = scanned
        .kernels
        .iter()
        .find(|k| k.extern_c && k.template.is_none() && k.name == name)?;
    let entries = [name.to_string()];
    let options = Options {
        ptx: "$OUT_DIR/k.ptx",
        module: "Kernels",
        entries: &entries,
        structs,
        ..Options::default()
    };
    let generated = generate(&found.file, preprocessed, from_here, &options);
    let rust: Option<Vec<(String, String)>> = syn::parse_file(&generated.rust)
        .ok()
        .and_then(|file| {
            file.items.into_iter().find_map(|item| match item {
                syn::Item::ForeignMod(block) => block.items.into_iter().find_map(|i| match i {
                    syn::ForeignItem::Fn(f) if f.sig.ident == rust_name(name) => Some(f.sig),
                    _ => None,
                }),
                _ => None,
            })
        })
        .map(|sig| {
            sig.inputs
                .iter()
                .filter_map(|arg| match arg {
                    syn::FnArg::Typed(t) => Some((
                        match &*t.pat {
                            syn::Pat::Ident(p) => p.ident.to_string(),
                            _ => "_".to_string(),
                        },
                        cuda_kernel_syntax::text::type_text(&t.ty),
                    )),
                    syn::FnArg::Receiver(_) => None,
                })
                .collect()
        });
    let params = found
        .params
        .iter()
        .enumerate()
        .map(|(i, tokens)| {
            let ty = rust
                .as_ref()
                .and_then(|r| r.get(i))
                .map(|(_, ty)| ty.clone());
            (c_text(tokens), ty)
        })
        .collect();
    let rust_params = rust.map(|r| {
        r.iter()
            .map(|(name, ty)| format!("{name}: {ty}"))
            .collect::<Vec<_>>()
            .join(", ")
    });
    Some(Definition {
        file: found.file.clone(),
        params,
        rust_params,
    })
}

/// [`definition_of`]'s answer.
pub(crate) struct Definition {
    /// The file that defines the kernel, as the line markers name it.
    pub(crate) file: String,
    /// Each parameter's C text (`float a`) and its Rust type (`f32`).
    pub(crate) params: Vec<(String, Option<String>)>,
    /// The Rust parameter list generated declarations give it (`x: *mut f32, a: f32`).
    pub(crate) rust_params: Option<String>,
}

/// Tokens as C text: words apart, punctuation close (`const float *x`).
fn c_text(tokens: &[Token]) -> String {
    let mut out = String::new();
    for token in tokens {
        let (text, word) = match token {
            Token::Ident(t) | Token::Literal(t) => (t.as_str(), true),
            Token::Punct(c) => {
                if matches!(c, '*' | '&') && !out.is_empty() && !out.ends_with(['*', '&', ' ']) {
                    out.push(' ');
                }
                out.push(*c);
                continue;
            }
            Token::Line(_) => continue,
        };
        if word && out.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            out.push(' ');
        }
        out.push_str(text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
# 1 "cuda/k.cu"
typedef unsigned long size_t;
typedef float floatX;
# 1 "/usr/local/cuda/include/cuda_runtime.h" 1
extern "C" __attribute__((global)) void from_a_header(float *x) { }
# 5 "cuda/k.cu" 2
extern "C" __attribute__((global)) void fill_f32(float *buf, float value, const size_t numel) { }
extern "C" {
__attribute__((global)) void __attribute__((launch_bounds(256, 2))) inside(const floatX *__restrict__ x, floatX * const y, unsigned n, long long big) { }
}
__attribute__((global)) void cpp_kernel(const float* const* rows, int, char c[]) { }
template <typename T> __attribute__((global)) void templ(T *x) { }
namespace ns { __attribute__((global)) void spaced(float *x) { } }
namespace other { namespace inner { __attribute__((global)) void spaced(int *x) { } } }
namespace geo { struct Pt { float x; float y; }; __attribute__((global)) void shift(Pt p, const ::geo::Pt *q, geo::Pt *r) { } }
struct P { int a; float b[3], *c; };
struct __attribute__((aligned(16))) Q { P inner; unsigned long long n; };
struct Bits { int a : 3; };
struct Unused { int x; };
__attribute__((global)) void takes_struct(P p, Q q) { }
__attribute__((global)) void takes_bits(Bits b) { }
__attribute__((global)) void declared_only(float *x);
extern "C" __attribute__((global)) void by_hand(float *x) { }
extern "C" __attribute__((global)) void keyword_param(int type, const size_t) { }
"#;

    fn here(file: &str) -> bool {
        file == "cuda/k.cu"
    }

    #[test]
    fn kernels_of_the_file_are_declared_as_their_source_writes_them() {
        let g = generate(
            "cuda/k.cu",
            TEXT,
            &here,
            &Options {
                ptx: "$OUT_DIR/k.ptx",
                module: "Kernels",
                hand_written: &["by_hand".into()],
                ..Options::default()
            },
        );
        assert_eq!(
            g.declared,
            [
                "fill_f32",
                "inside",
                "cpp_kernel",
                "ns::spaced",
                "other::inner::spaced",
                "geo::shift",
                "takes_struct",
                "keyword_param"
            ],
            "{}",
            g.rust
        );
        // A kernel in a namespace, declared in it.
        assert!(
            g.rust.contains(
                "    #[kernel(cpp, namespace = \"ns\")]\n    #[allow(non_snake_case)]\n    pub fn spaced(x: *mut f32);"
            ),
            "{}",
            g.rust
        );
        // A struct of a namespace, by its CUDA name, however the kernel qualifies it.
        assert!(
            g.rust.contains(
                "#[kernel_param(cuda_name = \"geo::Pt\")]\n#[repr(C)]\n\
                 #[allow(non_snake_case, non_camel_case_types)]\npub struct Pt {"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("pub fn shift(p: Pt, q: *const Pt, r: *mut Pt);"),
            "{}",
            g.rust
        );
        // One of the same name in another namespace: a block of its own, renamed.
        assert!(
            g.rust.contains(
                "// Kernels named as one above, in another namespace: not in `Kernels`.\n\
                 #[::cuda_kernel::kernel(ptx = \"$OUT_DIR/k.ptx\")]\n\
                 unsafe extern \"C\" {\n    \
                 /// `other::inner::spaced` of cuda/k.cu.\n    \
                 #[kernel(cpp, namespace = \"other::inner\", rename = OtherInnerSpaced)]\n    \
                 #[allow(non_snake_case)]\n    pub fn spaced(x: *mut i32);\n}"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("pub fn keyword_param(r#type: i32, arg1: ::cuda_kernel::ffi::size_t);"),
            "{}",
            g.rust
        );
        assert!(
            g.rust.contains(
                "pub fn fill_f32(buf: *mut f32, value: f32, numel: ::cuda_kernel::ffi::size_t);"
            ),
            "{}",
            g.rust
        );
        assert!(g.rust.contains(
            "pub fn inside(x: *const f32, y: *mut f32, n: u32, big: ::cuda_kernel::ffi::c_longlong);"
        ), "{}", g.rust);
        assert!(g.rust.contains(
            "    #[kernel(cpp)]\n    #[allow(non_snake_case)]\n    pub fn cpp_kernel(rows: *const *const f32, arg1: i32, c: *mut ::cuda_kernel::ffi::c_char);"
        ), "{}", g.rust);
        let warned: Vec<&str> = g
            .warnings
            .iter()
            .map(|w| w.split('`').nth(1).unwrap())
            .collect();
        assert_eq!(warned, ["templ", "takes_bits"], "{:?}", g.warnings);
        assert!(
            g.warnings[1].contains("takes `Bits`, a struct")
                && g.warnings[1].contains("(`Bits`: it has a bit-field)"),
            "{}",
            g.warnings[1]
        );
        // The file's structs the declared kernels take, nested ones too, as KernelParam types.
        assert!(
            g.rust.contains(
                "#[repr(C)]\n#[allow(non_snake_case, non_camel_case_types)]\npub struct P {\n    \
             pub a: i32,\n    pub b: [f32; 3],\n    pub c: *mut f32,\n}"
            ),
            "{}",
            g.rust
        );
        assert!(g.rust.contains(
            "#[repr(C, align(16))]\n#[allow(non_snake_case, non_camel_case_types)]\npub struct Q {\n    \
             pub inner: P,\n    pub n: ::cuda_kernel::ffi::c_ulonglong,\n}"
        ), "{}", g.rust);
        assert!(
            g.rust.contains("pub fn takes_struct(p: P, q: Q);"),
            "{}",
            g.rust
        );
        assert!(!g.rust.contains("Unused"), "{}", g.rust);
    }

    /// Hopper kernels, as nvcc's preprocessor leaves them (`__grid_constant__` is
    /// `__attribute__((grid_constant))`): a TMA descriptor is a `RawTensorMap`, which C types by
    /// neither element nor rank; another grid constant says so.
    #[test]
    fn grid_constants_and_tma_descriptors_are_declared_as_such() {
        let text = "# 1 \"cuda/k.cu\"\n\
            struct __attribute__((aligned(64))) Tile { float v[16]; };\n\
            extern \"C\" __attribute__((global)) void tma(unsigned a, const __attribute__((grid_constant)) CUtensorMap m, float *out) { }\n\
            extern \"C\" __attribute__((global)) void tile(const __grid_constant__ Tile t, float *out) { }\n\
            extern \"C\" __attribute__((global)) void plain_map(CUtensorMap m) { }\n";
        let g = generate("cuda/k.cu", text, &here, &Options::default());
        assert!(
            g.rust
                .contains("pub fn tma(a: u32, m: ::cuda_kernel::RawTensorMap, out: *mut f32);"),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("pub fn tile(#[kernel(grid_constant)] t: Tile, out: *mut f32);"),
            "{}",
            g.rust
        );
        assert!(
            g.warnings
                .iter()
                .any(|w| w.contains("plain_map") && w.contains("not `const __grid_constant__`")),
            "{:?}",
            g.warnings
        );
    }

    #[test]
    fn nothing_to_declare_writes_nothing() {
        let g = generate(
            "cuda/k.cu",
            "# 1 \"cuda/k.cu\"\nint x;\n",
            &here,
            &Options::default(),
        );
        assert_eq!(g, Generated::default());
    }

    const TEMPLATES_AND_FAMILIES: &str = r#"
# 1 "cuda/k.cu"
typedef unsigned long size_t;
template <typename T, unsigned int BLOCK = 128>
__attribute__((global)) void red(const T *x, T *y, unsigned n) { }
template <typename T> __attribute__((global)) void never(T *x) { }
extern "C" __attribute__((global)) void fill_u8(unsigned char *b, unsigned char v, size_t n) { }
extern "C" __attribute__((global)) void fill_f32(float *b, float v, size_t n) { }
extern "C" __attribute__((global)) void fill_f64(double *b, double v, size_t n) { }
extern "C" __attribute__((global)) void odd_f32(float *b, size_t n) { }
extern "C" __attribute__((global)) void odd_f64(double *b, int n) { }
extern "C" __attribute__((global)) void copy_f32(const float *a, float *b) { }
extern "C" __attribute__((global)) void copy_f64(const double *a, double *b) { }
"#;

    #[test]
    fn templates_with_instances_and_dtype_families_are_declared_once() {
        let entries = ["_Z3redIfLj128EEvPKT_PS0_j".to_string()];
        let g = generate(
            "k.cu",
            TEMPLATES_AND_FAMILIES,
            &|f| f == "cuda/k.cu",
            &Options {
                ptx: "k.ptx",
                module: "K",
                hand_written: &["copy_f64".into()],
                entries: &entries,
                ..Options::default()
            },
        );
        assert!(
            g.rust.contains(
                "    #[kernel(cpp)]\n    #[allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]\n    \
                 pub fn red<T, const BLOCK: u32>(x: *const T, y: *mut T, n: u32);"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust.contains(
                "#[kernel(name = \"fill_{T}\")]\n    #[allow(non_snake_case)]\n    \
                 pub fn fill<T>(b: *mut T, v: T, n: ::cuda_kernel::ffi::size_t);"
            ),
            "{}",
            g.rust
        );
        // Members of other shapes stay kernels of their own; so does the rest of a family one
        // of whose members the crate declares by hand.
        for single in ["pub fn odd_f32(", "pub fn odd_f64(", "pub fn copy_f32("] {
            assert!(g.rust.contains(single), "{single}\n{}", g.rust);
        }
        assert!(!g.rust.contains("copy_f64(") && !g.rust.contains("fn fill_f32("));
        assert_eq!(g.warnings.len(), 1, "{:?}", g.warnings);
        assert!(
            g.warnings[0].contains("`never` is not generated: a template the PTX has no instance")
        );
    }

    /// A template value parameter of an enum type, as vLLM's paged attention and flashinfer
    /// write theirs (`vllm::Fp8KVCacheDataType kv_dt`, `PosEncodingMode POS` inside the enum's
    /// namespace): `#[kernel(enum = "...")] const kv_dt: i32`, the enum qualified as C++ finds
    /// it; a value of a type that is no enum is still named in a warning.
    #[test]
    fn enum_template_values_are_declared_by_the_enums_name() {
        let text = "# 1 \"cuda/k.cu\"\n\
            namespace vllm { enum class Fp8KVCacheDataType { kAuto = 0, kFp8E4M3 = 1 }; }\n\
            namespace flashinfer { enum class PosEncodingMode : unsigned char { kNone = 0 };\n\
            template <typename T, PosEncodingMode POS, unsigned B> __attribute__((global)) void decode(T *x) { } }\n\
            namespace vllm { template <typename scalar_t, vllm::Fp8KVCacheDataType kv_dt> __attribute__((global)) void gather(const scalar_t *x, float *y) { } }\n\
            template <typename T, Unknown U> __attribute__((global)) void unknown(T *x) { }\n\
            template <typename P> __attribute__((global)) void by_params(const __attribute__((grid_constant)) P p) { }\n";
        let entries = [
            "_ZN10flashinfer6decodeIfLNS_15PosEncodingModeE0ELj128EEEvPT_".to_string(),
            "_ZN4vllm6gatherIfLNS_18Fp8KVCacheDataTypeE1EEEvPKT_Pf".to_string(),
            "_Z7unknownIfL7Unknown0EEvPT_".to_string(),
            // flashinfer's decode kernels take their Params, a class template, by value.
            "_Z9by_paramsIN2ns6ParamsIfEEEvT_".to_string(),
        ];
        let g = generate(
            "k.cu",
            text,
            &here,
            &Options {
                entries: &entries,
                ..Options::default()
            },
        );
        assert!(
            g.rust.contains(
                "pub fn decode<T, #[kernel(enum = \"flashinfer::PosEncodingMode\")] const POS: i32, \
                 const B: u32>(x: *mut T);"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust.contains(
                "pub fn gather<scalar_t, #[kernel(enum = \"vllm::Fp8KVCacheDataType\")] const kv_dt: i32>\
                 (x: *const scalar_t, y: *mut f32);"
            ),
            "{}",
            g.rust
        );
        // A template over a value of a type the generator does not read is declared instance
        // by instance, by its C++ name; one whose instance takes a class template is named
        // with that type.
        assert_eq!(
            g.declared,
            [
                "flashinfer::decode",
                "vllm::gather",
                "_Z7unknownIfL7Unknown0EEvPT_"
            ],
            "{:?}",
            g.warnings
        );
        assert!(
            g.rust
                .contains("#[kernel(name = \"unknown<float, (Unknown)0>\")]"),
            "{}",
            g.rust
        );
        assert!(
            g.warnings.len() == 1
                && g.warnings[0].contains("`by_params` is not generated")
                && g.warnings[0].contains("takes `ns::Params<float>`"),
            "{:?}",
            g.warnings
        );
    }

    /// C++11's `alignas(N)` on a struct, as mistral.rs's LoRA kernels write their descriptor
    /// (`struct alignas(8) AdapterWeight`), aligns it as `__align__(N)` does; an alignment
    /// given by a type is not guessed.
    #[test]
    fn alignas_aligns_a_struct() {
        let text = "# 1 \"cuda/k.cu\"\n\
            namespace lora { struct alignas(16) Adapter { unsigned long long a; float scale; }; \
            __attribute__((global)) void apply(const Adapter *w, Adapter one, float *y) { } }\n\
            struct alignas(float4) ByType { float x; };\n\
            __attribute__((global)) void by_type(ByType t) { }\n";
        let g = generate("k.cu", text, &here, &Options::default());
        assert!(
            g.rust.contains(
                "#[kernel_param(cuda_name = \"lora::Adapter\")]\n#[repr(C, align(16))]\n\
                 #[allow(non_snake_case, non_camel_case_types)]\npub struct Adapter {\n    \
                 pub a: ::cuda_kernel::ffi::c_ulonglong,\n    pub scale: f32,\n}"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("pub fn apply(w: *const Adapter, one: Adapter, y: *mut f32);"),
            "{}",
            g.rust
        );
        assert_eq!(g.declared, ["lora::apply"], "{:?}", g.warnings);
        assert!(
            g.warnings.len() == 1 && g.warnings[0].contains("`by_type` is not generated"),
            "{:?}",
            g.warnings
        );
    }

    /// Untyped memory, as ggml's and mistral.rs's quantized kernels take their blocks
    /// (`const void * __restrict__ vx`): `*const c_void`, for C and C++ kernels alike.
    #[test]
    fn void_pointers_are_untyped_memory() {
        let text = "# 1 \"cuda/k.cu\"\n\
            extern \"C\" __attribute__((global)) void deq(const void * __restrict__ vx, float * __restrict__ y, int n) { }\n\
            __attribute__((global)) void quantize(const float *x, void *vy, void **rows) { }\n";
        let g = generate("k.cu", text, &here, &Options::default());
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        assert!(
            g.rust.contains(
                "pub fn deq(vx: *const ::cuda_kernel::ffi::c_void, y: *mut f32, n: i32);"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust.contains(
                "pub fn quantize(x: *const f32, vy: *mut ::cuda_kernel::ffi::c_void, \
                 rows: *mut *mut ::cuda_kernel::ffi::c_void);"
            ),
            "{}",
            g.rust
        );
    }

    /// A kernel in an anonymous namespace (mistral.rs's `dflash_selector.cu` keeps one there):
    /// one warning saying so, and its PTX entry, whose symbol spells the namespace with a hash
    /// of the source's path, is counted as that warning's, not named again as a kernel of a
    /// system header.
    #[test]
    fn kernels_in_anonymous_namespaces_are_bound_by_their_cpp_names() {
        // Their symbols hold a hash of the source's path: the declarations name them as C++
        // does, which the PTX check finds whatever the hash.
        let text = "# 1 \"cuda/k.cu\"\n\
            namespace { __attribute__((global)) void fill(float *x, int n) { } }\n\
            namespace outer { namespace { __attribute__((global)) void fill(float *x, int n) { } } }\n\
            extern \"C\" __attribute__((global)) void plain(float *x) { }\n";
        let entries = [
            "_ZN36_GLOBAL__N__a278e39b_4_k_cu_ad1a73184fillEPfi".to_string(),
            "_ZN5outer36_GLOBAL__N__a278e39b_4_k_cu_ad1a73184fillEPfi".to_string(),
            "plain".to_string(),
        ];
        let g = generate(
            "k.cu",
            text,
            &here,
            &Options {
                entries: &entries,
                ..Options::default()
            },
        );
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        for bound in [
            "#[kernel(name = \"(anonymous namespace)::fill\")]",
            "#[kernel(name = \"outer::(anonymous namespace)::fill\", rename = OuterFill)]",
        ] {
            assert!(g.rust.contains(bound), "{bound}\n{}", g.rust);
        }
        assert!(!g.rust.contains("GLOBAL__N"), "{}", g.rust);
        assert_eq!(
            (
                g.accounting.entries,
                g.accounting.declared,
                g.accounting.warned
            ),
            (3, 3, 0)
        );
    }

    #[test]
    fn named_families_take_the_kernels_their_pattern_matches() {
        let named = |list: &[(&str, &str)]| -> Vec<NamedFamily> {
            list.iter()
                .map(|(pattern, name)| NamedFamily {
                    pattern: pattern.to_string(),
                    name: name.to_string(),
                })
                .collect()
        };
        let run = |families: &[NamedFamily]| {
            generate(
                "k.cu",
                TEMPLATES_AND_FAMILIES,
                &|f| f == "cuda/k.cu",
                &Options {
                    families,
                    ..Options::default()
                },
            )
        };
        // A run-time part: the shape most kernels share (fill's three), the rest apart.
        let g = run(&named(&[("{op}_{T}", "any")]));
        assert!(
            g.rust.contains(
                "#[kernel(name = \"{op}_{T}\")]\n    #[allow(non_snake_case)]\n    \
                 pub fn any<T>(b: *mut T, v: T, n: ::cuda_kernel::ffi::size_t);"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("/// `{op}_{T}` of k.cu: fill_u8, fill_f32, fill_f64.")
        );
        for apart in ["pub fn odd_f32(", "pub fn odd_f64(", "pub fn copy<T>("] {
            assert!(g.rust.contains(apart), "{apart}\n{}", g.rust);
        }
        assert_eq!(g.named_families, ["{op}_{T}"]);
        // Without one, every kernel it matches must fit: odd_f64 takes an int.
        let g = run(&named(&[("odd_{T}", "odd")]));
        let warning = g.warnings.iter().find(|w| w.contains("odd_{T}")).unwrap();
        assert_eq!(
            warning,
            "k.cu: the family `odd_{T}` (odd) is not generated: odd_f64 matches it with other \
             parameters (a pattern without a part chosen at run time takes every kernel it \
             matches)"
        );
        assert!(g.rust.contains("pub fn odd_f32(") && g.named_families.is_empty());
        // A pattern no kernel of the file matches says so.
        let g = run(&named(&[("scale_{T}", "scale")]));
        assert_eq!(
            g.warnings.last().map(String::as_str),
            Some("k.cu: the family `scale_{T}` (scale) matches no kernel of the file")
        );
        // A part chosen at run time and no type: candle's `get_rows_q4_0`, `get_rows_q8_0`
        // (`odd_{q}` takes odd_f32 by its name `f32`; odd_f64, of other parameters, apart).
        let g = run(&named(&[("odd_{q}", "odd")]));
        assert!(
            g.rust.contains(
                "#[kernel(name = \"odd_{q}\")]\n    #[allow(non_snake_case)]\n    \
                 pub fn odd(b: *mut f32, n: ::cuda_kernel::ffi::size_t);"
            ),
            "{}",
            g.rust
        );
        assert!(g.rust.contains("pub fn odd_f64(b: *mut f64, n: i32);"));
        assert_eq!(g.named_families, ["odd_{q}"]);
        // Neither a type nor a run-time part, or two run-time parts: not a family.
        for pattern in ["odd_f32", "{a}_{b}"] {
            let g = run(&named(&[(pattern, "odd")]));
            let warning = g.warnings.iter().find(|w| w.contains(pattern)).unwrap();
            assert!(warning.ends_with("and at least one of them"), "{warning}");
        }
        // A name of its own for a family found anyway.
        let g = run(&named(&[("copy_{T}", "copy_elements")]));
        assert!(
            g.rust
                .contains("pub fn copy_elements<T>(a: *const T, b: *mut T);")
        );
        assert!(g.rust.contains("pub fn fill<T>("));
    }

    /// A template whose instances take a class template, which only the compiler's facts
    /// type: each instance by its C++ name, the record laid out from the facts; an instance the
    /// crate declares by hand (by its C++ name) is left out and counted as the crate's.
    #[test]
    fn instances_only_the_facts_type_are_declared_by_their_cpp_names() {
        use crate::facts::{Entry, Facts, Member, Record, Type};
        let text = "# 1 \"cuda/k.cu\"\n\
            template <typename T> struct View { T *data; int len; };\n\
            template <typename T> __attribute__((global)) void sv(View<T> v, T x) { }\n\
            template __attribute__((global)) void sv<float>(View<float>, float);\n\
            template __attribute__((global)) void sv<double>(View<double>, double);\n";
        let view = |name: &str, elem: usize, ptr: usize| {
            Type::Record(Record {
                name: Some(name.to_string()),
                union: false,
                size: Some(16),
                align: None,
                members: vec![
                    Member {
                        name: Some("data".into()),
                        offset: 0,
                        ty: Some(ptr),
                        bits: None,
                        base: false,
                    },
                    Member {
                        name: Some("len".into()),
                        offset: 8,
                        ty: Some(elem),
                        bits: None,
                        base: false,
                    },
                ],
            })
        };
        let facts = Facts {
            types: vec![
                Type::Base {
                    name: "float".into(),
                    size: 4,
                }, // 0
                Type::Base {
                    name: "double".into(),
                    size: 8,
                }, // 1
                Type::Base {
                    name: "int".into(),
                    size: 4,
                }, // 2
                Type::Pointer(Some(0)),     // 3
                Type::Pointer(Some(1)),     // 4
                view("View<float>", 2, 3),  // 5
                view("View<double>", 2, 4), // 6
            ],
            entries: vec![
                Entry {
                    symbol: "_Z2svIfEv4ViewIT_ES1_".into(),
                    params: vec![Some(5), Some(0)],
                },
                Entry {
                    symbol: "_Z2svIdEv4ViewIT_ES1_".into(),
                    params: vec![Some(6), Some(1)],
                },
            ],
        };
        let entries: Vec<String> = facts.entries.iter().map(|e| e.symbol.clone()).collect();
        let hand_written = ["sv<float>".to_string()];
        let g = generate(
            "k.cu",
            text,
            &here,
            &Options {
                entries: &entries,
                hand_written: &hand_written,
                facts: Some(&facts),
                ..Options::default()
            },
        );
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        assert!(
            g.rust.contains("#[kernel(name = \"sv<double>\")]")
                && g.rust.contains("pub fn sv_double(v: ViewF64, x: f64);")
                && g.rust.contains(
                    "pub struct ViewF64 {\n    pub data: *mut f64,\n    pub len: i32,\n}"
                )
                && !g.rust.contains("sv<float>"),
            "{}",
            g.rust
        );
        assert_eq!(
            (g.accounting.declared, g.accounting.by_hand),
            (1, 1),
            "{}",
            g.accounting
        );
        // Without the facts, the reader names both instances in a warning with its reason.
        let without = generate(
            "k.cu",
            text,
            &here,
            &Options {
                entries: &entries,
                ..Options::default()
            },
        );
        assert_eq!(without.accounting.warned, 2, "{:?}", without.warnings);
    }

    /// The guess made before the PTX exists: kernels taking class templates (directly or
    /// through a typedef), structs with bit-fields or base classes need the compiler's facts;
    /// kernels taking what the reader types do not.
    #[test]
    fn the_text_tells_which_files_will_need_the_compilers_facts() {
        let here = |_: &str| true;
        let file = |body: &str| format!("# 1 \"cuda/k.cu\"\n{body}\n");
        let needs = |body: &str| may_need_facts(&file(body), &here);
        assert!(!needs(
            "struct P { float x; int n; };\n\
             __attribute__((global)) void k(float *a, P p, const int *b) { }"
        ));
        assert!(needs(
            "template <typename T> struct View { T *data; int len; };\n\
             __attribute__((global)) void k(View<float> v) { }"
        ));
        assert!(needs(
            "template <int N, typename T> struct vec_t { T c[N]; };\n\
             typedef vec_t<3, float> vec3;\n\
             __attribute__((global)) void k(const vec3 *v) { }"
        ));
        assert!(needs(
            "struct Node { float x; unsigned index : 31; unsigned leaf : 1; };\n\
             __attribute__((global)) void k(Node *n) { }"
        ));
        assert!(needs(
            "struct B { int tag; };\nstruct D : B { float w; };\n\
             __attribute__((global)) void k(D d) { }"
        ));
        assert!(!needs(
            "namespace ns { struct Q { float a; }; }\n\
             __attribute__((global)) void k(ns::Q q) { }"
        ));
        // A length written with `sizeof` and the built-in types (xmrig-cuda's `hash64_t`,
        // `dim3`) are the reader's; a method is not.
        assert!(!needs(
            "struct dim3 { unsigned x, y, z; dim3(unsigned a) : x(a), y(1), z(1) { } };\n\
             typedef union { unsigned int words[64 / sizeof(unsigned int)]; } hash64_t;\n\
             __attribute__((global)) void k(hash64_t *h, dim3 g, unsigned long long n) { }"
        ));
        assert!(needs(
            "struct M { float w; __attribute__((device)) float get() const { return w; } };\n\
             __attribute__((global)) void k(M m) { }"
        ));
    }
}
