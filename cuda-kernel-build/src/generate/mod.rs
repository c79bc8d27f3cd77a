//! Declarations from the compiler: the `#[kernel]` block of a `.cu` file, every entry of its
//! PTX declared from the compiler's facts ([`crate::facts`], the DWARF of the file's `-G` PTX):
//! the entries grouped by kernel and bound ([`declare`]), the records and enums they take laid
//! out ([`compiled`]), dtype families found ([`families`]), the block written here with its
//! account of every entry ([`accounting`]).
//!
//! The preprocessed text (`nvcc -E` with the PTX build's architecture and flags) is read
//! ([`read`]) only for what the debug information does not carry: the names of a template's
//! parameters and `__grid_constant__`. A kernel that cannot be declared is named in a warning
//! with the reason, never skipped in silence.

use std::fmt::Write as _;

use crate::naming::{self, ident as rust_name};

mod accounting;
mod compiled;
mod declare;
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
    /// The compiler's facts of the file ([`crate::facts`]), which every declaration is made
    /// from; without them, each kernel is named in a warning.
    pub facts: Option<&'a crate::facts::Facts>,
    /// The build step's header the file was compiled with, as the facts name files: the
    /// records it defines are the crate's own `#[derive(KernelParam)]` structs.
    pub header: Option<&'a str>,
}

