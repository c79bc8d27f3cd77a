//! A file's kernels declared from the compiler's facts: the PTX's entries grouped by the
//! kernel they are instances of, each group's parameters as nvcc typed them
//! ([`compiled::FromFacts`]), its binding (by name, by the symbol `#[kernel(cpp)]` derives, or
//! by C++ name) checked with the mangler `#[kernel]` itself uses, a template declared
//! generically where one declaration derives every instance's symbol.
//!
//! The only thing read from the source's text is what DWARF 2 does not carry: the names of a
//! template's parameters (`T`, `BLOCK_SIZE`) and which are packs, and `__grid_constant__`.

use std::collections::HashMap;

use cuda_kernel_syntax::cpp::{CppType, TemplateArg};
use cuda_kernel_syntax::{demangle, itanium, types};

use crate::facts::Facts;
use crate::naming;

use super::*;

/// The PTX's entries of one kernel: a template's instances, an overload set, or one entry.
pub(super) struct Group<'e> {
    /// The kernel as C++ names it, without template arguments (`ns::scale`,
    /// `(anonymous namespace)::fill`; an `extern "C"` kernel's name).
    pub(super) function: String,
    /// Its entries, in the PTX's order.
    pub(super) entries: Vec<&'e String>,
}

/// The entries grouped by kernel, in the order of each kernel's first entry.
pub(super) fn groups(entries: &[String]) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for entry in entries {
        let function = entry_function(entry);
        match groups.iter_mut().find(|g| g.function == function) {
            Some(group) => group.entries.push(entry),
            None => groups.push(Group {
                function,
                entries: vec![entry],
            }),
        }
    }
    groups
}

/// What declaring a file's groups needs.
pub(super) struct Cx<'a, 'f> {
    pub(super) facts: &'f Facts,
    pub(super) from: &'a mut compiled::FromFacts<'f>,
    /// C++ names of structs bound to Rust types (the crate's).
    pub(super) structs: &'a [(String, String)],
    pub(super) types: &'a mut naming::TypeNames,
    pub(super) source: &'a str,
    /// [`instance_counts`] of every entry of the PTX.
    pub(super) instances: &'a HashMap<String, usize>,
}

/// One entry's parameters as Rust declares them: names (with `#[kernel(grid_constant)]`
/// where the source says so) and types, and the C++ types `#[kernel]` mangles them as.
struct Instance<'e> {
    entry: &'e str,
    params: Vec<(String, String)>,
    cpp: Option<Vec<CppType>>,
    args: Option<Vec<TemplateArg>>,
}

/// Declares a group: its declarations, or why it cannot be declared (a warning's reason).
pub(super) fn declare(
    cx: &mut Cx<'_, '_>,
    group: &Group<'_>,
    head: Option<&Found>,
    kernels: &[Declared],
    fn_idents: &mut Vec<String>,
) -> Result<Vec<Declared>, String> {
    let instances = group
        .entries
        .iter()
        .map(|e| instance(cx, e, head))
        .collect::<Result<Vec<_>, _>>()?;
    let (namespace, name) = split_name(&group.function);
    let templated = instances.iter().any(|i| i.args.is_some());
    // `extern "C"`: by its name (no C++ symbol, `-rdc`'s internal prefix aside).
    if demangle::demangle(group.entries[0]).is_none() && !templated {
        let ident = rust_name(&group.function);
        let twin = fn_idents.iter().filter(|i| **i == ident).count();
        fn_idents.push(ident);
        return Ok(vec![Declared {
            name: group.function.clone(),
            namespace: None,
            extern_c: true,
            generics: Vec::new(),
            params: instances
                .into_iter()
                .next()
                .map(|i| i.params)
                .unwrap_or_default(),
            twin,
            symbol: None,
            shown: None,
            cpp_name: None,
        }]);
    }
    // A Rust identifier must spell the kernel for `#[kernel(cpp)]` to derive its symbol.
    let spelled = rust_name(&name).trim_start_matches("r#") == name;
    if !templated && instances.len() == 1 {
        let one = instances.into_iter().next().expect("one instance");
        let derived = spelled
            && one.cpp.as_ref().is_some_and(|cpp| {
                same_symbol(&itanium::mangle(&group.function, None, cpp), one.entry)
            });
        // One Rust name per block: a second kernel of the same name in another namespace is
        // declared in a block of its own.
        let ident = rust_name(&name);
        let twin = fn_idents.iter().filter(|i| **i == ident).count();
        fn_idents.push(ident);
        // A device function's address is declared `u64`: the doc line says which function type.
        let takes_function = demangle::param_types(one.entry).is_some_and(|types| {
            types
                .iter()
                .any(|t| demangle::function_pointer_levels(t).is_some())
        });
        return Ok(vec![Declared {
            name: name.clone(),
            namespace: namespace.clone(),
            extern_c: false,
            generics: Vec::new(),
            params: one.params,
            twin,
            symbol: None,
            shown: takes_function.then(|| demangle::written(one.entry)),
            // What no declaration derives (an anonymous namespace's hash, a `volatile`
            // pointee, a class template): by its C++ name, which the PTX check finds.
            cpp_name: (!derived).then(|| group.function.clone()),
        }]);
    }
    if templated && spelled {
        if let Some(declared) = generic(cx, group, head, &instances, fn_idents) {
            return Ok(vec![declared]);
        }
    }
    // Instance by instance, each by its C++ name (`k<op_add, float>`, `fill(double*, int)`).
    let mut all = Vec::new();
    for one in instances {
        let Some(cpp_name) = bound_name(one.entry, cx.instances) else {
            return Err(format!(
                "its instance `{}` has a symbol this generator does not read",
                demangle::shown(one.entry)
            ));
        };
        let words = match templated {
            true => cpp_name.clone(),
            false => String::new(),
        };
        let mut declared =
            bound_by_cpp_name(&name, &words, one.entry, one.params, kernels, fn_idents);
        declared.cpp_name = Some(cpp_name);
        all.push(declared);
    }
    Ok(all)
}

