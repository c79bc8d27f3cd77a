//! Rust types as messages and generated text spell them: as the user wrote them, with
//! rustfmt's spacing (`*const f32`, `cuda_kernel::half::f16`, `[f32; 4]`). The bottom floor of
//! the front end: every message of the model, the parser and the checks spells types here.

use quote::ToTokens;
use syn::Type;

/// The type as the user wrote it, with rustfmt-like spacing.
pub fn type_text(ty: &Type) -> String {
    let mut text = String::new();
    if write_type(&mut text, ty) {
        return text;
    }
    spelled(ty)
}

/// A type as `type_text` spells it, when displayed.
pub(crate) struct Shown<'a>(pub(crate) &'a Type);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&type_text(self.0))
    }
}

/// The common types written directly, as [`spelled`] would (`false`, with `out` unfinished,
/// for any other).
fn write_type(out: &mut String, ty: &Type) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            if p.path.leading_colon.is_some() {
                out.push_str("::");
            }
            for (i, segment) in p.path.segments.iter().enumerate() {
                if i > 0 {
                    out.push_str("::");
                }
                out.push_str(&segment.ident.to_string());
                match &segment.arguments {
                    syn::PathArguments::None => {}
                    syn::PathArguments::AngleBracketed(args) if args.colon2_token.is_none() => {
                        out.push('<');
                        for (j, arg) in args.args.iter().enumerate() {
                            if j > 0 {
                                out.push_str(", ");
                            }
                            match arg {
                                syn::GenericArgument::Type(t) if write_type(out, t) => {}
                                _ => return false,
                            }
                        }
                        out.push('>');
                    }
                    _ => return false,
                }
            }
            true
        }
        Type::Ptr(ptr) => {
            out.push_str(if ptr.mutability.is_some() {
                "*mut "
            } else {
                "*const "
            });
            write_type(out, &ptr.elem)
        }
        Type::Array(array) => match &array.len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(len),
                attrs,
            }) if attrs.is_empty() => {
                out.push('[');
                if !write_type(out, &array.elem) {
                    return false;
                }
                out.push_str("; ");
                out.push_str(&len.to_string());
                out.push(']');
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// Any type, from its tokens.
pub(crate) fn spelled(ty: &Type) -> String {
    let text = ty.to_token_stream().to_string();
    text.replace("* const ", "*const ")
        .replace("* mut ", "*mut ")
        .replace(" ,", ",")
        .replace("< ", "<")
        .replace(" <", "<")
        .replace(" >", ">")
        .replace("& ", "&")
        .replace("[ ", "[")
        .replace(" ]", "]")
        .replace(" ;", ";")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(":: ", "::")
        .replace(" ::", "::")
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    /// The direct spelling of the common types is the one from tokens.
    #[test]
    fn common_types_are_spelled_as_their_tokens_are() {
        let types: Vec<Type> = vec![
            parse_quote!(f32),
            parse_quote!(*const f32),
            parse_quote!(*mut *const cuda_kernel::half::f16),
            parse_quote!(::cuda_kernel::Float4),
            parse_quote!([[f32; 3]; 2]),
            parse_quote!(Option<Vec<u8>>),
            parse_quote!(std::collections::HashMap<u32, Vec<f32>>),
            parse_quote!(r#type),
        ];
        for ty in &types {
            let mut direct = String::new();
            assert!(write_type(&mut direct, ty), "{}", spelled(ty));
            assert_eq!(direct, spelled(ty));
        }
        for ty in [
            parse_quote!(&'a [f32]),
            parse_quote!([u8; N]),
            parse_quote!(<T as X>::Y),
        ] {
            assert_eq!(type_text(&ty), spelled(&ty));
        }
    }
}