/// The `#[kernel]` block of one `.cu` file: every entry of its PTX (`options.entries`) declared
/// from the compiler's facts (`options.facts`), the file's preprocessed text read only for what
/// the facts do not carry (a template's parameter names, `__grid_constant__`); `from_here` tells
/// the files of the code base (the source, its headers wherever they are) from the toolkit's
/// and the build step's own. Kernels of the code base's headers are declared like the file's
/// own, once.
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
        header,
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
    let heads = scan(preprocessed, from_here);
    let empty = crate::facts::Facts::default();
    let facts_given = facts.is_some();
    let facts = facts.unwrap_or(&empty);
    let mut from = compiled::FromFacts::new(facts, heads.structs.clone());
    from.crate_header = header.map(str::to_string);
    let structs: Vec<(String, String)> = bound.to_vec();
    // The file's type names (naming.rs): the module type's, the records', then the launchers'.
    let mut types = naming::TypeNames::default();
    types.reserve(module);
    let mut out = Generated::default();
    let mut kernels: Vec<Declared> = Vec::new();
    // The fn names of `kernels`, in Rust, each computed once.
    let mut fn_idents: Vec<String> = Vec::new();
    // Every kernel of the file, declared or not: what a named family may match.
    let mut defined: Vec<String> = Vec::new();
    // The kernels considered, as C++ names them: those not declared in the end are warned.
    let mut considered: Vec<String> = Vec::new();
    // Kernels of the toolkit's headers (CUB's), which the file's host code launches.
    let mut toolkit: Vec<String> = Vec::new();
    let mut groups = declare::groups(entries);
    let instances = declare::instance_counts(entries);
    // In the order the source defines them, then the others in the PTX's.
    let order = |g: &declare::Group<'_>| {
        heads
            .kernels
            .iter()
            .position(|k| qualified(k.namespace.as_deref(), &k.name) == g.function)
            .unwrap_or(usize::MAX)
    };
    groups.sort_by_key(|g| order(g));
    let mut cx = declare::Cx {
        facts,
        from: &mut from,
        structs: &structs,
        types: &mut types,
        source,
        instances: &instances,
    };
    for group in &groups {
        let function = group.function.clone();
        let file = facts.entry(group.entries[0]).and_then(|e| e.file.clone());
        let of_toolkit = file.as_deref().is_some_and(|f| !from_here(f))
            || TOOLKIT_NAMESPACES
                .iter()
                .any(|ns| function.starts_with(&format!("{ns}::")));
        if of_toolkit {
            toolkit.push(function);
            continue;
        }
        defined.push(function.clone());
        let mine: Vec<&String> = group
            .entries
            .iter()
            .copied()
            .filter(|e| !by_hand(e) && !by_hand(&function))
            .collect();
        if mine.is_empty() || elsewhere.contains(&function) {
            continue;
        }
        considered.push(function.clone());
        let own = file.as_deref().is_none_or(|f| {
            std::path::Path::new(f)
                .file_name()
                .is_some_and(|n| n.to_string_lossy() == source)
        });
        if !own {
            out.from_headers.push(function.clone());
        }
        let head = heads
            .kernels
            .iter()
            .find(|k| qualified(k.namespace.as_deref(), &k.name) == function);
        let group = declare::Group {
            function: function.clone(),
            entries: mine,
        };
        let why = match facts_given {
            true => declare::declare(&mut cx, &group, head, &kernels, &mut fn_idents),
            false => Err("the compiler's facts of the file were not read".into()),
        };
        match why {
            Ok(declared) => kernels.extend(declared),
            Err(why) => out.warnings.push(format!(
                "{source}: `{function}` is not generated: {why}: declare the kernel by hand"
            )),
        }
    }
    // Templates of the file the PTX has no instance of: nothing to declare, and said.
    for kernel in heads.kernels.iter().filter(|k| k.template.is_some()) {
        let qualified = qualified(kernel.namespace.as_deref(), &kernel.name);
        if !groups.iter().any(|g| g.function == qualified)
            && !by_hand(&qualified)
            && !elsewhere.contains(&qualified)
        {
            out.warnings.push(format!(
                "{source}: `{qualified}` is not generated: a template the PTX has no instance of \
                 (nvcc compiles the instances the .cu names: add an explicit instantiation)"
            ));
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
        .filter(|qualified| !declared_here.contains(qualified))
        .map(|qualified| qualified.as_str())
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
        } else if toolkit.contains(&function) {
            &mut out.accounting.toolkit
        } else {
            // Not reached above (no such case is known): named all the same.
            out.warnings.push(format!(
                "{source}: `{}` of the PTX is not generated; declare it by hand",
                cuda_kernel_syntax::demangle::shown(entry)
            ));
            &mut out.accounting.warned
        };
        *bucket += 1;
    }
    // The records and enums the compiler's facts laid out.
    let mut structs = structs;
    let mut struct_items: Vec<(String, String, Vec<String>)> = Vec::new();
    for (_, cpp, rust, item, uses) in from.records {
        if !item.is_empty() {
            structs.push((cpp.clone(), rust));
            struct_items.push((cpp, item, uses));
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
                // A record a declaration names, or an enum whose values a template takes.
                let chosen = format!("enum = \"{name}\"");
                mentions(&items, rust)
                    || twin_blocks.iter().any(|b| mentions(b, rust))
                    || items.contains(&chosen)
                    || twin_blocks.iter().any(|b| b.contains(&chosen))
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

/// How the `extern "C"` kernel `name` is defined, as the compiler's facts of its file say (its
/// source compiled without the build step's header): the file that defines it, and each
/// parameter's C text with the Rust type generated declarations give it (`None` where they
/// cannot). For the build step's explanation of a definition that differs from its Rust
/// declaration.
pub(crate) fn definition_of(
    facts: &crate::facts::Facts,
    name: &str,
    structs: &[(String, String)],
) -> Option<Definition> {
    let entry = facts.entry(name)?;
    if name.starts_with("_Z") {
        return None;
    }
    let mut from = compiled::FromFacts::new(facts, Vec::new());
    let mut types = naming::TypeNames::default();
    let file = entry.file.clone().unwrap_or_default();
    let mut taken = Vec::new();
    let params: Vec<(String, Option<String>, String)> = entry
        .params
        .iter()
        .enumerate()
        .map(|(i, &ty)| {
            let param = entry
                .names
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("arg{i}"));
            let c = facts.c_type(ty);
            let c = match c.ends_with('*') {
                true => format!("{c}{param}"),
                false => format!("{c} {param}"),
            };
            let rust = from.value(ty, structs, &mut types, &file).ok();
            (c, rust, naming::param(&param, &mut taken))
        })
        .collect();
    let rust_params = params
        .iter()
        .map(|(_, rust, name)| rust.as_ref().map(|r| format!("{name}: {r}")))
        .collect::<Option<Vec<_>>>()
        .map(|list| list.join(", "));
    Some(Definition {
        file,
        params: params.into_iter().map(|(c, rust, _)| (c, rust)).collect(),
        rust_params,
    })
}

/// [`definition_of`]'s answer.
pub(crate) struct Definition {
    /// The file that defines the kernel, as the compiler's facts name it.
    pub(crate) file: String,
    /// Each parameter's C text (`float a`) and its Rust type (`f32`).
    pub(crate) params: Vec<(String, Option<String>)>,
    /// The Rust parameter list generated declarations give it (`x: *mut f32, a: f32`).
    pub(crate) rust_params: Option<String>,
}

#[cfg(test)]
mod tests;