/// The C++ name an entry is declared by (`k_bin<op_repeat, float>`): its instance name where
/// that names no other entry of the PTX, else with its parameter list; `None` for a symbol
/// that does not demangle.
fn bound_name(entry: &str, instances: &HashMap<String, usize>) -> Option<String> {
    let name = demangle::instance_name(entry)?;
    match instances.get(&name).copied().unwrap_or(0) {
        0 | 1 => Some(name),
        _ => Some(demangle::written(entry)),
    }
}

/// How many entries of the PTX each instance name (`k<op, float>`, `fill`) names: more than
/// one for an overload set. Demangled once per entry, not per pair.
pub(super) fn instance_counts(entries: &[String]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for entry in entries {
        if let Some(name) = demangle::instance_name(entry) {
            *counts.entry(name).or_insert(0) += 1;
        }
    }
    counts
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
    // A kernel named `_` with no arguments (`_<>`) leaves no word: `kernel`.
    let base = match base.trim_end_matches('_') {
        "" => "kernel".to_string(),
        words => words.to_string(),
    };
    let mut name = base.clone();
    let mut n = 2;
    while kernels.iter().any(|k| k.name == name) || fn_idents.contains(&rust_name(&name)) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
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

/// `ns::inner::k` as its namespace and its name; an anonymous namespace as C++'s demangler
/// spells it.
fn split_name(function: &str) -> (Option<String>, String) {
    match function.rsplit_once("::") {
        Some((ns, name)) => (Some(ns.to_string()), name.to_string()),
        None => (None, function.to_string()),
    }
}

/// Whether `mangled` is the entry's symbol, nvcc's run-dependent internal parts aside.
fn same_symbol(mangled: &str, entry: &str) -> bool {
    use cuda_kernel_syntax::itanium::{without_internal_parts, without_nv_static_prefix};
    without_internal_parts(mangled) == without_internal_parts(without_nv_static_prefix(entry))
}

/// One entry's parameters from the facts; names as the definition writes them (a pack's,
/// which DWARF names alike, numbered: `args0`, `args1`).
fn instance<'e>(
    cx: &mut Cx<'_, '_>,
    entry: &'e str,
    head: Option<&Found>,
) -> Result<Instance<'e>, String> {
    let facts_entry = cx
        .facts
        .entry(entry)
        .ok_or("the compiler's facts do not have it (its debug information has no such kernel)")?;
    if facts_entry.params.len() != facts_entry.ptx_params {
        return Err(format!(
            "its PTX entry takes {} parameters, of which its debug information leaves out {} (cicc \
             leaves out a `__grid_constant__` parameter the kernel never reads)",
            facts_entry.ptx_params,
            facts_entry
                .ptx_params
                .saturating_sub(facts_entry.params.len())
        ));
    }
    // `__grid_constant__` is not in the debug information: the source's own words, where the
    // definition's parameters are the entry's one for one.
    let grid_constant: Vec<bool> = match head {
        Some(found) if found.params.len() == facts_entry.params.len() => found
            .params
            .iter()
            .map(|p| {
                p.iter().any(|t| {
                    matches!(t, Token::Ident(w) if w == "__grid_constant__" || w == "grid_constant")
                })
            })
            .collect(),
        _ => vec![false; facts_entry.params.len()],
    };
    let types = cx
        .from
        .params(entry, &grid_constant, cx.structs, cx.types, cx.source)
        .ok_or("the compiler's facts do not have it")?
        .map_err(|why| format!("its {why}"))?;
    let names: Vec<String> = (0..types.len())
        .map(|i| {
            facts_entry
                .names
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_else(|| format!("arg{i}"))
        })
        .collect();
    let mut taken = Vec::new();
    let params: Vec<(String, String)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let repeated = names.iter().filter(|m| *m == n).count() > 1;
            let n = match repeated {
                true => format!("{n}{}", names[..i].iter().filter(|m| *m == n).count()),
                false => n.clone(),
            };
            let name = naming::param(&n, &mut taken);
            let attr = match grid_constant[i] && !types[i].ends_with("RawTensorMap") {
                true => format!("{} ", cuda_kernel_syntax::attr::GRID_CONSTANT),
                false => String::new(),
            };
            (format!("{attr}{name}"), types[i].clone())
        })
        .collect();
    let cpp = types
        .iter()
        .map(|t| cpp_of(t, cx))
        .collect::<Option<Vec<_>>>();
    let args = demangle::template_args(entry).map(|args| {
        args.iter()
            .map(|a| TemplateArg::from_demangled(a))
            .collect::<Option<Vec<_>>>()
    });
    let args = match args {
        None => None,
        Some(Some(args)) => Some(args),
        // Arguments no Rust spells: instance by instance.
        Some(None) => Some(Vec::new()),
    };
    Ok(Instance {
        entry,
        params,
        cpp,
        args,
    })
}

