//! Dtype families: kernels that differ only in their element types (`cast_f32_f16`, ...),
//! found among a file's `extern "C"` kernels and declared once, generically.

use cuda_kernel_syntax::types;

use crate::naming::ident as rust_name;

use super::*;

/// A kernel ready to declare.
#[derive(Clone)]
pub(super) struct Declared {
    pub(super) name: String,
    /// The C++ namespace, nested ones joined by `::`.
    pub(super) namespace: Option<String>,
    pub(super) extern_c: bool,
    /// `<T, const N: u32>` for a template, empty otherwise.
    pub(super) generics: Vec<String>,
    pub(super) params: Vec<(String, String)>,
    /// How many kernels of the same name (in other namespaces) come before it: a twin (1 and
    /// up) is declared in a block of its own, renamed after its C++ name.
    pub(super) twin: usize,
    /// The entry symbol, for an instance of a variadic template declared by it (`name` is then
    /// the fn's, `pack_float_int`).
    pub(super) symbol: Option<String>,
    /// That instance as C++ writes it, for its doc line.
    pub(super) shown: Option<String>,
    /// The C++ name it is bound by (`#[kernel(name = "k<op, float>")]`), where its symbol holds
    /// what no declaration derives: a variadic template's instance, a kernel of an anonymous
    /// namespace or taking a `volatile` pointer.
    pub(super) cpp_name: Option<String>,
}

impl Declared {
    /// Its name as C++ qualifies it: `ns::plain`.
    pub(super) fn qualified(&self) -> String {
        qualified(self.namespace.as_deref(), &self.name)
    }
}

/// The Rust names of the element types a family's member names end in (`fill_f32`): the
/// scalar and half types, named in symbols by their Rust names.
pub(super) fn family_tags() -> Vec<(String, String)> {
    types::SCALARS
        .iter()
        .chain(&types::HALF)
        .filter(|t| t.rust != "bool")
        .filter_map(|t| Some((t.name().to_string(), builtin(t.cuda)?)))
        .collect()
}

/// A family to declare once: its symbol pattern (`fill_{T}`, `u{op}_{T}`, `cast_{T}_{U}`),
/// its Rust name, its type parameters, its parameters in them, its members.
#[derive(Clone, Debug)]
pub(super) struct Family {
    pub(super) pattern: String,
    pub(super) name: String,
    pub(super) type_params: Vec<String>,
    pub(super) params: Vec<(String, String)>,
    pub(super) members: Vec<String>,
}

/// A family the build script names for one file: [`Options::families`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedFamily {
    /// The symbol pattern: type parameters as `{T}` (a capital first letter), the part chosen
    /// at run time as `{op}` (a small one): `u{op}_{T}`, `cast_{T}_{U}`.
    pub pattern: String,
    /// The Rust name of its declaration (`unary`).
    pub name: String,
}

/// Whether a pattern's placeholder names a type parameter (`{T}`, `{I}`) rather than the part
/// chosen at run time (`{op}`).
pub(super) fn is_type_hole(hole: &str) -> bool {
    hole.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Whether `name` is a symbol `pattern` matches, its type placeholders taking element type
/// tags (`f32`, `bf16`), with the placeholders' values.
pub(super) fn matches<'p>(
    pattern: &'p str,
    name: &str,
    tag_names: &[String],
) -> Option<Vec<(&'p str, String)>> {
    let choices = |hole: &str| is_type_hole(hole).then_some(tag_names);
    cuda_kernel_syntax::pattern::fill(pattern, name, &choices)
}

/// A type with each word naming a type parameter's element type replaced by the parameter
/// (`*const f32` with `T = f32` is `*const T`).
pub(super) fn generic_type(ty: &str, bound: &[(&str, &str)]) -> String {
    replace_words(ty, |w| {
        bound.iter().find(|(_, rust)| *rust == w).map(|(h, _)| *h)
    })
}

/// The other way: a generic type with its parameters replaced by their element types.
pub(super) fn concrete_type(ty: &str, bound: &[(&str, &str)]) -> String {
    replace_words(ty, |w| {
        bound.iter().find(|(h, _)| *h == w).map(|(_, rust)| *rust)
    })
}

