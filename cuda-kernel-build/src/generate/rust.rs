//! C++ types as a Rust declaration writes them: the table's types by their C spelling, and the
//! words of generated Rust text.

use cuda_kernel_syntax::types;

use super::*;

/// C's words for a type, in the type table's spelling (`unsigned` is `unsigned int`,
/// `long int` is `long`, `uint32_t` is `unsigned int`).
pub(super) fn c_spelling(words: &[String]) -> String {
    let mut w: Vec<&str> = words.iter().map(String::as_str).collect();
    let has_int = w.contains(&"int");
    if has_int && (w.contains(&"long") || w.contains(&"short")) {
        w.retain(|x| *x != "int");
    }
    let joined = w.join(" ");
    let fixed = match joined.as_str() {
        "unsigned" => "unsigned int",
        "signed" | "signed int" => "int",
        "long unsigned" | "unsigned long" => "unsigned long",
        "short unsigned" | "unsigned short" => "unsigned short",
        "long long unsigned" | "unsigned long long" => "unsigned long long",
        "signed long" => "long",
        "signed short" => "short",
        other => types::c_typedef(other),
    };
    fixed.to_string()
}

/// The Rust path generated code names a C type by: the type table's, with `size_t`, `long`
/// and the other C-named types through `cuda_kernel::ffi`, as the manual writes them.
pub(super) fn builtin(c: &str) -> Option<String> {
    const FFI: &[&str] = &[
        "size_t",
        "ptrdiff_t",
        "long",
        "unsigned long",
        "long long",
        "unsigned long long",
        "char",
    ];
    let t = if FFI.contains(&c) {
        types::all().find(|t| t.cuda == c && t.alias_of.is_some())
    } else {
        types::by_c_name(c)
    }?;
    Some(t.rust_path("::cuda_kernel"))
}

/// Whether a template head's parameter (or a function parameter) is a pack: `typename...
/// Args`, `int... Ns`, `Args... args`.
pub(super) fn is_pack(tokens: &[Token]) -> bool {
    tokens
        .windows(3)
        .any(|w| w.iter().all(|t| matches!(t, Token::Punct('.'))))
}

/// Whether Rust text names `word` (or the path `scope::Name`) as a whole word.
pub(super) fn mentions(text: &str, word: &str) -> bool {
    if word.contains("::") {
        return text.match_indices(word).any(|(at, _)| {
            !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
        });
    }
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '#'))
        .any(|w| w == word)
}