/// The C++ type `#[kernel]` mangles a generated parameter's Rust type as: a record or an enum
/// by its C++ name; `None` where no declaration derives the symbol (a class template's
/// instance, a type of an anonymous namespace, an array).
fn cpp_of(text: &str, cx: &Cx<'_, '_>) -> Option<CppType> {
    for (prefix, to_const) in [("*const ", true), ("*mut ", false)] {
        if let Some(rest) = text.strip_prefix(prefix) {
            return Some(CppType::Pointer {
                to_const,
                to: Box::new(cpp_of(rest, cx)?),
            });
        }
    }
    let named = cx.from.cpp_of_record(text).or_else(|| {
        cx.structs
            .iter()
            .find(|(_, r)| r == text)
            .map(|(c, _)| c.clone())
    });
    if let Some(cpp) = named {
        let derivable =
            !cpp.is_empty() && !cpp.contains('<') && !cpp.contains(demangle::ANONYMOUS_NAMESPACE);
        return derivable.then_some(CppType::Named(cpp));
    }
    match CppType::from_rust(text, &[])? {
        CppType::Builtin(t) => Some(CppType::Builtin(t)),
        _ => None,
    }
}

/// A template's one generic declaration (`fn scale<T, const N: i32>(x: *mut T, ...)`), where
/// the template's head names its parameters, every instance's arguments are of the kinds Rust
/// spells, and its parameters' types with the type arguments in them derive every instance's
/// symbol; `None` otherwise.
fn generic(
    cx: &mut Cx<'_, '_>,
    group: &Group<'_>,
    head: Option<&Found>,
    instances: &[Instance<'_>],
    fn_idents: &mut Vec<String>,
) -> Option<Declared> {
    let head = head?.template.as_ref()?;
    if head.iter().any(|p| is_pack(p)) {
        return None;
    }
    let args: Vec<&Vec<TemplateArg>> = instances
        .iter()
        .map(|i| i.args.as_ref().filter(|a| a.len() == head.len()))
        .collect::<Option<_>>()?;
    let cpp: Vec<&Vec<CppType>> = instances
        .iter()
        .map(|i| i.cpp.as_ref())
        .collect::<Option<_>>()?;
    let first = args[0];
    // Every instance's argument at a place is of one kind (a type; an integer of one type;
    // a value of one enum; a function of one signature).
    let kind = |a: &TemplateArg| match a {
        TemplateArg::Type(_) => "type".to_string(),
        TemplateArg::Int { code, .. } => format!("int {code}"),
        TemplateArg::Enum { name, .. } => format!("enum {name}"),
        TemplateArg::Function { params, .. } => format!("fn {params:?}"),
    };
    if args
        .iter()
        .any(|a| a.iter().zip(first.iter()).any(|(x, y)| kind(x) != kind(y)))
    {
        return None;
    }
    let chosen = readings(&group.function, instances, &args, &cpp)?;
    // The template's parameters by the head's names.
    let mut taken: Vec<String> = Vec::new();
    let mut generics: Vec<String> = Vec::new();
    let mut type_names: Vec<String> = Vec::new();
    for (p, arg) in head.iter().zip(first.iter()) {
        let name = head_name(p)?;
        generics.push(match arg {
            TemplateArg::Type(_) => {
                let rust = naming::type_param(&name, &mut taken);
                type_names.push(rust.clone());
                rust
            }
            TemplateArg::Int { code, .. } => {
                let ty = types::all()
                    .find(|t| t.itanium == Some(*code) && t.class == types::Class::Integer)
                    .and_then(|t| builtin(t.cuda))?;
                format!("const {}: {ty}", naming::param(&name, &mut taken))
            }
            TemplateArg::Enum { name: e, .. } => {
                // The enum written too, where the facts have it: its enumerators name the
                // values a launch chooses.
                if let Some(&(_, ty)) = cx.facts.enums.iter().find(|(n, _)| n == e) {
                    let _ = cx.from.value(Some(ty), cx.structs, cx.types, cx.source);
                }
                format!(
                    "{} const {}: i32",
                    cuda_kernel_syntax::attr::enum_attr(e),
                    naming::param(&name, &mut taken)
                )
            }
            TemplateArg::Function {
                name: f, params, ..
            } => {
                let list = params
                    .iter()
                    .map(|p| rust_of(p, &[], cx))
                    .collect::<Option<Vec<_>>>()?;
                let returns = match cx.facts.returns(f, params.len()) {
                    Some(None) => String::new(),
                    Some(Some(ty)) => {
                        let ty = cx
                            .from
                            .value(Some(ty), cx.structs, cx.types, cx.source)
                            .ok()?;
                        format!(" -> {ty}")
                    }
                    None => return None,
                };
                format!(
                    "const {}: fn({}){returns}",
                    naming::param(&name, &mut taken),
                    list.join(", ")
                )
            }
        });
    }
    // Parameters named apart from the template's.
    let mut names_taken = taken.clone();
    let params: Vec<(String, String)> = instances[0]
        .params
        .iter()
        .zip(&chosen)
        .map(|((n, concrete), generic)| {
            let (attr, bare) = match n.rsplit_once(' ') {
                Some((attr, bare)) => (format!("{attr} "), bare),
                None => (String::new(), n.as_str()),
            };
            let name = match names_taken.contains(&bare.to_string()) {
                true => naming::param(&format!("{bare}_"), &mut names_taken),
                false => {
                    names_taken.push(bare.to_string());
                    bare.to_string()
                }
            };
            let ty = match has_param(generic) {
                true => rust_of(generic, &type_names, cx)?,
                false => concrete.clone(),
            };
            Some((format!("{attr}{name}"), ty))
        })
        .collect::<Option<_>>()?;
    let (namespace, name) = split_name(&group.function);
    let ident = rust_name(&name);
    let twin = fn_idents.iter().filter(|i| **i == ident).count();
    fn_idents.push(ident);
    Some(Declared {
        name,
        namespace,
        extern_c: false,
        generics,
        params,
        twin,
        symbol: None,
        shown: None,
        cpp_name: None,
    })
}

/// The parameters' types of a template's one declaration: each parameter's type with a type
/// argument in place of the part that is that argument in every instance, or as it is where
/// every instance has it alike, chosen so that `#[kernel]`'s mangler derives every instance's
/// symbol (a bounded search, the type parameters' readings first); `None` where none does.
fn readings(
    function: &str,
    instances: &[Instance<'_>],
    args: &[&Vec<TemplateArg>],
    cpp: &[&Vec<CppType>],
) -> Option<Vec<CppType>> {
    // Type arguments, by the ordinal `CppType::Param` counts them by.
    let type_args = |args: &[TemplateArg]| -> Vec<CppType> {
        args.iter()
            .filter_map(|a| match a {
                TemplateArg::Type(t) => Some(t.clone()),
                _ => None,
            })
            .collect()
    };
    let per_instance: Vec<Vec<CppType>> = args.iter().map(|a| type_args(a)).collect();
    let n = cpp[0].len();
    if cpp.iter().any(|c| c.len() != n) {
        return None;
    }
    // Each parameter's readings: its type with a type argument in place of the part that is
    // that argument in every instance, or as it is where every instance has it alike.
    let mut options: Vec<Vec<CppType>> = Vec::new();
    for (j, first) in cpp[0].iter().enumerate() {
        let mut mine = Vec::new();
        for (depth, part) in suffixes(first).into_iter().enumerate() {
            for (t, arg) in per_instance[0].iter().enumerate() {
                if *arg != part {
                    continue;
                }
                let generic = replace_at(first, depth, CppType::Param(t));
                let fits = cpp
                    .iter()
                    .zip(&per_instance)
                    .all(|(c, args)| substitute(&generic, args).as_ref() == Some(&c[j]));
                if fits && !mine.contains(&generic) {
                    mine.push(generic);
                }
            }
        }
        if cpp.iter().all(|c| c[j] == *first) {
            mine.push(first.clone());
        }
        if mine.is_empty() {
            return None;
        }
        options.push(mine);
    }
    // The reading whose symbols are the instances' (the mangler of `#[kernel]`), tried in
    // order, the type parameters' readings first; a bounded search.
    let mut choice = vec![0usize; n];
    let mut tried = 0;
    loop {
        let params: Vec<CppType> = choice
            .iter()
            .enumerate()
            .map(|(j, &c)| options[j][c].clone())
            .collect();
        if instances
            .iter()
            .zip(args)
            .all(|(i, a)| same_symbol(&itanium::mangle(function, Some(a), &params), i.entry))
        {
            return Some(params);
        }
        tried += 1;
        if tried > 4096 {
            return None;
        }
        // The next choice, as an odometer.
        let mut j = n;
        loop {
            if j == 0 {
                return None;
            }
            j -= 1;
            choice[j] += 1;
            if choice[j] < options[j].len() {
                break;
            }
            choice[j] = 0;
        }
    }
}

/// The name a template head's parameter gives (`T` of `typename T`, `N` of `int N = 4`,
/// `op` of `float (*op)(float)`).
fn head_name(tokens: &[Token]) -> Option<String> {
    let tokens = match tokens.iter().position(|t| matches!(t, Token::Punct('='))) {
        Some(eq) => &tokens[..eq],
        None => tokens,
    };
    if let Some(open) = tokens
        .windows(2)
        .position(|w| is_punct(w.first(), '(') && is_punct(w.get(1), '*'))
    {
        return match tokens.get(open + 2) {
            Some(Token::Ident(name)) => Some(name.clone()),
            _ => None,
        };
    }
    match tokens.last() {
        Some(Token::Ident(name)) if tokens.len() >= 2 => Some(name.clone()),
        _ => None,
    }
}

/// A type and what it points at, outermost first (`float**`, `float*`, `float`).
fn suffixes(ty: &CppType) -> Vec<CppType> {
    let mut out = vec![ty.clone()];
    let mut at = ty;
    while let CppType::Pointer { to, .. } = at {
        out.push((**to).clone());
        at = to;
    }
    out
}

/// `ty` with what it points at `depth` pointers down replaced by `with`.
fn replace_at(ty: &CppType, depth: usize, with: CppType) -> CppType {
    match (depth, ty) {
        (0, _) => with,
        (_, CppType::Pointer { to_const, to }) => CppType::Pointer {
            to_const: *to_const,
            to: Box::new(replace_at(to, depth - 1, with)),
        },
        _ => ty.clone(),
    }
}

/// `ty` with the type arguments in place of the parameters.
fn substitute(ty: &CppType, args: &[CppType]) -> Option<CppType> {
    Some(match ty {
        CppType::Param(i) => args.get(*i)?.clone(),
        CppType::Pointer { to_const, to } => CppType::Pointer {
            to_const: *to_const,
            to: Box::new(substitute(to, args)?),
        },
        other => other.clone(),
    })
}

fn has_param(ty: &CppType) -> bool {
    match ty {
        CppType::Param(_) => true,
        CppType::Pointer { to, .. } => has_param(to),
        _ => false,
    }
}

/// A C++ type as a generated declaration writes it, the type parameters by their names.
fn rust_of(ty: &CppType, type_names: &[String], cx: &Cx<'_, '_>) -> Option<String> {
    Some(match ty {
        CppType::Builtin(t) => builtin(t.cuda)?,
        CppType::Param(i) => type_names.get(*i)?.clone(),
        CppType::Named(name) => cx.from.rust_of_record(name).or_else(|| {
            cx.structs
                .iter()
                .find(|(c, r)| c == name && !r.is_empty())
                .map(|(_, r)| r.clone())
        })?,
        CppType::Pointer { to_const, to } => format!(
            "*{} {}",
            if *to_const { "const" } else { "mut" },
            rust_of(to, type_names, cx)?
        ),
    })
}