/// `ty` with each space-separated word that `replace` maps replaced.
pub(super) fn replace_words<'a>(ty: &'a str, replace: impl Fn(&str) -> Option<&'a str>) -> String {
    ty.split(' ')
        .map(|w| replace(w).unwrap_or(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A kernel with its pattern's placeholders' values (`("T", "f32")`).
pub(super) type Matched<'a, 'p> = (&'a Declared, Vec<(&'p str, String)>);

/// Parameters with type parameters in them, and which members fit them.
pub(super) type Shape = (Vec<(String, String)>, Vec<usize>);

/// The parameters that most of `members` share once their element types are the type
/// parameters, and which members fit them. Candidates come from each member whose type
/// parameters stand for distinct types (in `cast_f32_f32` a `f32` could be either); every
/// type parameter must appear in them. `None` when no candidate fits any member.
pub(super) fn shape_of(members: &[Matched<'_, '_>], tags: &[(String, String)]) -> Option<Shape> {
    let rust_of = |tag: &str| tags.iter().find(|(t, _)| t == tag).map(|(_, r)| r.as_str());
    let bound_of = |values: &[(&str, String)]| -> Option<Vec<(String, String)>> {
        values
            .iter()
            .filter(|(h, _)| is_type_hole(h))
            .map(|(h, tag)| Some((h.to_string(), rust_of(tag)?.to_string())))
            .collect()
    };
    let mut best: Option<Shape> = None;
    let mut tried: Vec<Vec<(String, String)>> = Vec::new();
    for (kernel, values) in members {
        let Some(bound) = bound_of(values) else {
            continue;
        };
        let bound_ref: Vec<(&str, &str)> = bound
            .iter()
            .map(|(h, r)| (h.as_str(), r.as_str()))
            .collect();
        let distinct = bound_ref
            .iter()
            .enumerate()
            .all(|(i, (_, r))| bound_ref[..i].iter().all(|(_, s)| s != r));
        if !distinct {
            continue;
        }
        let candidate: Vec<(String, String)> = kernel
            .params
            .iter()
            .map(|(n, t)| (n.clone(), generic_type(t, &bound_ref)))
            .collect();
        let uses_all = bound_ref
            .iter()
            .all(|(h, _)| candidate.iter().any(|(_, t)| t.split(' ').any(|w| w == *h)));
        if !uses_all || tried.contains(&candidate) {
            continue;
        }
        let fitting: Vec<usize> = members
            .iter()
            .enumerate()
            .filter(|(_, (k, values))| {
                let Some(bound) = bound_of(values) else {
                    return false;
                };
                let bound: Vec<(&str, &str)> = bound
                    .iter()
                    .map(|(h, r)| (h.as_str(), r.as_str()))
                    .collect();
                k.params.len() == candidate.len()
                    && k.params
                        .iter()
                        .zip(&candidate)
                        .all(|((n, t), (cn, ct))| n == cn && *t == concrete_type(ct, &bound))
            })
            .map(|(i, _)| i)
            .collect();
        if best.as_ref().is_none_or(|(_, b)| fitting.len() > b.len()) {
            best = Some((candidate.clone(), fitting));
        }
        tried.push(candidate);
    }
    best.filter(|(_, fitting)| !fitting.is_empty())
}

/// Families of `extern "C"` kernels, and the kernels of `kernels` they leave to be declared
/// one by one.
///
/// First the families the build script names, those whose pattern has more fixed text first
/// (as the macro gives an entry two run-time patterns match to the one with more): the
/// kernels the pattern matches that share most members' parameters (once element types are
/// type parameters); a pattern with a part chosen at run time leaves the others to be declared
/// apart (the macro does not count as members the entries another declaration binds), one
/// without needs them all to fit. Then, of the rest, families stamped out per element type:
/// `<prefix>_<tag>_<tag>` (`cast_f32_f16`, both tags taking at least two values), then
/// `<prefix>_<tag>` (candle's `fill_u8`, `fill_f32`), each needing every member of its prefix
/// to fit, none declared by hand, and no kernel named as the prefix. A family is formed only
/// where every PTX entry its pattern matches is one of its members (or, for a run-time
/// pattern, declared apart), since the macro checks them all.
pub(super) fn families(
    kernels: &[Declared],
    hand_written: &[String],
    named: &[NamedFamily],
    entries: &[String],
    warnings: &mut Vec<String>,
    source: &str,
) -> Vec<Family> {
    let tags = family_tags();
    let mut taken: Vec<&str> = Vec::new();
    let mut out: Vec<Family> = Vec::new();
    let given = Given {
        kernels,
        hand_written,
        entries,
        tags: &tags,
    };
    named_families(&given, named, warnings, source, &mut taken, &mut out);
    stamped_families(&given, &mut taken, &mut out);
    out
}

/// What both kinds of family are formed from.
struct Given<'k> {
    kernels: &'k [Declared],
    hand_written: &'k [String],
    entries: &'k [String],
    tags: &'k [(String, String)],
}

