//! A `#[kernel]` block's tokens to syn's `ItemForeignMod`, the usual declaration read directly.
//!
//! syn's own parser tries every form an item, a pattern and a type can take, peeking at each
//! token for dozens of keywords; in a proc macro compiled without optimization (a debug build's
//! are) that was a quarter of the macro's time for blocks of plain kernels. A kernel declaration
//! is almost always `#[attrs] pub fn name(a: *const f32, n: u32);`: this reads that form, each
//! parameter a name and a type that is a path or a pointer to one, into the very syntax tree
//! syn's parser makes of it (the same tokens, spans and all), and hands anything else, item by
//! item, to syn's parser. What syn would refuse is refused (syn reads it and fails), so the
//! result is syn's in every case.
//!
//! ```
//! let tokens: proc_macro2::TokenStream =
//!     "unsafe extern \"C\" { pub fn scale(x: *mut f32, n: u32); }".parse().unwrap();
//! let block = cuda_kernel_syntax::foreign::parse(tokens.clone()).unwrap();
//! assert!(block == syn::parse2::<syn::ItemForeignMod>(tokens).unwrap());
//! ```

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::parse::discouraged::Speculative;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{
    Abi, Attribute, FnArg, ForeignItem, ForeignItemFn, Generics, Ident, ItemForeignMod, Pat,
    PatIdent, PatType, Path, PathArguments, PathSegment, ReturnType, Signature, Token, Type,
    TypePath, TypePtr, Visibility, token,
};

/// Parses a block as `syn::parse2::<ItemForeignMod>` does, to the same result.
pub fn parse(tokens: TokenStream) -> syn::Result<ItemForeignMod> {
    block.parse2(tokens)
}

/// syn's `ItemForeignMod::parse`, each item read by [`plain_fn`] where it can.
fn block(input: ParseStream) -> syn::Result<ItemForeignMod> {
    let mut attrs = input.call(Attribute::parse_outer)?;
    let unsafety: Option<Token![unsafe]> = input.parse()?;
    let abi: Abi = input.parse()?;
    let content;
    let brace_token = syn::braced!(content in input);
    attrs.extend(content.call(Attribute::parse_inner)?);
    let mut items = Vec::new();
    while !content.is_empty() {
        let ahead = content.fork();
        match plain_fn(&ahead) {
            Ok(item) => {
                content.advance_to(&ahead);
                items.push(ForeignItem::Fn(item));
            }
            Err(_) => items.push(content.parse()?),
        }
    }
    Ok(ItemForeignMod {
        attrs,
        unsafety,
        abi,
        brace_token,
        items,
    })
}

/// `#[attrs] vis fn name(params);` with every parameter `name: type` as [`param`] reads it, or
/// an error (then syn's parser reads the item, from where this began).
fn plain_fn(input: ParseStream) -> syn::Result<ForeignItemFn> {
    let attrs = input.call(Attribute::parse_outer)?;
    // `pub` or nothing (`pub(crate)` is syn's to read).
    let vis = match input.peek(Token![pub]) {
        true if input.peek2(token::Paren) => return Err(input.error("not a plain declaration")),
        true => Visibility::Public(input.parse()?),
        false => Visibility::Inherited,
    };
    let fn_token: Token![fn] = input.parse()?;
    let ident: Ident = input.parse()?;
    let content;
    let paren_token = syn::parenthesized!(content in input);
    let mut inputs = Punctuated::new();
    while !content.is_empty() {
        match param(&content) {
            Some(arg) => inputs.push_value(arg),
            None => return Err(content.error("not a plain parameter")),
        }
        if content.is_empty() {
            break;
        }
        inputs.push_punct(content.parse::<Token![,]>()?);
    }
    let semi_token: Token![;] = input.parse()?;
    Ok(ForeignItemFn {
        attrs,
        vis,
        sig: Signature {
            constness: None,
            asyncness: None,
            unsafety: None,
            abi: None,
            fn_token,
            ident,
            generics: Generics::default(),
            paren_token,
            inputs,
            variadic: None,
            output: ReturnType::Default,
        },
        semi_token,
    })
}

/// `name: type`, the name an identifier (not a keyword) and the type as [`simple_type`] reads
/// it, or else as syn's parser does.
fn param(input: ParseStream) -> Option<FnArg> {
    // A name followed by one `:` (`a::b` is a path, which syn reads as a pattern of its own).
    let ident = match input.cursor().ident() {
        Some((_, rest)) => match rest.punct() {
            Some((colon, _)) if colon.as_char() == ':' && colon.spacing() == Spacing::Alone => {
                input.parse::<Ident>().ok()?
            }
            _ => return None,
        },
        None => return None,
    };
    let colon_token: Token![:] = input.parse().ok()?;
    let ty = match simple_type(input) {
        Some(ty) => ty,
        None => input.parse::<Type>().ok()?,
    };
    Some(FnArg::Typed(PatType {
        attrs: Vec::new(),
        pat: Box::new(Pat::Ident(PatIdent {
            attrs: Vec::new(),
            by_ref: None,
            mutability: None,
            ident,
            subpat: None,
        })),
        colon_token,
        ty: Box::new(ty),
    }))
}

