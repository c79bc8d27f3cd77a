//! Dtype families and kernels named at run time (`affine_{T}`, `u{op}_{T}`): their members
//! among the PTX's entries, each checked with its type arguments substituted.

use crate::ast::{Kernel, KernelGeneric, Member, MemberType, Members};
use crate::demangle;
use crate::pattern;
use crate::ptx::Entry;
use crate::report::Errors;
use crate::types::{self};

use super::*;

/// The fixed text of a symbol pattern, in bytes: how specific it is.
pub(super) fn literal_len(pattern: &str) -> usize {
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
pub(super) struct TypeChoice {
    /// What `{T}` becomes.
    pub(super) name: String,
    /// The type, for generated code.
    pub(super) ty: MemberType,
    /// Its size and alignment, where the front end knows them.
    pub(super) layout: Option<(usize, usize)>,
}

pub(super) fn type_choices(kernel: &Kernel) -> Vec<TypeChoice> {
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
pub(super) fn family_members(kernel: &Kernel, file: &PtxFile, exclude: &[String]) -> Vec<Member> {
    family_matches(kernel, file, exclude)
        .into_iter()
        .map(|(member, _, _)| member)
        .collect()
}

/// A member, its entry, and its type arguments' sizes and alignments where known.
pub(super) type Match<'f> = (Member, &'f Entry, Vec<Option<(usize, usize)>>);

/// [`family_members`], with each member's entry and its type arguments' layouts.
pub(super) fn family_matches<'f>(
    kernel: &Kernel,
    file: &'f PtxFile,
    exclude: &[String],
) -> Vec<Match<'f>> {
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
pub(super) fn check_family(
    cx: &mut Errors,
    kernel: &Kernel,
    file: &PtxFile,
    exclude: &[String],
) -> Members {
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
