//! `__constant__` and `__device__` variables against the PTX's globals.

use syn::Type;

use crate::ast::{GlobalVar, PtxLayout};
use crate::check::type_text;
use crate::report::Errors;

use super::*;

/// Rule: a declared global is a `.const` or `.global` variable of the PTX with the declared
/// type's size and alignment: checked here for primitives and arrays of them with literal
/// lengths, left to the compiler (the returned layout) for other types.
pub(super) fn check_global(
    cx: &mut Errors,
    global: &GlobalVar,
    file: &PtxFile,
) -> Option<PtxLayout> {
    if global.type_error.is_some() {
        return None;
    }
    let Some(found) = file.globals.iter().find(|g| g.name == global.symbol) else {
        let span: &dyn quote::ToTokens = match &global.name_arg {
            Some(lit) => lit,
            None => &global.ident,
        };
        let names: Vec<_> = file.globals.iter().map(|g| g.name.as_str()).collect();
        cx.error(
            span,
            format!(
                "{} has no __constant__ or __device__ variable `{}`; its variables are: {}",
                file.shown,
                global.symbol,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        );
        return None;
    };
    let ptx_side = format!(
        "{} {}{} ({} byte{}, align {})",
        found.space,
        found.ty,
        found
            .array_len
            .map(|n| format!("[{n}]"))
            .unwrap_or_default(),
        found.size,
        if found.size == 1 { "" } else { "s" },
        found.align
    );
    let declared = format!("`{}: {}`", global.ident, type_text(&global.ty));
    let (elem, count) = match &global.ty {
        Type::Array(a) => match &a.len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => (&*a.elem, n.base10_parse::<usize>().ok()),
            _ => (&*a.elem, None),
        },
        ty => (ty, Some(1)),
    };
    match (known_layout(elem), count) {
        (Some((size, align, _)), Some(count)) => {
            // Only the size: nvcc may align a variable beyond its type, and the host copies
            // bytes to its address either way.
            if size * count != found.size {
                cx.error(
                    &global.ty,
                    format!(
                        "{declared} is {} bytes aligned to {align}, but the PTX declares {ptx_side}",
                        size * count
                    ),
                );
            }
            None
        }
        _ => Some(PtxLayout {
            size: found.size,
            align: found.align,
            message: format!("{declared} does not match the PTX's {ptx_side}"),
        }),
    }
}