/// A path of identifiers (`u32`, `cuda_kernel::Float4`), or `*const`/`*mut` one, ending the
/// parameter; `None` without moving `input` for anything else.
fn simple_type(input: ParseStream) -> Option<Type> {
    let ahead = input.fork();
    let ty = match ahead.peek(Token![*]) {
        true => {
            let star_token: Token![*] = ahead.parse().ok()?;
            let (const_token, mutability) = match ahead.peek(Token![const]) {
                true => (Some(ahead.parse().ok()?), None),
                false => (None, Some(ahead.parse().ok()?)),
            };
            Type::Ptr(TypePtr {
                star_token,
                const_token,
                mutability,
                elem: Box::new(path_type(&ahead)?),
            })
        }
        false => path_type(&ahead)?,
    };
    // The parameter ends here: a type followed by anything else (`+`, `!`) is syn's to read.
    if !(ahead.is_empty() || ahead.peek(Token![,])) {
        return None;
    }
    input.advance_to(&ahead);
    Some(ty)
}

/// `a::b::C` without generic arguments, each segment an identifier that is not a keyword.
fn path_type(input: ParseStream) -> Option<Type> {
    let mut segments = Punctuated::new();
    loop {
        let ident: Ident = input.parse().ok()?;
        segments.push_value(PathSegment {
            ident,
            arguments: PathArguments::None,
        });
        match input.cursor().token_tree() {
            Some((TokenTree::Punct(p), _)) if p.as_char() == ':' => {
                // `::` and a segment; `::<` or `::(` are syn's.
                if !input.peek(Token![::]) || input.peek3(Token![<]) || input.peek3(token::Paren) {
                    return None;
                }
                segments.push_punct(input.parse::<Token![::]>().ok()?);
            }
            Some((TokenTree::Punct(p), _)) if p.as_char() == '<' => return None,
            _ => break,
        }
    }
    Some(Type::Path(TypePath {
        qself: None,
        path: Path {
            leading_colon: None,
            segments,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) {
        let tokens: TokenStream = text.parse().unwrap();
        let ours = parse(tokens.clone());
        let syns = syn::parse2::<ItemForeignMod>(tokens);
        match (ours, syns) {
            (Ok(ours), Ok(syns)) => {
                assert!(ours == syns, "{text}");
                assert_eq!(
                    quote::quote!(#ours).to_string(),
                    quote::quote!(#syns).to_string()
                );
            }
            (Err(_), Err(_)) => {}
            (ours, syns) => panic!("{text}: {:?} against {:?}", ours.is_ok(), syns.is_ok()),
        }
    }

    #[test]
    fn reads_what_syn_reads() {
        for text in [
            "unsafe extern \"C\" { pub fn vector_add(a: *const f32, b: *const f32, c: *mut f32, n: u32); }",
            "extern \"C\" { fn k(); fn j(a: u32,); }",
            "unsafe extern \"C\" { #[kernel(name = \"x\")] /// doc\n pub fn k(a: cuda_kernel::Float4, b: *const half::f16); }",
            "unsafe extern \"C\" { pub(crate) fn k(a: u32); pub safe fn s(a: u32); }",
            "unsafe extern \"C\" { fn k(a: TensorMap<f32, 2>, b: *const [u8; 4], c: &u32); }",
            "unsafe extern \"C\" { fn k(a: u32) -> u32; fn g<T>(a: *const T); fn v(a: u32, ...); }",
            "unsafe extern \"C\" { fn k(mut a: u32, _: u32, (a, b): (u32, u32), a::b: u32); }",
            "unsafe extern \"C\" { fn k(a: ::std::f32, b: Self, c: self::X, d: dyn X + Send); }",
            "unsafe extern \"C\" { fn k(a: f32 + Send, b: X!(), c: a::<b>, d: a::b<c>); }",
            "unsafe extern \"C\" { fn k(self, a: u32); fn j(#[attr] a: u32); static X: u32; }",
            "unsafe extern \"C\" { fn k(a: *const *mut f32, b: *f32, c: * const); }",
            "unsafe extern \"C\" { fn k(a u32); fn (a: u32); fn k(a: u32) }",
            "unsafe extern \"C\" { fn k(type: u32, r#type: u32); }",
            "#![doc = \"x\"] unsafe extern \"C\" { #![doc = \"y\"] fn k(a: u32); }",
        ] {
            same(text);
        }
    }
}
