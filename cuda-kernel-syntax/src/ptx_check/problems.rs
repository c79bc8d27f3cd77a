//! Mistakes shared by several members or instances of a generic declaration, reported once
//! naming them, and the per-instance check of parameter count, sizes and alignments.

use syn::Type;

use crate::ast::Kernel;
use crate::check::type_text;
use crate::ptx::{Entry, PtxParam};
use crate::report::Errors;
use crate::types::{self};

/// The Rust types that fit a PTX parameter.
pub(super) fn suggestion(ptx: &PtxParam) -> String {
    types::suggestion(&ptx.ty, ptx.array_len, ptx.size, ptx.align)
}

/// Mistakes of a generic declaration, each with the instances or members it concerns, so that
/// a wrong parameter shared by nine members is one error.
#[derive(Default)]
pub(super) struct Problems {
    /// (parameter, or `None` for the count; the mistake) and the instances showing it.
    pub(super) found: Vec<(Option<usize>, String, Vec<String>)>,
}

impl Problems {
    pub(super) fn add(&mut self, param: Option<usize>, what: String, instance: String) {
        match self
            .found
            .iter_mut()
            .find(|(p, w, _)| *p == param && *w == what)
        {
            Some((_, _, instances)) => instances.push(instance),
            None => self.found.push((param, what, vec![instance])),
        }
    }

    pub(super) fn report(self, cx: &mut Errors, kernel: &Kernel, shown: &str) {
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

/// Rule: an instance takes as many parameters as declared, each of the size and alignment the
/// declaration gives it with the type arguments substituted (`layouts`, one per type parameter,
/// `None` where unknown). `{which}` in a problem's text stands for the instances it concerns.
pub(super) fn instance_problems(
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
                        "`{}: {}` is {size} byte{} in {{which}}, whose parameter {} the PTX \
                         declares as {} ({} byte{})",
                        param.ident,
                        type_text(&param.ty),
                        if size == 1 { "" } else { "s" },
                        i + 1,
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
