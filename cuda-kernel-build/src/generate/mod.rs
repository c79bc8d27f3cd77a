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
mod items;
mod read;
mod rust;
mod write;

pub use accounting::{Accounting, Generated, entry_function, no_instance};
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
    /// What made the PTX the declarations are made from (`sm_80, nvcc V13.0.88`), said in the
    /// block's third line, where a committed copy keeps it.
    pub made_by: Option<&'a str>,
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
    let heads = scan(preprocessed, from_here);
    let empty = crate::facts::Facts::default();
    let facts = options.facts.unwrap_or(&empty);
    let mut from = compiled::FromFacts::new(facts, heads.structs.clone());
    from.crate_header = options.header.map(str::to_string);
    // The file's type names (naming.rs): the module type's, the records', then the launchers'.
    let mut types = naming::TypeNames::default();
    types.reserve(options.module);
    let by_hand = ByHand::new(options.hand_written);
    let mut out = Generated::default();
    let found = declare_kernels(
        source, &heads, from_here, options, facts, &by_hand, &mut from, &mut types, &mut out,
    );
    let families = families(
        &found
            .kernels
            .iter()
            .filter(|k| k.twin == 0)
            .cloned()
            .collect::<Vec<_>>(),
        options.hand_written,
        options.families,
        options.entries,
        &mut out.warnings,
        source,
    );
    let written = items::write(
        source, &found, &families, options, &by_hand, &mut types, &mut out,
    );
    account(source, &found, options, &by_hand, &mut out);
    let records = from.records;
    if !out.declared.is_empty() {
        out.rust = file_text(source, options, records, &written, &out.accounting);
    }
    out
}

/// Kernels the crate declares by hand: names of entries and C++ functions, patterns
/// (`u{op}_{T}`), and an instance's or an overload's C++ name (`name = "scale<float>"`,
/// `fill(double*, int)`), which is its entry's.
struct ByHand<'a> {
    hand_written: &'a [String],
    tag_names: Vec<String>,
}

impl<'a> ByHand<'a> {
    fn new(hand_written: &'a [String]) -> ByHand<'a> {
        let tag_names = family_tags().into_iter().map(|(t, _)| t).collect();
        ByHand {
            hand_written,
            tag_names,
        }
    }

    /// Whether `name` (an entry or a C++ function) is declared by hand.
    fn has(&self, name: &str) -> bool {
        self.hand_written.iter().any(|h| {
            h == name
                || (h.contains('{') && matches(h, name, &self.tag_names).is_some())
                || (name.starts_with("_Z")
                    && h.contains(['<', '('])
                    && cuda_kernel_syntax::demangle::names_entry(h, name))
        })
    }

    /// The family tags' names (`f32`, `bf16`).
    fn tag_names(&self) -> &[String] {
        &self.tag_names
    }
}

/// The file's kernels as [`declare_kernels`] found them.
struct FileKernels {
    /// The kernels declared.
    kernels: Vec<Declared>,
    /// Every kernel of the file, declared or not: what a named family may match.
    defined: Vec<String>,
    /// The kernels considered, as C++ names them: those not declared in the end are warned.
    considered: Vec<String>,
    /// Kernels of the toolkit's headers (CUB's), which the file's host code launches.
    toolkit: Vec<String>,
}

/// Every entry group of the PTX declared from the facts, or warned; templates without an
/// instance warned.
#[allow(clippy::too_many_arguments)]
fn declare_kernels<'f>(
    source: &str,
    heads: &Scanned,
    from_here: &dyn Fn(&str) -> bool,
    options: &Options<'_>,
    facts: &'f crate::facts::Facts,
    by_hand: &ByHand<'_>,
    from: &mut compiled::FromFacts<'f>,
    types: &mut naming::TypeNames,
    out: &mut Generated,
) -> FileKernels {
    let (entries, elsewhere) = (options.entries, options.elsewhere);
    let mut found = FileKernels {
        kernels: Vec::new(),
        defined: Vec::new(),
        considered: Vec::new(),
        toolkit: Vec::new(),
    };
    // The fn names of `kernels`, in Rust, each computed once.
    let mut fn_idents: Vec<String> = Vec::new();
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
    let structs = options.structs;
    let mut cx = declare::Cx {
        facts,
        from,
        structs,
        types,
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
            found.toolkit.push(function);
            continue;
        }
        found.defined.push(function.clone());
        let mine: Vec<&String> = group
            .entries
            .iter()
            .copied()
            .filter(|e| !by_hand.has(e) && !by_hand.has(&function))
            .collect();
        if mine.is_empty() || elsewhere.contains(&function) {
            continue;
        }
        found.considered.push(function.clone());
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
        let why = match options.facts.is_some() {
            true => declare::declare(&mut cx, &group, head, &found.kernels, &mut fn_idents),
            false => Err("the compiler's facts of the file were not read".into()),
        };
        match why {
            Ok(declared) => found.kernels.extend(declared),
            Err(why) => out.warnings.push(format!(
                "{source}: `{function}` is not generated: {why}: declare the kernel by hand"
            )),
        }
    }
    // Templates of the file the PTX has no instance of: nothing to declare, and said once for
    // the build where no other file declares them (a header's templates are in every file
    // that includes it).
    for kernel in heads.kernels.iter().filter(|k| k.template.is_some()) {
        let qualified = qualified(kernel.namespace.as_deref(), &kernel.name);
        if !groups.iter().any(|g| g.function == qualified)
            && !by_hand.has(&qualified)
            && !elsewhere.contains(&qualified)
        {
            out.no_instance.push(qualified);
        }
    }
    found
}