impl<'k> Given<'k> {
    /// The kernels no family has taken yet that one may: `extern "C"` and not templates.
    fn free(&self, taken: &[&str]) -> Vec<&'k Declared> {
        self.kernels
            .iter()
            .filter(|k| k.extern_c && k.generics.is_empty() && !taken.contains(&k.name.as_str()))
            .collect()
    }

    fn tag_names(&self) -> Vec<String> {
        self.tags.iter().map(|(t, _)| t.clone()).collect()
    }
}

/// The families the build script names, those whose pattern has more fixed text first.
fn named_families<'k>(
    given: &Given<'k>,
    named: &[NamedFamily],
    warnings: &mut Vec<String>,
    source: &str,
    taken: &mut Vec<&'k str>,
    out: &mut Vec<Family>,
) {
    let (kernels, hand_written, entries, tags) =
        (given.kernels, given.hand_written, given.entries, given.tags);
    let tag_names = given.tag_names();
    let literal = |p: &str| {
        cuda_kernel_syntax::pattern::pieces(p)
            .iter()
            .map(|piece| match piece {
                cuda_kernel_syntax::pattern::Piece::Text(t) => t.len(),
                cuda_kernel_syntax::pattern::Piece::Hole(_) => 0,
            })
            .sum::<usize>()
    };
    let mut order: Vec<&NamedFamily> = named.iter().collect();
    order.sort_by_key(|f| std::cmp::Reverse(literal(&f.pattern)));
    for family in order {
        let pattern = family.pattern.as_str();
        let holes = cuda_kernel_syntax::pattern::holes(pattern);
        let type_params: Vec<String> = holes
            .iter()
            .filter(|h| is_type_hole(h))
            .map(|h| h.to_string())
            .collect();
        let run_time = holes.len() - type_params.len();
        let mut warn = |why: String| {
            warnings.push(format!(
                "{source}: the family `{pattern}` ({}) is not generated: {why}",
                family.name
            ));
        };
        // `get_rows_{q}` (a name chosen at run time) or `fill_{T}` (a type) at least.
        if run_time > 1 || holes.is_empty() {
            warn(
                "a family pattern has at most one part chosen at run time (`{op}`) and type \
                 parameters (`{T}`) for the others, and at least one of them"
                    .to_string(),
            );
            continue;
        }
        let candidates: Vec<Matched<'_, '_>> = given
            .free(taken)
            .into_iter()
            .filter_map(|k| Some((k, matches(pattern, &k.name, &tag_names)?)))
            .collect();
        if candidates.is_empty() {
            continue; // all declared by hand, or none (said below)
        }
        let Some((params, fitting)) = shape_of(&candidates, tags) else {
            warn("no kernel it matches has its element types among the parameters".to_string());
            continue;
        };
        let members: Vec<String> = fitting
            .iter()
            .map(|&i| candidates[i].0.name.clone())
            .collect();
        if run_time == 0 && fitting.len() != candidates.len() {
            let unfit: Vec<&str> = candidates
                .iter()
                .filter(|(k, _)| !members.contains(&k.name))
                .map(|(k, _)| k.name.as_str())
                .collect();
            warn(format!(
                "{} match{} it with other parameters (a pattern without a part chosen at run \
                 time takes every kernel it matches)",
                unfit.join(", "),
                if unfit.len() == 1 { "es" } else { "" },
            ));
            continue;
        }
        let declared_apart = |e: &str| {
            kernels
                .iter()
                .any(|k| k.name == e && !members.contains(&k.name))
        };
        let unfit: Vec<&str> = entries
            .iter()
            .filter(|e| matches(pattern, e, &tag_names).is_some())
            .filter(|e| !members.contains(e) && (run_time == 0 || !declared_apart(e)))
            .map(String::as_str)
            .collect();
        if !unfit.is_empty() {
            warn(format!(
                "{} match{} it with other parameters{}",
                unfit.join(", "),
                if unfit.len() == 1 { "es" } else { "" },
                if run_time == 0 {
                    ""
                } else {
                    " and cannot be declared apart"
                }
            ));
            continue;
        }
        if let Some(by_hand) = members.iter().find(|m| hand_written.contains(m)) {
            warn(format!("`{by_hand}` is declared by hand"));
            continue;
        }
        taken.extend(fitting.iter().map(|&i| candidates[i].0.name.as_str()));
        out.push(Family {
            pattern: pattern.to_string(),
            name: family.name.clone(),
            type_params,
            params,
            members,
        });
    }
}

