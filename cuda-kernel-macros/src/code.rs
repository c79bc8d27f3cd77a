//! Generated code written as source text, with the user's tokens spliced in where their spans
//! matter.
//!
//! Building the output token by token with `quote!` costs each token a few calls across the
//! proc-macro bridge, in proc_macro2 and quote compiled without optimization (a debug build's
//! proc macros are): for a few hundred declarations that was the larger part of the macro's
//! time. A [`Code`] collects the fixed parts as text and hands each run of it to the compiler's
//! lexer at once (`proc_macro::TokenStream::from_str`, one call); the tokens it splices in keep
//! their spans, so that rustc still points at the declaration (a parameter's name and type) where
//! it did. Text tokens get the call site's span, as `quote!`'s own tokens do.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{ToTokens, quote};

/// Generated code under construction: finished tokens, then text not yet lexed.
#[derive(Default)]
pub struct Code {
    done: TokenStream,
    text: String,
    /// Whether any tokens were spliced in (else `done` is empty and all of it is `text`).
    spliced: bool,
}

impl Code {
    /// Empty code.
    pub fn new() -> Code {
        Code::default()
    }

    /// Appends source text (whole tokens; delimiters balanced within the text).
    pub fn text(&mut self, text: &str) -> &mut Code {
        self.text.push_str(text);
        self.text.push(' ');
        self
    }

    /// Appends tokens as they are, spans and all.
    pub fn tokens(&mut self, tokens: &dyn ToTokens) -> &mut Code {
        self.flush();
        tokens.to_tokens(&mut self.done);
        self.spliced = true;
        self
    }

    /// Appends a token stream as it is, unless it is empty (an absent attribute list, bound or
    /// generics: then the text around it stays one run for the lexer).
    pub fn stream(&mut self, tokens: &TokenStream) -> &mut Code {
        if !tokens.is_empty() {
            self.tokens(tokens);
        }
        self
    }

    /// Appends a delimited group whose contents `inside` writes: as text, delimiters and all,
    /// where the contents are text alone; else a group of their tokens.
    pub fn group(&mut self, delimiter: Delimiter, inside: impl FnOnce(&mut Code)) -> &mut Code {
        let mut code = Code::new();
        inside(&mut code);
        let delimiters = match delimiter {
            Delimiter::Parenthesis => Some(("(", ")")),
            Delimiter::Brace => Some(("{", "}")),
            Delimiter::Bracket => Some(("[", "]")),
            Delimiter::None => None,
        };
        match delimiters {
            Some((open, close)) if !code.spliced => {
                self.text(open).text(&code.text).text(close);
            }
            _ => {
                self.flush();
                self.done
                    .extend([TokenTree::Group(Group::new(delimiter, code.finish()))]);
                self.spliced = true;
            }
        }
        self
    }

    /// A string literal of `value` as text: every character outside printable ASCII escaped, so
    /// that the text lexes whatever the string holds.
    pub fn string(value: &str) -> String {
        let mut out = String::with_capacity(value.len() + 2);
        out.push('"');
        // Runs that need no escape copied whole: a character at a time, formatted, costs the
        // macro (compiled without optimization) more than all of the rest of a doc comment.
        let bytes = value.as_bytes();
        let (mut start, mut i) = (0, 0);
        while i < bytes.len() {
            let b = bytes[i];
            if !matches!(b, b' '..=b'~') || matches!(b, b'"' | b'\'' | b'\\') {
                out.push_str(&value[start..i]);
                let c = value[i..].chars().next().unwrap_or_default();
                out.extend(c.escape_default());
                i += c.len_utf8();
                start = i;
            } else {
                i += 1;
            }
        }
        out.push_str(&value[start..]);
        out.push('"');
        out
    }

    /// The tokens.
    pub fn finish(mut self) -> TokenStream {
        self.flush();
        self.done
    }

    fn flush(&mut self) {
        if self.text.is_empty() {
            return;
        }
        // As one stream (`Extend<TokenStream>`: one concatenation), not tree by tree.
        let tokens = lex(&self.text);
        self.done.extend(std::iter::once(tokens));
        self.text.clear();
    }
}

/// `text` as tokens: by the compiler's lexer inside a proc macro, by proc_macro2's elsewhere
/// (unit tests). Generated text always lexes; were it not to, the error says so rather than the
/// macro panicking.
fn lex(text: &str) -> TokenStream {
    if proc_macro::is_available() {
        use std::str::FromStr;
        if let Ok(tokens) = proc_macro::TokenStream::from_str(text) {
            return tokens.into();
        }
    } else if let Ok(tokens) = text.parse() {
        return tokens;
    }
    #[cfg(test)]
    LEX_FAILURES.with(|count| count.set(count.get() + 1));
    let message = format!("#[kernel] generated code that does not lex, a bug: {text}");
    quote!(::core::compile_error!(#message);)
}

#[cfg(test)]
thread_local! {
    /// Text that did not lex on this thread: a bug the mutation tests look for.
    pub static LEX_FAILURES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::{Ident, Span};

    #[test]
    fn text_and_spliced_tokens_in_order() {
        let name = Ident::new("n", Span::call_site());
        let mut code = Code::new();
        code.text("fn f")
            .group(Delimiter::Parenthesis, |c| {
                c.tokens(&name).text(": u32");
            })
            .text("{}");
        assert_eq!(code.finish().to_string(), "fn f (n : u32) { }");
    }

    #[test]
    fn groups_of_text_alone_stay_text() {
        let mut code = Code::new();
        code.text("f").group(Delimiter::Parenthesis, |c| {
            c.text("a,").group(Delimiter::Bracket, |c| {
                c.text("b");
            });
        });
        assert!(!code.spliced, "no tokens were spliced");
        assert_eq!(code.finish().to_string(), "f (a , [b])");
    }

    #[test]
    fn strings_lex_whatever_they_hold() {
        for value in ["plain", "quote \" back \\", "new\nline", "\u{202e}é\u{0}"] {
            let lexed: syn::LitStr = syn::parse_str(&Code::string(value)).unwrap();
            assert_eq!(lexed.value(), value);
        }
    }

    #[test]
    fn text_that_does_not_lex_is_an_error_not_a_panic() {
        let mut code = Code::new();
        code.text("fn f(");
        let out = code.finish().to_string();
        assert!(out.contains("compile_error"), "{out}");
    }
}