/// Every entry of the PTX, by the kernel it belongs to: declared here, by hand, in another
/// file's block, warned, or the toolkit's.
fn account(
    source: &str,
    found: &FileKernels,
    options: &Options<'_>,
    by_hand: &ByHand<'_>,
    out: &mut Generated,
) {
    let declared_here: Vec<String> = found.kernels.iter().map(Declared::qualified).collect();
    let warned: Vec<&str> = found
        .considered
        .iter()
        .filter(|qualified| !declared_here.contains(qualified))
        .map(|qualified| qualified.as_str())
        .collect();
    out.from_headers.retain(|name| declared_here.contains(name));
    out.accounting.entries = options.entries.len();
    for entry in options.entries {
        let function = entry_function(entry);
        let bucket = if declared_here.contains(&function) || out.declared.iter().any(|d| d == entry)
        {
            &mut out.accounting.declared
        } else if by_hand.has(entry) || by_hand.has(&function) {
            &mut out.accounting.by_hand
        } else if options.elsewhere.contains(&function) {
            &mut out.accounting.elsewhere
        } else if warned.contains(&function.as_str()) {
            &mut out.accounting.warned
        } else if found.toolkit.contains(&function) {
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
}

/// The file's Rust: its header lines, the records and enums the declared kernels take (and
/// those they hold), the block, and the blocks of twins.
fn file_text(
    source: &str,
    options: &Options<'_>,
    records: Vec<(usize, String, String, String, Vec<String>)>,
    written: &items::Written,
    accounting: &Accounting,
) -> String {
    let (items, twin_blocks) = (&written.items, &written.twin_blocks);
    let mut structs: Vec<(String, String)> = options.structs.to_vec();
    let mut struct_items: Vec<(String, String, Vec<String>)> = Vec::new();
    for (_, cpp, rust, item, uses) in records {
        if !item.is_empty() {
            structs.push((cpp.clone(), rust));
            struct_items.push((cpp, item, uses));
        }
    }
    // The file's structs the declared kernels take, and those they hold.
    let mut used: Vec<String> = Vec::new();
    let mut todo: Vec<String> = struct_items
        .iter()
        .filter(|(name, _, _)| {
            let Some((_, rust)) = structs.iter().find(|(c, _)| c == name) else {
                return false;
            };
            // A record a declaration names, or an enum whose values a template takes.
            let chosen = cuda_kernel_syntax::attr::enum_attr(name);
            mentions(items, rust)
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
    let (ptx, module) = (options.ptx, options.module);
    let mut rust = format!(
        "// Generated by cuda-kernel-build from {source}: every kernel the file defines that\n\
         // no hand-written #[kernel] block of the crate declares. Do not edit.\n\
         {}// {}.\n\
         {struct_text}\
         {}\n\
         unsafe extern \"C\" {{\n{items}}}\n",
        made_by_line(options.made_by),
        accounting,
        cuda_kernel_syntax::attr::block_attr(ptx, Some(module)),
    );
    for block in twin_blocks {
        let _ = write!(
            rust,
            "// Kernels named as one above, in another namespace: not in `{module}`.\n\
             {}\nunsafe extern \"C\" {{\n{block}}}\n",
            cuda_kernel_syntax::attr::block_attr(ptx, None),
        );
    }
    rust
}

/// The line of a generated block saying what made the PTX it was made from: `// From nvcc's
/// PTX for sm_80, nvcc V13.0.88.` (nothing where that is not known).
pub(crate) fn made_by_line(made_by: Option<&str>) -> String {
    made_by.map_or_else(String::new, |m| format!("// From nvcc's PTX for {m}.\n"))
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