/// Families stamped out per element type, of the kernels no named family took.
fn stamped_families<'k>(given: &Given<'k>, taken: &mut Vec<&'k str>, out: &mut Vec<Family>) {
    let (kernels, hand_written, entries, tags) =
        (given.kernels, given.hand_written, given.entries, given.tags);
    let tag_names = given.tag_names();
    // Families stamped out per element type: two tags, then one.
    for holes in [&["T", "U"][..], &["T"][..]] {
        let suffix: String = holes.iter().map(|h| format!("_{{{h}}}")).collect();
        let mut groups: Vec<(String, Vec<Matched<'_, '_>>)> = Vec::new();
        for kernel in given.free(taken) {
            // The prefix: the name less one tag per hole, each after a `_`.
            let mut rest = kernel.name.as_str();
            let mut values = Vec::new();
            for hole in holes.iter().rev() {
                let Some((tag, before)) = tag_names.iter().find_map(|tag| {
                    let before = rest.strip_suffix(tag.as_str())?.strip_suffix('_')?;
                    Some((tag.clone(), before))
                }) else {
                    values.clear();
                    break;
                };
                values.insert(0, (*hole, tag));
                rest = before;
            }
            if values.len() != holes.len() || rest.is_empty() {
                continue;
            }
            let prefix = rest.to_string();
            match groups.iter_mut().find(|(p, _)| *p == prefix) {
                Some((_, members)) => members.push((kernel, values)),
                None => groups.push((prefix, vec![(kernel, values)])),
            }
        }
        for (prefix, members) in groups {
            let pattern = format!("{prefix}{suffix}");
            let by_hand = members.iter().any(|(k, _)| hand_written.contains(&k.name));
            let each_varies = holes.iter().all(|h| {
                let mut seen: Vec<&str> = Vec::new();
                for (_, values) in &members {
                    if let Some((_, v)) = values.iter().find(|(x, _)| x == h) {
                        if !seen.contains(&v.as_str()) {
                            seen.push(v);
                        }
                    }
                }
                seen.len() >= 2
            });
            if members.len() < 2
                || by_hand
                || !each_varies
                || kernels.iter().any(|k| k.name == prefix)
                || out.iter().any(|f| f.name == rust_name(&prefix))
            {
                continue;
            }
            let Some((params, fitting)) = shape_of(&members, tags) else {
                continue;
            };
            let all_entries = entries
                .iter()
                .filter(|e| matches(&pattern, e, &tag_names).is_some())
                .all(|e| members.iter().any(|(k, _)| k.name == *e));
            if fitting.len() != members.len() || !all_entries {
                continue;
            }
            taken.extend(members.iter().map(|(k, _)| k.name.as_str()));
            out.push(Family {
                pattern,
                name: rust_name(&prefix),
                type_params: holes.iter().map(|h| h.to_string()).collect(),
                params,
                members: members.iter().map(|(k, _)| k.name.clone()).collect(),
            });
        }
    }
}
