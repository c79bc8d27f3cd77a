//! The launchers' items of a file's block: each family once (`#[kernel(name = "u{op}_{T}")]`),
//! then each kernel with the attribute that binds it ([`FnAttr`]), its generic and parameter
//! names kept clear of the file's type names; kernels named as one in another namespace
//! (twins) in blocks of their own.

use std::fmt::Write as _;

use cuda_kernel_syntax::attr::FnAttr;

use super::*;

/// The items [`write`] made.
pub(super) struct Written {
    /// The main block's items.
    pub(super) items: String,
    /// The items of each twin block, the first twins' first.
    pub(super) twin_blocks: Vec<String>,
}

/// The items of the families and of the kernels no family holds; the declared names, and the
/// named families declared, recorded in `out`.
pub(super) fn write(
    source: &str,
    found: &FileKernels,
    families: &[Family],
    options: &Options<'_>,
    by_hand: &ByHand<'_>,
    types: &mut naming::TypeNames,
    out: &mut Generated,
) -> Written {
    let kernels = &found.kernels;
    // The launcher types' names (naming.rs): families first, then kernels of the global
    // namespace, then those of namespaces, each in the file's order.
    let camel = |name: &str| cuda_kernel_syntax::ast::upper_camel_case(name);
    let rename = |claimed: String, name: &str| (claimed != camel(name)).then_some(claimed);
    let family_renames: Vec<Option<String>> = families
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
    let mut kernel_renames: Vec<Option<String>> = vec![None; kernels.len()];
    for i in order {
        let claimed = types.launcher(&kernels[i].qualified());
        kernel_renames[i] = rename(claimed, &rust_name(&kernels[i].name));
    }
    let mut items = String::new();
    for (family, rename) in families.iter().zip(family_renames) {
        items.push_str(&family_item(source, family, rename));
        out.declared.extend(family.members.iter().cloned());
        if options.families.iter().any(|n| n.pattern == family.pattern) {
            out.named_families.push(family.pattern.clone());
        }
    }
    for family in options.families {
        let matched = found
            .defined
            .iter()
            .any(|k| matches(&family.pattern, k, by_hand.tag_names()).is_some());
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
        .zip(kernel_renames)
        .filter(|(k, _)| !in_family(k))
    {
        let item = kernel_item(source, kernel, rename, types);
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
    Written { items, twin_blocks }
}

/// A family's item: one fn for every member.
fn family_item(source: &str, family: &Family, rename: Option<String>) -> String {
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
    let attr = FnAttr {
        name: Some(family.pattern.clone()),
        rename,
        ..FnAttr::default()
    };
    let mut item = String::new();
    let _ = write!(
        item,
        "    /// `{}` of {source}: {}.\n    {}\n    \
         #[allow(non_snake_case)]\n    pub fn {}{generics}({});\n",
        family.pattern,
        family.members.join(", "),
        attr.written(),
        family.name,
        list.join(", ")
    );
    item
}

/// A kernel's item, with the attribute that binds it.
fn kernel_item(
    source: &str,
    kernel: &Declared,
    rename: Option<String>,
    types: &naming::TypeNames,
) -> String {
    // A type parameter named as the launcher itself (`n<N>` is `N<N>`) takes a `_`, in the
    // parameters' types too.
    let launcher = match &rename {
        Some(name) => name.clone(),
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
    let list = param_list(kernel, &param_types, types);
    let line = |attr: FnAttr| match attr.written() {
        written if written.is_empty() => written,
        written => format!("    {written}\n"),
    };
    // A name a raw identifier cannot spell (`Self`, declared `Self_`) gives its symbol.
    let fn_ident = rust_name(&kernel.name);
    let spelled = fn_ident.trim_start_matches("r#") == kernel.name;
    let attr = match (kernel.extern_c, &kernel.namespace) {
        // An instance of a variadic template, a kernel of an anonymous namespace: by its C++
        // name.
        _ if kernel.cpp_name.is_some() => FnAttr {
            name: kernel.cpp_name.clone(),
            rename,
            ..FnAttr::default()
        },
        (true, _) if !spelled => FnAttr {
            name: Some(kernel.name.clone()),
            rename,
            ..FnAttr::default()
        },
        (true, _) => FnAttr {
            rename,
            ..FnAttr::default()
        },
        (false, namespace) => FnAttr {
            cpp: true,
            namespace: namespace.clone(),
            rename,
            ..FnAttr::default()
        },
    };
    let generics = if kernel.generics.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = generics_list
            .iter()
            .map(|g| naming::unshadowed_generic(g, types))
            .collect();
        format!("<{}>", list.join(", "))
    };
    // Names as the source writes them (`N`, `transposeNaive`, `const blockSize: u32`).
    let allow = if kernel.generics.is_empty() {
        "#[allow(non_snake_case)]"
    } else {
        "#[allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]"
    };
    format!(
        "    /// `{}` of {source}.\n{}    {allow}\n    pub fn {}{generics}({});\n",
        kernel.shown.clone().unwrap_or_else(|| kernel.qualified()),
        line(attr),
        fn_ident,
        list.join(", ")
    )
}

/// A kernel's parameters, `name: Type`: a parameter named as a type of the file (a tuple
/// struct) or `None` takes a `_`, and stays unique among the kernel's.
fn param_list(kernel: &Declared, param_types: &[String], types: &naming::TypeNames) -> Vec<String> {
    let mut used: Vec<String> = kernel
        .params
        .iter()
        .map(|(n, _)| n.rsplit(' ').next().unwrap_or(n).to_string())
        .collect();
    kernel
        .params
        .iter()
        .zip(param_types)
        .map(|((n, _), t)| {
            let (attr, name) = match n.rsplit_once(' ') {
                Some((attr, name)) => (format!("{attr} "), name),
                None => (String::new(), n.as_str()),
            };
            let mut unshadowed = naming::unshadowed(name, types);
            if unshadowed != name {
                while used.contains(&unshadowed) || types.is_taken(&unshadowed) {
                    unshadowed.push('_');
                }
                used.push(unshadowed.clone());
            }
            format!("{attr}{unshadowed}: {t}")
        })
        .collect()
}
