//! Declarations from the source: the `#[kernel]` block of a `.cu` file, written from its
//! device-side preprocessed text (`nvcc -E` with the PTX build's architecture and flags, so
//! that `#if __CUDA_ARCH__` branches and macros expand as they do for the PTX).
//!
//! A small scanner of our own rather than tree-sitter: it needs no C compiler at build time,
//! and preprocessed text leaves only what it must read: `__attribute__((global))` function
//! definitions, their parameter lists, the typedefs they use and the `extern "C"` and namespace
//! blocks around them, the struct definitions they take and the template heads over them.
//! Kernels it cannot express (in a namespace, over a struct with bit-fields or methods, a
//! template without instances) are named in a warning with the reason, never skipped in
//! silence.

use std::fmt::Write as _;

use cuda_kernel_syntax::types;

use crate::naming::{self, ident as rust_name};

/// What generating a file's declarations gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generated {
    /// The Rust source of the block (empty when no kernel could be declared).
    pub rust: String,
    /// The kernels declared, by name.
    pub declared: Vec<String>,
    /// Kernels left out, each with why.
    pub warnings: Vec<String>,
    /// The patterns of [`Options::families`] declared.
    pub named_families: Vec<String>,
    /// What became of each entry of the PTX: "N entries, N declared or warned".
    pub accounting: Accounting,
    /// The kernels declared that a header defines, not the file itself: the blocks of other
    /// files including that header leave them out ([`Options::elsewhere`]).
    pub from_headers: Vec<String>,
}

/// What became of the PTX's entries: every one is declared (here, by hand, or in the block of
/// another file that includes the same header) or named in a warning.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    /// The PTX's `.entry` count.
    pub entries: usize,
    /// Entries of kernels this block declares.
    pub declared: usize,
    /// Entries of kernels the crate declares by hand.
    pub by_hand: usize,
    /// Entries of kernels from a header that another file's block declares.
    pub elsewhere: usize,
    /// Entries of kernels named in a warning.
    pub warned: usize,
    /// Entries of kernels that toolkit headers define (CUB's, Thrust's), which the file's host
    /// code instantiates and those headers' host code launches: no Rust launches them.
    pub toolkit: usize,
}

impl Accounting {
    /// Whether every entry is accounted for.
    pub fn complete(&self) -> bool {
        self.declared + self.by_hand + self.elsewhere + self.warned + self.toolkit == self.entries
    }
}

impl std::fmt::Display for Accounting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} entries in the PTX: {} declared here, {} by hand, {} in another file's block, {} named in warnings",
            self.entries, self.declared, self.by_hand, self.elsewhere, self.warned
        )?;
        if self.toolkit > 0 {
            write!(
                f,
                ", {} instantiated by toolkit headers and launched by their host code",
                self.toolkit
            )?;
        }
        Ok(())
    }
}

/// The kernel an entry symbol is an instance of, as C++ names it: `scale` of `scale<float>(...)`,
/// `ns::scale` in a namespace, the symbol itself for `extern "C"`.
pub fn entry_function(entry: &str) -> String {
    cuda_kernel_syntax::demangle::function_name(entry).unwrap_or_else(|| entry.to_string())
}

/// A token of preprocessed C++.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Ident(String),
    Punct(char),
    Literal(String),
    /// `# 12 "file"`: the text after it comes from `file`.
    Line(String),
}

fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' && line_start {
            let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
            let line = &text[i..end];
            if let Some(file) = line.split('"').nth(1) {
                out.push(Token::Line(file.to_string()));
            }
            i = end;
            continue;
        }
        line_start = false;
        if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
            continue;
        }
        if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
            continue;
        }
        if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != c {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(bytes.len());
            out.push(Token::Literal(
                text.get(i..end).unwrap_or_default().to_string(),
            ));
            i = end;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                j += 1;
            }
            out.push(Token::Ident(text[i..j].to_string()));
            i = j;
            continue;
        }
        if c.is_ascii_digit() {
            let mut j = i;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'.') {
                j += 1;
            }
            out.push(Token::Literal(text[i..j].to_string()));
            i = j;
            continue;
        }
        // Multi-byte characters are punctuation of no interest here.
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(Token::Punct(ch));
        i += ch.len_utf8();
    }
    out
}

fn is_ident(token: Option<&Token>, name: &str) -> bool {
    matches!(token, Some(Token::Ident(i)) if i == name)
}

fn is_punct(token: Option<&Token>, c: char) -> bool {
    matches!(token, Some(Token::Punct(p)) if *p == c)
}

/// The index just past the bracket closing the one at `open`.
fn skip_group(tokens: &[Token], open: usize, left: char, right: char) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < tokens.len() {
        if is_punct(tokens.get(i), left) {
            depth += 1;
        } else if is_punct(tokens.get(i), right) {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i + 1;
            }
        }
        i += 1;
    }
    tokens.len()
}

/// What a `{` opens.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Block {
    ExternC,
    Namespace(String),
    Other,
}

/// A kernel definition found in the text.
#[derive(Clone, Debug)]
struct Found {
    name: String,
    extern_c: bool,
    namespace: Option<String>,
    /// The file that defines it, as the line markers name it.
    file: String,
    /// The template head's parameters, for a function template.
    template: Option<Vec<Vec<Token>>>,
    params: Vec<Vec<Token>>,
}

/// The kernels defined in `text` by files `from_here` accepts, and the typedefs seen.
/// A struct defined at namespace level: its name, `aligned(N)` if given, its fields' tokens,
/// and whether the file itself defines it.
#[derive(Clone, Debug)]
struct StructDef {
    name: String,
    /// The enclosing namespaces (`ns::shapes`), if any.
    namespace: Option<String>,
    align: Option<String>,
    fields: Vec<Token>,
    here: bool,
    /// A `union`: its members overlap.
    union: bool,
}

impl StructDef {
    /// Its name as C++ qualifies it (`ns::shapes::Interval`).
    fn qualified(&self) -> String {
        qualified(self.namespace.as_deref(), &self.name)
    }
}

/// `name` in `namespace`, as C++ qualifies it (`ns::inner::fill`) and the demangler spells it
/// (an anonymous namespace's empty segment as `(anonymous namespace)`), so that the PTX's
/// entries find it.
fn qualified(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => {
            let segments: Vec<&str> = ns
                .split("::")
                .map(|s| match s {
                    "" => cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE,
                    s => s,
                })
                .collect();
            format!("{}::{name}", segments.join("::"))
        }
        None => name.to_string(),
    }
}

/// The namespaces enclosing a point of the scan, outermost first (`ns::inner`), `None` at
/// global scope; an anonymous namespace is an empty segment.
fn namespace_of(blocks: &[Block]) -> Option<String> {
    let chain: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Namespace(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    (!chain.is_empty()).then(|| chain.join("::"))
}

/// The class whose body the `{` at `open` opens (`class Algorithm {`, `class X final : public
/// Y {`), looked for back to the statement's start; `None` for any other brace (`enum class`
/// included, which the enum branch reads).
fn class_opened(tokens: &[Token], open: usize) -> Option<String> {
    // Back to the statement's start (a plain loop: a build script runs this in debug, once
    // per brace of every header).
    let mut k = open;
    let mut class = None;
    while k > 0 && open - k < 32 {
        k -= 1;
        match &tokens[k] {
            Token::Punct(';' | '{' | '}' | '(' | ')') | Token::Line(_) => break,
            Token::Ident(w) if w == "class" || w == "struct" => class = Some(k),
            _ => {}
        }
    }
    let at = class?;
    if at > 0 && is_ident(tokens.get(at - 1), "enum") {
        return None;
    }
    match tokens.get(at + 1) {
        Some(Token::Ident(name)) if name != "__attribute__" => Some(name.clone()),
        _ => None,
    }
}

/// The namespaces of the CUDA toolkit's C++ libraries (CCCL: CUB, Thrust, libcu++; cooperative
/// groups): a kernel of the PTX in one of them, defined where the scanner did not read it, is
/// a toolkit header's, which its host code launches.
const TOOLKIT_NAMESPACES: &[&str] = &["cub", "thrust", "cuda", "cooperative_groups"];

/// What the scanner found.
#[derive(Default)]
struct Scanned {
    kernels: Vec<Found>,
    typedefs: Vec<(String, Vec<Token>)>,
    structs: Vec<StructDef>,
    /// The enums declared at namespace level, by their qualified C++ names (`vllm::Kind`).
    enums: Vec<String>,
    /// Kernels defined by headers outside the file and its local headers (the toolkit's).
    toolkit: Vec<String>,
    /// The enums with what a by-value parameter of one needs.
    enum_defs: Vec<EnumDef>,
}

/// An enum defined at namespace level.
#[derive(Clone, Debug)]
struct EnumDef {
    name: String,
    namespace: Option<String>,
    /// Its base type's words (`uint8_t`), empty for `int`.
    base: Vec<String>,
    /// Its enumerators with their values, `None` from the first whose value is an expression
    /// this generator does not compute.
    enumerators: Vec<(String, Option<i128>)>,
    here: bool,
}

/// The enumerators of an enum's body, each with its value where it is a literal or follows
/// one.
fn enumerators(body: &[Token]) -> Vec<(String, Option<i128>)> {
    let mut out = Vec::new();
    let mut next = Some(0i128);
    for part in split_params(body) {
        let Some(Token::Ident(name)) = part.first() else {
            continue;
        };
        let value = match &part[1..] {
            [] => next,
            [Token::Punct('='), rest @ ..] => {
                let (negative, rest) = match rest {
                    [Token::Punct('-'), rest @ ..] => (true, rest),
                    _ => (false, rest),
                };
                match rest {
                    [Token::Literal(n)] => {
                        integer_literal(n).map(|v| if negative { -v } else { v })
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        out.push((name.clone(), value));
        next = value.and_then(|v| v.checked_add(1));
    }
    out
}

/// A C integer literal's value (`5`, `0x1F`, `7u`, `0b101`).
fn integer_literal(text: &str) -> Option<i128> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let digits = digits.replace('\'', "");
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i128::from_str_radix(hex, 16).ok()
    } else if let Some(bin) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        i128::from_str_radix(bin, 2).ok()
    } else if digits.len() > 1 && digits.starts_with('0') {
        i128::from_str_radix(&digits[1..], 8).ok()
    } else {
        digits.parse().ok()
    }
}

fn scan(text: &str, from_here: &dyn Fn(&str) -> bool) -> Scanned {
    let tokens = tokenize(text);
    let mut found: Vec<Found> = Vec::new();
    let mut typedefs = Vec::new();
    let mut structs: Vec<StructDef> = Vec::new();
    let mut enums: Vec<String> = Vec::new();
    let mut toolkit: Vec<String> = Vec::new();
    let mut enum_defs: Vec<EnumDef> = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut file = String::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Line(f) => {
                file.clone_from(f);
                i += 1;
            }
            Token::Punct('{') => {
                let kind = if matches!(tokens.get(i.wrapping_sub(1)), Some(Token::Literal(l)) if l == "\"C\"")
                    && is_ident(tokens.get(i.wrapping_sub(2)), "extern")
                {
                    Block::ExternC
                } else if is_ident(tokens.get(i.wrapping_sub(2)), "namespace") {
                    match &tokens[i - 1] {
                        Token::Ident(name) => Block::Namespace(name.clone()),
                        _ => Block::Other,
                    }
                } else if is_ident(tokens.get(i.wrapping_sub(1)), "namespace") {
                    Block::Namespace(String::new())
                } else if let Some(class) = class_opened(&tokens, i) {
                    // A class's body: its enums and structs are named in it, as in a
                    // namespace (`xmrig_cuda::Algorithm::Id`); kernels are never members.
                    Block::Namespace(class)
                } else {
                    Block::Other
                };
                blocks.push(kind);
                i += 1;
            }
            Token::Punct('}') => {
                blocks.pop();
                i += 1;
            }
            Token::Ident(t)
                if (t == "struct" || t == "union") && !blocks.contains(&Block::Other) =>
            {
                let union = t == "union";
                // `struct [attributes] NAME [attributes] { fields };`, `__align__(16)` being
                // `__attribute__((aligned(16)))` once preprocessed, and C++11's `alignas(16)`
                // before the name. An alignment given other than by a number (`alignas(float4)`)
                // leaves the struct unread: its kernels are named in warnings, not misplaced.
                let mut align = None;
                let mut unread = false;
                let mut aligned = |from: usize, to: usize| {
                    if is_ident(tokens.get(from), "alignas") {
                        match (tokens.get(from + 2), to == from + 4) {
                            (Some(Token::Literal(n)), true) => align = Some(n.clone()),
                            _ => unread = true,
                        }
                    } else if let Some(at) =
                        (from..to).find(|&k| is_ident(tokens.get(k), "aligned"))
                    {
                        if let Some(Token::Literal(n)) = tokens.get(at + 2) {
                            align = Some(n.clone());
                        }
                    }
                };
                let attribute = |j: usize| {
                    is_ident(tokens.get(j), "__attribute__") || is_ident(tokens.get(j), "alignas")
                };
                let mut j = i + 1;
                while attribute(j) {
                    let end = skip_group(&tokens, j + 1, '(', ')');
                    aligned(j, end);
                    j = end;
                }
                let Some(Token::Ident(name)) = tokens.get(j) else {
                    i += 1;
                    continue;
                };
                j += 1;
                while is_ident(tokens.get(j), "__attribute__") {
                    let end = skip_group(&tokens, j + 1, '(', ')');
                    aligned(j, end);
                    j = end;
                }
                if unread || !is_punct(tokens.get(j), '{') {
                    i += 1;
                    continue;
                }
                let end = skip_group(&tokens, j, '{', '}');
                let fields = tokens.get(j + 1..end.saturating_sub(1)).unwrap_or_default();
                structs.push(StructDef {
                    name: name.clone(),
                    namespace: namespace_of(&blocks),
                    align,
                    fields: fields.to_vec(),
                    here: from_here(&file),
                    union,
                });
                i = end;
            }
            Token::Ident(t) if t == "enum" && !blocks.contains(&Block::Other) => {
                // `enum [class|struct] NAME [: type] {` (or `;`): a template value parameter of
                // its type is declared `#[kernel(enum = "ns::NAME")] const N: i32`.
                let mut j = i + 1;
                if is_ident(tokens.get(j), "class") || is_ident(tokens.get(j), "struct") {
                    j += 1;
                }
                while is_ident(tokens.get(j), "__attribute__") {
                    j = skip_group(&tokens, j + 1, '(', ')');
                }
                if let (Some(Token::Ident(name)), Some(Token::Punct(':' | '{' | ';'))) =
                    (tokens.get(j), tokens.get(j + 1))
                {
                    let named = qualified(namespace_of(&blocks).as_deref(), name);
                    if !named.contains(cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE)
                        && !enums.contains(&named)
                    {
                        enums.push(named);
                        // Its base type (`: uint8_t`) and enumerators, for a parameter that
                        // takes a value of it.
                        let mut k = j + 1;
                        let mut base = Vec::new();
                        if is_punct(tokens.get(k), ':') && !is_punct(tokens.get(k + 1), ':') {
                            k += 1;
                            while let Some(Token::Ident(w)) = tokens.get(k) {
                                base.push(w.clone());
                                k += 1;
                            }
                        }
                        let enumerators = match is_punct(tokens.get(k), '{') && from_here(&file) {
                            true => {
                                let end = skip_group(&tokens, k, '{', '}');
                                enumerators(
                                    tokens.get(k + 1..end.saturating_sub(1)).unwrap_or_default(),
                                )
                            }
                            false => Vec::new(),
                        };
                        enum_defs.push(EnumDef {
                            name: name.clone(),
                            namespace: namespace_of(&blocks),
                            base,
                            enumerators,
                            here: from_here(&file),
                        });
                    }
                }
                i = j.max(i + 1);
            }
            Token::Ident(t) if t == "typedef" && !blocks.contains(&Block::Other) => {
                let end = (i..tokens.len())
                    .find(|&j| is_punct(tokens.get(j), ';'))
                    .unwrap_or(tokens.len());
                if (i..end).any(|j| is_punct(tokens.get(j), '{')) {
                    // `typedef struct [Tag] { ... } X;`, `typedef enum { ... } X;` (C's way):
                    // a tagged one is read by its tag (below) and `X` is its alias; an
                    // anonymous one is named `X`, as C++ names it in symbols.
                    let kind = match tokens.get(i + 1) {
                        Some(Token::Ident(k)) if k == "struct" || k == "enum" || k == "union" => {
                            k.clone()
                        }
                        _ => {
                            i += 1;
                            continue;
                        }
                    };
                    let (tag, open) = match (tokens.get(i + 2), tokens.get(i + 3)) {
                        (Some(Token::Ident(tag)), Some(Token::Punct('{'))) => {
                            (Some(tag.clone()), i + 3)
                        }
                        (Some(Token::Punct('{')), _) => (None, i + 2),
                        _ => {
                            i += 1;
                            continue;
                        }
                    };
                    let close = skip_group(&tokens, open, '{', '}');
                    let alias = match (tokens.get(close), tokens.get(close + 1)) {
                        (Some(Token::Ident(alias)), Some(Token::Punct(';'))) => alias.clone(),
                        _ => {
                            i += 1;
                            continue;
                        }
                    };
                    let body = tokens
                        .get(open + 1..close.saturating_sub(1))
                        .unwrap_or_default();
                    match tag {
                        Some(tag) => {
                            if tag != alias {
                                let named = qualified(namespace_of(&blocks).as_deref(), &alias);
                                typedefs.push((named, vec![Token::Ident(tag)]));
                            }
                            i += 1; // the struct or enum itself is read by its tag
                        }
                        None if kind == "struct" || kind == "union" => {
                            structs.push(StructDef {
                                name: alias,
                                namespace: namespace_of(&blocks),
                                align: None,
                                fields: body.to_vec(),
                                here: from_here(&file),
                                union: kind == "union",
                            });
                            i = close + 2;
                        }
                        None => {
                            let named = qualified(namespace_of(&blocks).as_deref(), &alias);
                            if !enums.contains(&named) {
                                enums.push(named);
                                enum_defs.push(EnumDef {
                                    name: alias,
                                    namespace: namespace_of(&blocks),
                                    base: Vec::new(),
                                    enumerators: match from_here(&file) {
                                        true => enumerators(body),
                                        false => Vec::new(),
                                    },
                                    here: from_here(&file),
                                });
                            }
                            i = close + 2;
                        }
                    }
                    continue;
                }
                let body = &tokens[i + 1..end];
                if let (Some(Token::Ident(name)), true) = (body.last(), body.len() >= 2) {
                    let simple = body[..body.len() - 1]
                        .iter()
                        .all(|t| matches!(t, Token::Ident(_) | Token::Punct('*')));
                    // By its qualified name: `glm::uint32_t` is not `::uint32_t`.
                    let named = qualified(namespace_of(&blocks).as_deref(), name);
                    if simple {
                        typedefs.push((named, body[..body.len() - 1].to_vec()));
                    } else if body.iter().any(|t| is_punct(Some(t), '<')) {
                        // `typedef vec<3, float, defaultp> vec3;`: kept as a marker, for the
                        // reason a parameter of it is not declared.
                        typedefs.push((named, vec![Token::Punct('<')]));
                    }
                }
                i = end;
            }
            Token::Ident(a)
                if a == "__attribute__"
                    && is_punct(tokens.get(i + 1), '(')
                    && is_punct(tokens.get(i + 2), '(')
                    && is_ident(tokens.get(i + 3), "global") =>
            {
                let start = i;
                i = skip_group(&tokens, i + 1, '(', ')');
                // Up to the parameter list: other attributes, `void`, the name.
                let mut name = None;
                while i < tokens.len() && !is_punct(tokens.get(i), '(') {
                    if is_ident(tokens.get(i), "__attribute__") {
                        i = skip_group(&tokens, i + 1, '(', ')');
                        continue;
                    }
                    if let Token::Ident(n) = &tokens[i] {
                        name = Some(n.clone());
                    }
                    if is_punct(tokens.get(i), ';') || is_punct(tokens.get(i), '{') {
                        break;
                    }
                    i += 1;
                }
                let Some(name) = name.filter(|_| is_punct(tokens.get(i), '(')) else {
                    continue;
                };
                let close = skip_group(&tokens, i, '(', ')');
                // Without its `)` (the text ends first), the list runs to the end.
                let inner = tokens
                    .get(i + 1..close.saturating_sub(1))
                    .unwrap_or_default();
                let params = split_params(inner);
                i = close;
                // A definition, not a declaration.
                while i < tokens.len() && is_ident(tokens.get(i), "__attribute__") {
                    i = skip_group(&tokens, i + 1, '(', ')');
                }
                if !is_punct(tokens.get(i), '{') {
                    continue;
                }
                if !from_here(&file) {
                    // A toolkit header's (CUB's): counted apart when the PTX has it.
                    let named = qualified(namespace_of(&blocks).as_deref(), &name);
                    if !toolkit.contains(&named) {
                        toolkit.push(named);
                    }
                    continue;
                }
                // What precedes it: `extern "C"`, a template head.
                let back = &tokens[start.saturating_sub(4)..start];
                let extern_c = blocks.contains(&Block::ExternC)
                    || back.windows(2).any(|w| {
                        is_ident(w.first(), "extern")
                            && matches!(w.get(1), Some(Token::Literal(l)) if l == "\"C\"")
                    });
                let template = (0..start).rev().take(64).find_map(|j| {
                    if !is_ident(tokens.get(j), "template") || !is_punct(tokens.get(j + 1), '<') {
                        return None;
                    }
                    let close = skip_group(&tokens, j + 1, '<', '>');
                    let head_ends_here = close <= start
                        && (close..start).all(|k| {
                            !is_punct(tokens.get(k), ';') && !is_punct(tokens.get(k), '}')
                        });
                    head_ends_here.then(|| {
                        split_params(
                            tokens
                                .get(j + 2..close.saturating_sub(1))
                                .unwrap_or_default(),
                        )
                    })
                });
                let namespace = namespace_of(&blocks);
                // A kernel defined once per name and namespace (a definition seen again, as
                // through a header included twice, is the same kernel).
                if found
                    .iter()
                    .all(|f| f.name != name || f.namespace != namespace)
                {
                    found.push(Found {
                        name,
                        extern_c,
                        namespace,
                        file: file.clone(),
                        template,
                        params,
                    });
                }
            }
            _ => i += 1,
        }
    }
    Scanned {
        kernels: found,
        typedefs,
        structs,
        enums,
        toolkit,
        enum_defs,
    }
}

/// A parameter list split at its top-level commas.
fn split_params(tokens: &[Token]) -> Vec<Vec<Token>> {
    let mut out = vec![Vec::new()];
    let mut depth = 0i32;
    for token in tokens {
        match token {
            Token::Punct('(' | '<' | '[') => depth += 1,
            Token::Punct(')' | '>' | ']') => depth -= 1,
            Token::Punct(',') if depth == 0 => {
                out.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(token.clone());
        }
    }
    if out.len() == 1 && (out[0].is_empty() || out[0] == [Token::Ident("void".into())]) {
        return Vec::new();
    }
    out
}

/// A declarator without its initializer: a default argument (`= nullptr`) or a default member
/// initializer (`= 0.0f`, `{0}`), neither of which is part of the type or the layout.
fn without_initializer(tokens: &[Token]) -> &[Token] {
    let mut depth = 0i32;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct('(' | '[' | '<') => depth += 1,
            Token::Punct(')' | ']' | '>') => depth -= 1,
            Token::Punct('=') if depth == 0 => return &tokens[..i],
            // `int n{4}` after a name.
            Token::Punct('{')
                if depth == 0
                    && matches!(
                        tokens.get(i.wrapping_sub(1)),
                        Some(Token::Ident(_)) | Some(Token::Punct(']'))
                    ) =>
            {
                return &tokens[..i];
            }
            _ => {}
        }
    }
    tokens
}

/// Type words that are never a parameter's name.
const TYPE_WORDS: &[&str] = &[
    "const", "volatile", "unsigned", "signed", "int", "long", "short", "char", "float", "double",
    "bool", "void",
];

/// One parameter as Rust declares it: name and type, or why it cannot be.
fn param(
    tokens: &[Token],
    index: usize,
    typedefs: &[(String, Vec<Token>)],
    type_params: &[(String, String)],
    structs: &[(String, String)],
    scope: Option<&str>,
    taken: &mut Vec<String>,
) -> Result<(String, String), String> {
    // A default argument (`const float *mul = nullptr`) is no part of the type.
    let tokens = without_initializer(tokens);
    let mut words: Vec<Token> = Vec::new();
    let mut grid_constant = false;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Ident(a) if a == "__attribute__" => {
                // `__attribute__((grid_constant))`, as `__grid_constant__` expands.
                let end = skip_group(tokens, i + 1, '(', ')');
                grid_constant |= tokens[i..end]
                    .iter()
                    .any(|t| matches!(t, Token::Ident(g) if g == "grid_constant"));
                i = end;
                continue;
            }
            Token::Ident(g) if g == "__grid_constant__" => grid_constant = true,
            Token::Ident(r) if r == "__restrict__" || r == "__restrict" || r == "restrict" => {}
            Token::Ident(s) if s == "struct" || s == "enum" => {}
            Token::Punct('[') => {
                // `float x[]`: a pointer, as C passes arrays (the star before the name).
                let at = match words.last() {
                    Some(Token::Ident(n)) if !TYPE_WORDS.contains(&n.as_str()) => words.len() - 1,
                    _ => words.len(),
                };
                words.insert(at, Token::Punct('*'));
                i = skip_group(tokens, i, '[', ']');
                continue;
            }
            Token::Punct('&') => return Err("takes a reference".to_string()),
            // `shapes::Interval`, `::ns::Pair`: one word, qualified.
            Token::Punct(':') if is_punct(tokens.get(i + 1), ':') => {
                let qualifier = match words.last() {
                    Some(Token::Ident(q)) if !TYPE_WORDS.contains(&q.as_str()) => {
                        let q = q.clone();
                        words.pop();
                        format!("{q}::")
                    }
                    _ => "::".to_string(),
                };
                let Some(Token::Ident(next)) = tokens.get(i + 2) else {
                    return Err("takes a qualified type this generator does not read".to_string());
                };
                words.push(Token::Ident(format!("{qualifier}{next}")));
                i += 3;
                continue;
            }
            Token::Punct('<' | ':') => {
                return Err("takes a class template or a qualified type".to_string());
            }
            other => words.push(other.clone()),
        }
        i += 1;
    }
    // The name: a last identifier that is not a type word, after a type (not qualifiers
    // alone: in `const size_t` the last word is the type).
    let typed_before = |words: &[Token]| {
        words[..words.len() - 1].iter().any(|t| match t {
            Token::Ident(w) => w != "const" && w != "volatile",
            _ => true,
        })
    };
    let name = match words.last() {
        Some(Token::Ident(n))
            if words.len() >= 2 && !TYPE_WORDS.contains(&n.as_str()) && typed_before(&words) =>
        {
            let n = n.clone();
            words.pop();
            n
        }
        _ => format!("arg{index}"),
    };
    let ty = rust_type(&words, typedefs, type_params, structs, scope)?;
    let name = naming::param(&name, taken);
    // A TMA descriptor is `const __grid_constant__` in every declaration; another value so
    // declared says it, for the prototype to repeat.
    match (ty.ends_with("RawTensorMap"), grid_constant) {
        (true, true) => Ok((name, ty)),
        (true, false) => Err(
            "takes a `CUtensorMap` that is not `const __grid_constant__` (a TMA descriptor must be)"
                .to_string(),
        ),
        (false, true) => Ok((format!("#[kernel(grid_constant)] {name}"), ty)),
        (false, false) => Ok((name, ty)),
    }
}

/// The Rust type of a parameter's type words (`const float *`, `unsigned int`, `size_t`).
fn rust_type(
    words: &[Token],
    typedefs: &[(String, Vec<Token>)],
    type_params: &[(String, String)],
    structs: &[(String, String)],
    scope: Option<&str>,
) -> Result<String, String> {
    // Base words up to the first star, then one level per star with the const after it.
    let first_star = words
        .iter()
        .position(|t| matches!(t, Token::Punct('*')))
        .unwrap_or(words.len());
    let mut base_const = false;
    let mut base: Vec<String> = Vec::new();
    for word in &words[..first_star] {
        match word {
            Token::Ident(w) if w == "const" => base_const = true,
            Token::Ident(w) if w == "volatile" => {}
            Token::Ident(w) => base.push(w.clone()),
            _ => return Err("has a type this generator does not read".to_string()),
        }
    }
    // Typedefs of the file (and its headers): resolved to the words they stand for.
    let mut stars_from_typedef = 0;
    // Looked up as C++ does from `scope`, then from the namespace of each typedef found.
    let mut within: Option<String> = scope.map(str::to_string);
    for _ in 0..8 {
        let [single] = &base[..] else { break };
        if builtin(single).is_some() {
            break;
        }
        let single = single.trim_start_matches("::");
        let mut segments: Vec<&str> = within
            .as_deref()
            .map_or_else(Vec::new, |s| s.split("::").collect());
        let found = loop {
            let name = match segments.is_empty() {
                true => single.to_string(),
                false => format!("{}::{single}", segments.join("::")),
            };
            if let Some(found) = typedefs.iter().rev().find(|(n, _)| *n == name) {
                break Some(found);
            }
            if segments.pop().is_none() {
                break None;
            }
        };
        let Some((named, target)) = found else {
            break;
        };
        if target.first() == Some(&Token::Punct('<')) {
            return Err(format!(
                "takes `{single}`, an instance of a class template, which a Rust declaration \
                 cannot name: declare the kernel by hand"
            ));
        }
        within = named.rsplit_once("::").map(|(ns, _)| ns.to_string());
        let mut next = Vec::new();
        for t in target {
            match t {
                Token::Ident(w) if w == "const" => base_const = true,
                Token::Ident(w) => next.push(w.clone()),
                Token::Punct('*') => stars_from_typedef += 1,
                _ => {}
            }
        }
        base = next;
    }
    if stars_from_typedef > 0 {
        return Err("takes a pointer through a typedef".to_string());
    }
    let spelled = c_spelling(&base);
    let type_param = type_params
        .iter()
        .find(|(c, _)| *c == spelled)
        .map(|(_, rust)| rust.clone());
    // A struct by its C++ name, or as code inside its namespaces names it (`shapes::Interval`
    // or `Interval` for `ns::shapes::Interval`).
    // Looked up as C++ does from code in `scope`: in it, then in each enclosing namespace.
    let a_struct = || {
        let spelled = spelled.trim_start_matches("::");
        let mut segments: Vec<&str> = scope.map_or_else(Vec::new, |s| s.split("::").collect());
        let mut scoped = None;
        while scoped.is_none() && !segments.is_empty() {
            let name = format!("{}::{spelled}", segments.join("::"));
            scoped = structs.iter().find(|(c, _)| *c == name);
            segments.pop();
        }
        scoped
            .or_else(|| structs.iter().find(|(c, _)| *c == spelled))
            .or_else(|| {
                structs
                    .iter()
                    .find(|(c, _)| c.ends_with(&format!("::{spelled}")))
            })
            .map(|(_, r)| r.clone())
            .filter(|r| !r.is_empty())
    };
    let Some(mut ty) = type_param.or_else(|| builtin(&spelled)).or_else(a_struct) else {
        return Err(format!(
            "takes `{spelled}`, a struct defined outside the file or with fields this generator \
             does not read: bind it to a Rust type with Build::bind_struct, or declare the \
             kernel by hand"
        ));
    };
    let mut pointee_const = base_const;
    let mut rest = words[first_star..].iter().peekable();
    while let Some(token) = rest.next() {
        match token {
            Token::Punct('*') => {
                ty = format!("{} {ty}", if pointee_const { "*const" } else { "*mut" });
                pointee_const = is_ident(rest.peek().copied(), "const");
                if pointee_const {
                    rest.next();
                }
            }
            Token::Ident(w) if w == "volatile" => {}
            _ => return Err("has a declarator this generator does not read".to_string()),
        }
    }
    Ok(ty)
}

/// C's words for a type, in the type table's spelling (`unsigned` is `unsigned int`,
/// `long int` is `long`, `uint32_t` is `unsigned int`).
fn c_spelling(words: &[String]) -> String {
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
        "long long unsigned" | "unsigned long long" => "unsigned long long",
        "signed long" => "long",
        "signed short" => "short",
        "uint8_t" => "unsigned char",
        "int8_t" => "signed char",
        "uint16_t" => "unsigned short",
        "int16_t" => "short",
        "uint32_t" => "unsigned int",
        "int32_t" => "int",
        "__nv_bfloat16_raw" => "__nv_bfloat16",
        "half" => "__half",
        "half2" => "__half2",
        other => other,
    };
    fixed.to_string()
}

/// The Rust path generated code names a C type by: the type table's, with `size_t`, `long`
/// and the other C-named types through `cuda_kernel::ffi`, as the manual writes them.
fn builtin(c: &str) -> Option<String> {
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

/// A template head's parameter as Rust declares it: `T`, or `const N: u32`.
fn template_param(
    tokens: &[Token],
    enums: &[String],
    namespace: Option<&str>,
    typedefs: &[(String, Vec<Token>)],
    structs: &[(String, String)],
    taken: &mut Vec<String>,
) -> Result<TemplateParam, String> {
    // A default (`= 256`) is no part of the declaration: instances name every argument.
    let tokens = match tokens.iter().position(|t| matches!(t, Token::Punct('='))) {
        Some(eq) => &tokens[..eq],
        None => tokens,
    };
    // `float (*op)(float, int)`: a device function, `const op: fn(f32, i32) -> f32`.
    if let Some(open) = tokens
        .windows(2)
        .position(|w| is_punct(w.first(), '(') && is_punct(w.get(1), '*'))
    {
        let (Some(Token::Ident(name)), true, true) = (
            tokens.get(open + 2),
            is_punct(tokens.get(open + 3), ')'),
            is_punct(tokens.get(open + 4), '('),
        ) else {
            return Err("a template parameter this generator does not read".into());
        };
        let close = skip_group(tokens, open + 4, '(', ')');
        if close != tokens.len() {
            return Err("a template parameter this generator does not read".into());
        }
        let c_type = |words: &[Token]| {
            rust_type(words, typedefs, &[], structs, namespace)
                .map_err(|why| format!("a device function parameter whose type {why}"))
        };
        let inner = tokens
            .get(open + 5..close.saturating_sub(1))
            .unwrap_or_default();
        let params = split_params(inner)
            .iter()
            .map(|p| {
                // A parameter's name, where given, is no part of its type.
                let words = match p.split_last() {
                    Some((Token::Ident(n), rest))
                        if !rest.is_empty()
                            && !TYPE_WORDS.contains(&n.as_str())
                            && builtin(n).is_none() =>
                    {
                        rest
                    }
                    _ => &p[..],
                };
                c_type(words)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let returns = match &tokens[..open] {
            [Token::Ident(v)] if v == "void" => String::new(),
            words => format!(" -> {}", c_type(words)?),
        };
        let name = naming::param(name, taken);
        return Ok(TemplateParam {
            text: format!("const {name}: fn({}){returns}", params.join(", ")),
            type_param: None,
        });
    }
    match tokens {
        [Token::Ident(kind), Token::Ident(name)] if kind == "typename" || kind == "class" => {
            let rust = naming::type_param(name, taken);
            Ok(TemplateParam {
                text: rust.clone(),
                type_param: Some((name.clone(), rust)),
            })
        }
        [words @ .., Token::Ident(name)] if !words.is_empty() => {
            let mut base: Vec<String> = Vec::new();
            let mut joined = false;
            for word in words {
                match word {
                    Token::Ident(w) if w == "const" => {}
                    // `ns::Kind`: one word.
                    Token::Ident(w) if joined => {
                        if let Some(last) = base.last_mut() {
                            last.push_str(w);
                        }
                        joined = false;
                    }
                    Token::Ident(w) => base.push(w.clone()),
                    Token::Punct(':') => {
                        match base.last_mut() {
                            Some(last) => last.push(':'),
                            None => base.push(":".into()),
                        }
                        joined = true;
                    }
                    _ => return Err("a template parameter this generator does not read".into()),
                }
            }
            let value = |text: String| TemplateParam {
                text,
                type_param: None,
            };
            if let [word] = &base[..] {
                if let Some(kind) = enum_named(word, enums, namespace) {
                    let name = naming::param(name, taken);
                    return Ok(value(format!(
                        "#[kernel(enum = \"{kind}\")] const {name}: i32"
                    )));
                }
            }
            let spelled = c_spelling(&base);
            let integer =
                types::all().any(|t| t.cuda == spelled && t.class == types::Class::Integer);
            match builtin(&spelled).filter(|_| integer) {
                Some(ty) => Ok(value(format!("const {}: {ty}", naming::param(name, taken)))),
                None => Err(format!("a template value parameter of type `{spelled}`")),
            }
        }
        _ => Err("a template parameter this generator does not read".into()),
    }
}

/// Whether a template head's parameter (or a function parameter) is a pack: `typename...
/// Args`, `int... Ns`, `Args... args`.
fn is_pack(tokens: &[Token]) -> bool {
    tokens
        .windows(3)
        .any(|w| w.iter().all(|t| matches!(t, Token::Punct('.'))))
}

/// The parameters of an instance of a variadic template, read from its symbol: each type as the
/// table or the file's structs name it, named as the C++ declaration does (a pack's as the
/// pack, numbered: `args0`, `args1`).
fn pack_instance(
    kernel: &Found,
    entry: &str,
    structs: &[(String, String)],
) -> Result<Vec<(String, String)>, String> {
    use cuda_kernel_syntax::cpp::CppType;
    let types: Vec<String> = cuda_kernel_syntax::demangle::param_types(entry)
        .ok_or("has a symbol this generator does not read")?
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect();
    fn rust_of_inner(ty: &CppType, structs: &[(String, String)]) -> Option<String> {
        match ty {
            CppType::Builtin(t) => Some(t.rust_path("::cuda_kernel")),
            CppType::Named(name) => structs
                .iter()
                .find(|(c, _)| c == name)
                .map(|(_, r)| r.clone())
                .filter(|r| !r.is_empty()),
            CppType::Pointer { to_const, to } => Some(format!(
                "*{} {}",
                if *to_const { "const" } else { "mut" },
                rust_of_inner(to, structs)?
            )),
            CppType::Param(_) => None,
        }
    }
    // The declaration's names: those before the pack, the pack's, those after it.
    let names: Vec<String> = kernel
        .params
        .iter()
        .map(|p| {
            without_initializer(p)
                .iter()
                .rev()
                .find_map(|t| match t {
                    Token::Ident(n) if !TYPE_WORDS.contains(&n.as_str()) => Some(n.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| "arg".to_string())
        })
        .collect();
    let pack = kernel.params.iter().position(|p| is_pack(p));
    let (before, after) = match pack {
        Some(at) => (at, kernel.params.len() - at - 1),
        None => (kernel.params.len(), 0),
    };
    if types.len() < before + after {
        return Err("has fewer parameters than the declaration".to_string());
    }
    let mut taken = Vec::new();
    types
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let ty = CppType::from_cpp(text)
                .and_then(|t| rust_of_inner(&t, structs))
                .ok_or_else(|| {
                    format!("takes `{text}`, which this generator does not name in Rust")
                })?;
            let name = if i < before {
                names[i].clone()
            } else if i >= types.len() - after {
                names[kernel.params.len() - (types.len() - i)].clone()
            } else {
                format!(
                    "{}{}",
                    pack.map_or("arg", |at| names[at].as_str()),
                    i - before
                )
            };
            Ok((naming::param(&name, &mut taken), ty))
        })
        .collect()
}

/// A template head's parameter as the generated declaration writes it (`T`, `const N: u32`),
/// and for a type parameter its C++ name and its Rust one (`type` and `r#type`).
struct TemplateParam {
    text: String,
    type_param: Option<(String, String)>,
}

/// The enum a template head names as `word` (`Kind`, `vllm::Kind`, `::Kind`) from within
/// `namespace`, looked up as C++ does: in the namespace, then in each enclosing one.
fn enum_named(word: &str, enums: &[String], namespace: Option<&str>) -> Option<String> {
    if let Some(global) = word.strip_prefix("::") {
        return enums.iter().find(|e| *e == global).cloned();
    }
    let mut scope: Vec<&str> = namespace.map_or_else(Vec::new, |ns| ns.split("::").collect());
    loop {
        let candidate = match scope.is_empty() {
            true => word.to_string(),
            false => format!("{}::{word}", scope.join("::")),
        };
        if enums.contains(&candidate) {
            return Some(candidate);
        }
        scope.pop()?;
    }
}

/// A kernel ready to declare.
#[derive(Clone)]
struct Declared {
    name: String,
    /// The C++ namespace, nested ones joined by `::`.
    namespace: Option<String>,
    extern_c: bool,
    /// `<T, const N: u32>` for a template, empty otherwise.
    generics: Vec<String>,
    params: Vec<(String, String)>,
    /// How many kernels of the same name (in other namespaces) come before it: a twin (1 and
    /// up) is declared in a block of its own, renamed after its C++ name.
    twin: usize,
    /// The entry symbol, for an instance of a variadic template declared by it (`name` is then
    /// the fn's, `pack_float_int`).
    symbol: Option<String>,
    /// That instance as C++ writes it, for its doc line.
    shown: Option<String>,
}

impl Declared {
    /// Its name as C++ qualifies it: `ns::plain`.
    fn qualified(&self) -> String {
        qualified(self.namespace.as_deref(), &self.name)
    }
}

/// The Rust names of the element types a family's member names end in (`fill_f32`): the
/// scalar and half types, named in symbols by their Rust names.
fn family_tags() -> Vec<(String, String)> {
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
struct Family {
    pattern: String,
    name: String,
    type_params: Vec<String>,
    params: Vec<(String, String)>,
    members: Vec<String>,
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
fn is_type_hole(hole: &str) -> bool {
    hole.starts_with(|c: char| c.is_ascii_uppercase())
}

/// Whether `name` is a symbol `pattern` matches, its type placeholders taking element type
/// tags (`f32`, `bf16`), with the placeholders' values.
fn matches<'p>(
    pattern: &'p str,
    name: &str,
    tag_names: &[String],
) -> Option<Vec<(&'p str, String)>> {
    let choices = |hole: &str| is_type_hole(hole).then_some(tag_names);
    cuda_kernel_syntax::pattern::fill(pattern, name, &choices)
}

/// A type with each word naming a type parameter's element type replaced by the parameter
/// (`*const f32` with `T = f32` is `*const T`).
fn generic_type(ty: &str, bound: &[(&str, &str)]) -> String {
    replace_words(ty, |w| {
        bound.iter().find(|(_, rust)| *rust == w).map(|(h, _)| *h)
    })
}

/// The other way: a generic type with its parameters replaced by their element types.
fn concrete_type(ty: &str, bound: &[(&str, &str)]) -> String {
    replace_words(ty, |w| {
        bound.iter().find(|(h, _)| *h == w).map(|(_, rust)| *rust)
    })
}

/// `ty` with each space-separated word that `replace` maps replaced.
fn replace_words<'a>(ty: &'a str, replace: impl Fn(&str) -> Option<&'a str>) -> String {
    ty.split(' ')
        .map(|w| replace(w).unwrap_or(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A kernel with its pattern's placeholders' values (`("T", "f32")`).
type Matched<'a, 'p> = (&'a Declared, Vec<(&'p str, String)>);

/// Parameters with type parameters in them, and which members fit them.
type Shape = (Vec<(String, String)>, Vec<usize>);

/// The parameters that most of `members` share once their element types are the type
/// parameters, and which members fit them. Candidates come from each member whose type
/// parameters stand for distinct types (in `cast_f32_f32` a `f32` could be either); every
/// type parameter must appear in them. `None` when no candidate fits any member.
fn shape_of(members: &[Matched<'_, '_>], tags: &[(String, String)]) -> Option<Shape> {
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
fn families(
    kernels: &[Declared],
    hand_written: &[String],
    named: &[NamedFamily],
    entries: &[String],
    warnings: &mut Vec<String>,
    source: &str,
) -> Vec<Family> {
    let tags = family_tags();
    let tag_names: Vec<String> = tags.iter().map(|(t, _)| t.clone()).collect();
    let mut taken: Vec<&str> = Vec::new();
    let mut out: Vec<Family> = Vec::new();
    let free = |taken: &[&str]| -> Vec<&Declared> {
        kernels
            .iter()
            .filter(|k| k.extern_c && k.generics.is_empty() && !taken.contains(&k.name.as_str()))
            .collect()
    };
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
        if run_time > 1 || type_params.is_empty() {
            warn(
                "a family pattern has one or more type parameters (`{T}`) and at most one part \
                 chosen at run time (`{op}`)"
                    .to_string(),
            );
            continue;
        }
        let candidates: Vec<Matched<'_, '_>> = free(&taken)
            .into_iter()
            .filter_map(|k| Some((k, matches(pattern, &k.name, &tag_names)?)))
            .collect();
        if candidates.is_empty() {
            continue; // all declared by hand, or none (said below)
        }
        let Some((params, fitting)) = shape_of(&candidates, &tags) else {
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
    // Families stamped out per element type: two tags, then one.
    for holes in [&["T", "U"][..], &["T"][..]] {
        let suffix: String = holes.iter().map(|h| format!("_{{{h}}}")).collect();
        let mut groups: Vec<(String, Vec<Matched<'_, '_>>)> = Vec::new();
        for kernel in free(&taken) {
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
            let Some((params, fitting)) = shape_of(&members, &tags) else {
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
    out
}

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
}

/// The `#[kernel]` block of one `.cu` file, from its preprocessed text; `from_here` tells the
/// line markers of the file itself and its local headers from system headers' and the build
/// step's own. Kernels of local headers are declared like the file's own, once.
pub fn generate(
    source: &str,
    preprocessed: &str,
    from_here: &dyn Fn(&str) -> bool,
    options: &Options<'_>,
) -> Generated {
    let Options {
        ptx,
        module,
        hand_written,
        entries,
        structs: bound,
        families: named,
        elsewhere,
    } = *options;
    // A hand-written name may be a pattern (`u{op}_{T}`): the kernels it matches are its.
    let tag_names: Vec<String> = family_tags().into_iter().map(|(t, _)| t).collect();
    let by_hand = |name: &str| {
        hand_written
            .iter()
            .any(|h| h == name || (h.contains('{') && matches(h, name, &tag_names).is_some()))
    };
    let Scanned {
        kernels: found,
        typedefs,
        structs: defined,
        enums,
        toolkit,
        enum_defs,
    } = scan(preprocessed, from_here);
    // The file's own structs, each once its fields read (nested ones first); bound ones are
    // the crate's.
    let mut structs: Vec<(String, String)> = bound.to_vec();
    let mut struct_items: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut struct_problems: Vec<(String, String)> = Vec::new();
    // The file's type names (naming.rs): the module type's, the structs', then the launchers'.
    let mut types = naming::TypeNames::default();
    types.reserve(module);
    // Modules holding structs whose names other types have, by namespace.
    let mut struct_modules: Vec<(String, String)> = Vec::new();
    for def in defined.iter().filter(|d| d.here) {
        let qualified = def.qualified();
        // Bound by the build script (by its name or its qualified one), or read already.
        if bound.iter().any(|(c, _)| *c == qualified || *c == def.name)
            || structs.iter().any(|(c, _)| *c == qualified)
        {
            continue;
        }
        // Its name, or where another type has it (a struct of another namespace, the module
        // type), its name in a module named after its namespace (`b::Pair`, `global::Kernels`):
        // the PTX check and the symbols see the struct by its last segment, as C++ names it.
        let rust = match types.is_taken(&def.name) || rust_name(&def.name) != def.name {
            false if naming::free_type_name(&def.name) => {
                types.claim(std::slice::from_ref(&def.name))
            }
            // `Box`, `Float4`: a name #[kernel] reads as its own.
            false => types.claim(&[format!("{}_", def.name)]),
            true => {
                let scope = def
                    .namespace
                    .as_deref()
                    .unwrap_or("global")
                    .replace("::", "_");
                let scope = match struct_modules.iter().find(|(n, _)| *n == scope) {
                    Some((_, m)) => m.clone(),
                    None => {
                        let m = types.claim(&[naming::module(&scope)]);
                        struct_modules.push((scope, m.clone()));
                        m
                    }
                };
                format!("{scope}::{}", rust_name(&def.name))
            }
        };
        match struct_item(def, &rust, &typedefs, &structs, source) {
            Ok((item, uses)) => {
                structs.push((qualified.clone(), rust));
                struct_items.push((qualified, item, uses));
            }
            Err(why) => struct_problems.push((qualified, why)),
        }
    }
    // A struct of the file that could not be read still hides one of the same name in an
    // enclosing namespace, as in C++: found, and refused (an empty Rust name).
    for (qualified, _) in &struct_problems {
        structs.push((qualified.clone(), String::new()));
    }
    // The file's enums, for parameters taking a value of one: a `#[repr(C)]` struct of its
    // base type (`pool_op(1)`), named in symbols by the enum's C++ name, its enumerators as
    // constants.
    for def in enum_defs.iter().filter(|d| d.here) {
        let qualified = qualified(def.namespace.as_deref(), &def.name);
        if structs.iter().any(|(c, _)| *c == qualified) {
            continue;
        }
        let base = match &def.base[..] {
            [] => Some("i32".to_string()),
            words => builtin(&c_spelling(words)).filter(|_| {
                types::all()
                    .any(|t| t.cuda == c_spelling(words) && t.class == types::Class::Integer)
            }),
        };
        let Some(base) = base else {
            struct_problems.push((
                qualified,
                "an enum of a base type this generator does not read".into(),
            ));
            continue;
        };
        // In UpperCamelCase (`pool_op` is `PoolOp`): a tuple struct, which no parameter of the
        // file or of a launcher (`config`) may be named as.
        let camel = cuda_kernel_syntax::ast::upper_camel_case(&def.name);
        let rust = match naming::free_type_name(&camel) {
            true => types.claim(&[camel.clone(), format!("{camel}Enum")]),
            false => types.claim(&[format!("{camel}Enum")]),
        };
        let consts: String = def
            .enumerators
            .iter()
            .map_while(|(name, value)| value.map(|v| (name, v)))
            .map(|(name, value)| {
                format!(
                    "    /// `{qualified}::{name}`.\n    pub const {}: {rust} = {rust}({value});\n",
                    rust_name(name)
                )
            })
            .collect();
        let consts = match consts.is_empty() {
            true => String::new(),
            false => format!("#[allow(non_upper_case_globals)]\nimpl {rust} {{\n{consts}}}\n"),
        };
        let item = format!(
            "/// `enum {qualified}` of {source}: a value of it.\n\
             #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::cuda_kernel::KernelParam)]\n\
             #[kernel_param(cuda_name = \"{qualified}\")]\n#[repr(C)]\n\
             pub struct {rust}(pub {base});\n{consts}"
        );
        structs.push((qualified.clone(), rust));
        struct_items.push((qualified, item, Vec::new()));
    }
    let mut out = Generated::default();
    let mut kernels: Vec<Declared> = Vec::new();
    // The fn names of `kernels`, in Rust, each computed once.
    let mut fn_idents: Vec<String> = Vec::new();
    // Every kernel the file defines, declared or not: what a named family may match.
    let defined: Vec<String> = found.iter().map(|k| k.name.clone()).collect();
    // The kernels considered, as C++ names them (`ns::k` in a namespace): those not declared
    // in the end are the warned ones.
    let mut considered: Vec<(String, String)> = Vec::new();
    for kernel in found {
        let qualified = qualified(kernel.namespace.as_deref(), &kernel.name);
        if by_hand(&qualified) || elsewhere.contains(&qualified) {
            continue;
        }
        considered.push((kernel.name.clone(), qualified.clone()));
        let own = std::path::Path::new(&kernel.file)
            .file_name()
            .is_some_and(|f| f.to_string_lossy() == source);
        if !own {
            out.from_headers.push(qualified.clone());
        }
        let mut warn = |why: String| {
            out.warnings
                .push(format!("{source}: `{qualified}` is not generated: {why}"));
        };
        // `Self`, `self`, `super`, `crate`, `_`: no Rust identifier, raw or not, spells them,
        // and a C++ kernel's symbol is derived from its fn's name; a plain one is bound by its
        // symbol (below), a template's instances have one each.
        let unspelled = rust_name(&kernel.name).trim_start_matches("r#") != kernel.name;
        if unspelled && !kernel.extern_c {
            warn(format!(
                "named `{}`, which no Rust identifier spells: declare each instance by hand \
                 with #[kernel(name = \"<its symbol>\")]",
                kernel.name
            ));
            continue;
        }
        if kernel
            .namespace
            .as_deref()
            .is_some_and(|ns| ns.split("::").any(str::is_empty))
        {
            warn(
                "in an anonymous namespace: its symbol holds a hash of the source's path, which \
                 differs from machine to machine; move it out of the anonymous namespace"
                    .to_string(),
            );
            continue;
        }
        // A variadic template (`template <typename... Args>`): no Rust generic stands for a
        // pack, so each instance of the PTX is declared by its symbol.
        let variadic = kernel
            .template
            .as_ref()
            .is_some_and(|head| head.iter().any(|p| is_pack(p)));
        if variadic {
            let instance = cuda_kernel_syntax::itanium::template_instance_prefix(&qualified);
            let mut any = false;
            for entry in entries.iter().filter(|e| e.starts_with(&instance)) {
                any = true;
                match pack_instance(&kernel, entry, &structs) {
                    Ok(params) => {
                        let args = cuda_kernel_syntax::demangle::template_args(entry)
                            .unwrap_or_default()
                            .iter()
                            .map(|a| {
                                a.chars()
                                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                                    .collect::<String>()
                            })
                            .collect::<Vec<_>>()
                            .join("_");
                        let base = format!("{}_{}", kernel.name, args)
                            .trim_end_matches('_')
                            .replace("__", "_");
                        // Unique among the block's fn names, and taken from those after it.
                        let mut name = base.clone();
                        let mut n = 2;
                        while kernels.iter().any(|k| k.name == name)
                            || fn_idents.contains(&rust_name(&name))
                        {
                            name = format!("{base}_{n}");
                            n += 1;
                        }
                        fn_idents.push(rust_name(&name));
                        kernels.push(Declared {
                            name,
                            namespace: None,
                            extern_c: true,
                            generics: Vec::new(),
                            params,
                            twin: 0,
                            symbol: Some(entry.clone()),
                            shown: Some(cuda_kernel_syntax::demangle::shown(entry)),
                        });
                    }
                    Err(why) => warn(format!(
                        "its instance `{}` {why}",
                        cuda_kernel_syntax::demangle::shown(entry)
                    )),
                }
            }
            if !any {
                warn(
                    "a template the PTX has no instance of (nvcc compiles the instances the \
                     .cu names: add an explicit instantiation)"
                        .to_string(),
                );
            }
            continue;
        }
        // The names of its parameters and template parameters, one scope.
        let mut taken: Vec<String> = Vec::new();
        let generics = match &kernel.template {
            None => Vec::new(),
            Some(head) => {
                let instance = cuda_kernel_syntax::itanium::template_instance_prefix(&qualified);
                if !entries.iter().any(|e| e.starts_with(&instance)) {
                    warn(
                        "a template the PTX has no instance of (nvcc compiles the instances the \
                         .cu names: add an explicit instantiation)"
                            .to_string(),
                    );
                    continue;
                }
                // An instance is declared by the Rust of its arguments: types the runtime
                // names and values. One whose arguments are class templates
                // (`DefaultAttention<false, true>`) or other classes no Rust type stands for
                // cannot be.
                let readable = entries
                    .iter()
                    .filter(|e| e.starts_with(&instance))
                    .any(|e| {
                        cuda_kernel_syntax::demangle::template_args(e).is_some_and(|args| {
                            args.iter().all(|a| {
                                cuda_kernel_syntax::cpp::TemplateArg::from_demangled(a).is_some()
                            })
                        })
                    });
                if !readable {
                    warn(
                        "a template whose instances in the PTX take arguments no Rust type \
                         names (class templates): declare it by hand"
                            .to_string(),
                    );
                    continue;
                }
                match head
                    .iter()
                    .map(|p| {
                        template_param(
                            p,
                            &enums,
                            kernel.namespace.as_deref(),
                            &typedefs,
                            &structs,
                            &mut taken,
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()
                {
                    Ok(generics) => generics,
                    Err(why) => {
                        warn(format!("a template with {why}: declare it by hand"));
                        continue;
                    }
                }
            }
        };
        let type_params: Vec<(String, String)> = generics
            .iter()
            .filter_map(|g| g.type_param.clone())
            .collect();
        let generics: Vec<String> = generics.into_iter().map(|g| g.text).collect();
        let params: Result<Vec<(String, String)>, String> = kernel
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                param(
                    p,
                    i,
                    &typedefs,
                    &type_params,
                    &structs,
                    kernel.namespace.as_deref(),
                    &mut taken,
                )
                .map_err(|why| format!("parameter {} {why}", i + 1))
            })
            .collect();
        match params {
            Ok(params) => {
                let ident = rust_name(&kernel.name);
                // One Rust name per block: a second kernel of the same name in another
                // namespace is declared in a block of its own.
                let twin = fn_idents.iter().filter(|i| **i == ident).count();
                fn_idents.push(ident);
                kernels.push(Declared {
                    namespace: kernel.namespace,
                    extern_c: kernel.extern_c,
                    generics,
                    params,
                    twin,
                    name: kernel.name,
                    symbol: None,
                    shown: None,
                })
            }
            Err(why) => {
                // Why a struct of the file could not be generated, where that is the reason.
                let detail = struct_problems
                    .iter()
                    .find(|(name, _)| why.contains(&format!("`{name}`")))
                    .map(|(name, problem)| format!(" (`{name}`: {problem})"))
                    .unwrap_or_default();
                warn(format!("its {why}{detail}"));
            }
        }
    }
    let families = families(
        &kernels
            .iter()
            .filter(|k| k.twin == 0)
            .cloned()
            .collect::<Vec<_>>(),
        hand_written,
        named,
        entries,
        &mut out.warnings,
        source,
    );
    let mut items = String::new();
    // The launcher types' names (naming.rs): families first, then kernels of the global
    // namespace, then those of namespaces, each in the file's order.
    let camel = |name: &str| cuda_kernel_syntax::ast::upper_camel_case(name);
    let rename = |claimed: String, name: &str| match claimed == camel(name) {
        true => String::new(),
        false => format!(", rename = {claimed}"),
    };
    let family_renames: Vec<String> = families
        .iter()
        .map(|f| rename(types.claim(&[camel(&f.name)]), &f.name))
        .collect();
    let in_family = |kernel: &Declared| {
        kernel.twin == 0 && families.iter().any(|f| f.members.contains(&kernel.name))
    };
    let mut order: Vec<usize> = (0..kernels.len())
        .filter(|&i| !in_family(&kernels[i]))
        .collect();
    order.sort_by_key(|&i| kernels[i].namespace.is_some());
    let mut kernel_renames: Vec<String> = vec![String::new(); kernels.len()];
    for i in order {
        let claimed = types.launcher(&kernels[i].qualified());
        kernel_renames[i] = rename(claimed, &rust_name(&kernels[i].name));
    }
    for (family, rename) in families.iter().zip(&family_renames) {
        let list: Vec<String> = family
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        let _ = write!(
            items,
            "    /// `{}` of {source}: {}.\n    #[kernel(name = \"{}\"{rename})]\n    \
             #[allow(non_snake_case)]\n    pub fn {}<{}>({});\n",
            family.pattern,
            family.members.join(", "),
            family.pattern,
            family.name,
            family.type_params.join(", "),
            list.join(", ")
        );
        out.declared.extend(family.members.iter().cloned());
        if named.iter().any(|n| n.pattern == family.pattern) {
            out.named_families.push(family.pattern.clone());
        }
    }
    for family in named {
        let matched = defined
            .iter()
            .any(|k| matches(&family.pattern, k, &tag_names).is_some());
        if !matched {
            out.warnings.push(format!(
                "{source}: the family `{}` ({}) matches no kernel of the file",
                family.pattern, family.name
            ));
        }
    }
    // Twins (`other::plain` beside `ns::plain`), each block of them after the main one.
    let mut twin_blocks: Vec<String> = Vec::new();
    for (kernel, rename) in kernels
        .iter()
        .zip(&kernel_renames)
        .filter(|(k, _)| !in_family(k))
    {
        // A type parameter named as the launcher itself (`n<N>` is `N<N>`) takes a `_`, in the
        // parameters' types too.
        let launcher = match rename.split_once("rename = ") {
            Some((_, name)) => name.to_string(),
            None => cuda_kernel_syntax::ast::upper_camel_case(&rust_name(&kernel.name)),
        };
        let mut generics_list: Vec<String> = kernel.generics.clone();
        let mut param_types: Vec<String> = kernel.params.iter().map(|(_, t)| t.clone()).collect();
        if let Some(at) = generics_list.iter().position(|g| *g == launcher) {
            let mut renamed = format!("{launcher}_");
            while generics_list.contains(&renamed) {
                renamed.push('_');
            }
            for ty in &mut param_types {
                *ty = replace_words(ty, |w| (w == launcher).then_some(renamed.as_str()));
            }
            generics_list[at] = renamed;
        }
        // A parameter named as a type of the file (a tuple struct) or `None` takes a `_`, and
        // stays unique among the kernel's.
        let mut used: Vec<String> = kernel
            .params
            .iter()
            .map(|(n, _)| n.rsplit(' ').next().unwrap_or(n).to_string())
            .collect();
        let list: Vec<String> = kernel
            .params
            .iter()
            .zip(&param_types)
            .map(|((n, _), t)| {
                let (attr, name) = match n.rsplit_once(' ') {
                    Some((attr, name)) => (format!("{attr} "), name),
                    None => (String::new(), n.as_str()),
                };
                let mut unshadowed = naming::unshadowed(name, &types);
                if unshadowed != name {
                    while used.contains(&unshadowed) || types.is_taken(&unshadowed) {
                        unshadowed.push('_');
                    }
                    used.push(unshadowed.clone());
                }
                format!("{attr}{unshadowed}: {t}")
            })
            .collect();
        // A name a raw identifier cannot spell (`Self`, declared `Self_`) gives its symbol.
        let fn_ident = rust_name(&kernel.name);
        let spelled = fn_ident.trim_start_matches("r#") == kernel.name;
        let cpp = match (kernel.extern_c, &kernel.namespace) {
            // An instance of a variadic template, by its symbol.
            _ if kernel.symbol.is_some() => format!(
                "    #[kernel(name = \"{}\"{rename})]\n",
                kernel.symbol.as_deref().unwrap_or_default()
            ),
            (true, _) if !spelled => format!("    #[kernel(name = \"{}\"{rename})]\n", kernel.name),

            (true, _) if rename.is_empty() => String::new(),
            (true, _) => format!("    #[kernel({})]\n", &rename[2..]),
            (false, None) => format!("    #[kernel(cpp{rename})]\n"),
            (false, Some(ns)) => format!("    #[kernel(cpp, namespace = \"{ns}\"{rename})]\n"),
        };
        let generics = if kernel.generics.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = generics_list
                .iter()
                .map(|g| naming::unshadowed_generic(g, &types))
                .collect();
            format!("<{}>", list.join(", "))
        };
        // Names as the source writes them (`N`, `transposeNaive`, `const blockSize: u32`).
        let allow = if kernel.generics.is_empty() {
            "#[allow(non_snake_case)]"
        } else {
            "#[allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]"
        };
        let item = format!(
            "    /// `{}` of {source}.\n{cpp}    {allow}\n    pub fn {}{generics}({});\n",
            kernel.shown.clone().unwrap_or_else(|| kernel.qualified()),
            rust_name(&kernel.name),
            list.join(", ")
        );
        match kernel.twin {
            0 => items.push_str(&item),
            n => {
                if twin_blocks.len() < n {
                    twin_blocks.resize(n, String::new());
                }
                twin_blocks[n - 1].push_str(&item);
            }
        }
        out.declared
            .push(kernel.symbol.clone().unwrap_or_else(|| kernel.qualified()));
    }
    // Every entry of the PTX, by the kernel it belongs to.
    let declared_here: Vec<String> = kernels.iter().map(Declared::qualified).collect();
    let warned: Vec<&str> = considered
        .iter()
        .filter(|(_, qualified)| !declared_here.contains(qualified))
        .map(|(_, qualified)| qualified.as_str())
        .collect();
    out.from_headers.retain(|name| declared_here.contains(name));
    out.accounting.entries = entries.len();
    for entry in entries {
        let function = entry_function(entry);
        let bucket = if declared_here.contains(&function) || out.declared.iter().any(|d| d == entry)
        {
            &mut out.accounting.declared
        } else if by_hand(entry) || by_hand(&function) {
            &mut out.accounting.by_hand
        } else if elsewhere.contains(&function) {
            &mut out.accounting.elsewhere
        } else if warned.contains(&function.as_str()) {
            &mut out.accounting.warned
        } else if toolkit.contains(&function)
            || TOOLKIT_NAMESPACES
                .iter()
                .any(|ns| function.starts_with(&format!("{ns}::")))
        {
            &mut out.accounting.toolkit
        } else {
            // Defined where the scanner does not read (a system header: CUB's kernels), or
            // not found by it: named all the same.
            out.warnings.push(format!(
                "{source}: `{}` of the PTX is not generated: it is defined outside the file and \
                 its local headers (a system or toolkit header); declare it by hand",
                cuda_kernel_syntax::demangle::shown(entry)
            ));
            &mut out.accounting.warned
        };
        *bucket += 1;
    }
    if !out.declared.is_empty() {
        // The file's structs the declared kernels take, and those they hold.
        let mut used: Vec<String> = Vec::new();
        let mut todo: Vec<String> = struct_items
            .iter()
            .filter(|(name, _, _)| {
                let Some((_, rust)) = structs.iter().find(|(c, _)| c == name) else {
                    return false;
                };
                mentions(&items, rust) || twin_blocks.iter().any(|b| mentions(b, rust))
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
        out.rust = format!(
            "// Generated by cuda-kernel-build from {source}: every kernel the file defines that\n\
             // no hand-written #[kernel] block of the crate declares. Do not edit.\n\
             // {}.\n\
             {struct_text}\
             #[::cuda_kernel::kernel(ptx = \"{ptx}\", module = pub {module})]\n\
             unsafe extern \"C\" {{\n{items}}}\n",
            out.accounting
        );
        for block in &twin_blocks {
            let _ = write!(
                out.rust,
                "// Kernels named as one above, in another namespace: not in `{module}`.\n\
                 #[::cuda_kernel::kernel(ptx = \"{ptx}\")]\nunsafe extern \"C\" {{\n{block}}}\n"
            );
        }
    }
    out
}

/// The value of a constant expression of an array length: integers, `+ - * / %`, parentheses
/// and `sizeof` of a built-in C type (`64 / sizeof(uint32_t)`); `None` for anything else.
fn constant(tokens: &[Token], typedefs: &[(String, Vec<Token>)]) -> Option<i128> {
    fn sum(t: &[Token], at: &mut usize, typedefs: &[(String, Vec<Token>)]) -> Option<i128> {
        let mut value = product(t, at, typedefs)?;
        while let Some(Token::Punct(op @ ('+' | '-'))) = t.get(*at) {
            *at += 1;
            let rhs = product(t, at, typedefs)?;
            value = if *op == '+' {
                value.checked_add(rhs)?
            } else {
                value.checked_sub(rhs)?
            };
        }
        Some(value)
    }
    fn product(t: &[Token], at: &mut usize, typedefs: &[(String, Vec<Token>)]) -> Option<i128> {
        let mut value = atom(t, at, typedefs)?;
        while let Some(Token::Punct(op @ ('*' | '/' | '%'))) = t.get(*at) {
            *at += 1;
            let rhs = atom(t, at, typedefs)?;
            value = match op {
                '*' => value.checked_mul(rhs)?,
                '/' => value.checked_div(rhs)?,
                _ => value.checked_rem(rhs)?,
            };
        }
        Some(value)
    }
    fn atom(t: &[Token], at: &mut usize, typedefs: &[(String, Vec<Token>)]) -> Option<i128> {
        match t.get(*at)? {
            Token::Literal(n) => {
                *at += 1;
                integer_literal(n)
            }
            Token::Punct('(') => {
                *at += 1;
                let value = sum(t, at, typedefs)?;
                is_punct(t.get(*at), ')').then(|| *at += 1)?;
                Some(value)
            }
            Token::Punct('-') => {
                *at += 1;
                atom(t, at, typedefs)?.checked_neg()
            }
            Token::Ident(w) if w == "sizeof" && is_punct(t.get(*at + 1), '(') => {
                let end = skip_group(t, *at + 1, '(', ')');
                let inner = t.get(*at + 2..end.saturating_sub(1))?;
                *at = end;
                let ty = rust_type(inner, typedefs, &[], &[], None).ok()?;
                rust_layout(&ty).map(|(size, _)| size as i128)
            }
            _ => None,
        }
    }
    // Lengths are short; a long one is no constant we compute (and no deep recursion).
    if tokens.len() > 64 {
        return None;
    }
    let mut at = 0;
    let value = sum(tokens, &mut at, typedefs)?;
    (at == tokens.len()).then_some(value)
}

/// The size and alignment of a Rust type the generator writes (`*const f32`, `[u32; 16]`,
/// `::cuda_kernel::Uint4`), where the table or C knows them; `None` for a struct's.
fn rust_layout(ty: &str) -> Option<(usize, usize)> {
    if ty.starts_with("*const ") || ty.starts_with("*mut ") {
        return Some((8, 8));
    }
    if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let (elem, n) = inner.rsplit_once("; ")?;
        let (size, align) = rust_layout(elem)?;
        return Some((size.checked_mul(n.parse::<usize>().ok()?)?, align));
    }
    types::all()
        .find(|t| t.rust_path("::cuda_kernel") == ty || t.rust == ty)
        .map(|t| (t.size, t.align))
}

/// Whether Rust text names `word` (or the path `scope::Name`) as a whole word.
fn mentions(text: &str, word: &str) -> bool {
    if word.contains("::") {
        return text.match_indices(word).any(|(at, _)| {
            !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
        });
    }
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '#'))
        .any(|w| w == word)
}

/// A struct of the file as a `#[derive(KernelParam)]` Rust struct, and the file's structs its
/// fields hold.
fn struct_item(
    def: &StructDef,
    rust: &str,
    typedefs: &[(String, Vec<Token>)],
    structs: &[(String, String)],
    source: &str,
) -> Result<(String, Vec<String>), String> {
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut depth = 0i32;
    let mut chunk: Vec<Token> = Vec::new();
    let mut chunks: Vec<Vec<Token>> = Vec::new();
    for token in &def.fields {
        match token {
            Token::Punct('{' | '(') => depth += 1,
            Token::Punct('}' | ')') => depth -= 1,
            Token::Punct(';') if depth == 0 => {
                // Default member initializers (`float x = 0.0f, y{1};`) leave the layout as
                // it is: each declarator without its own.
                let parts: Vec<Vec<Token>> = split_params(&std::mem::take(&mut chunk))
                    .iter()
                    .map(|p| without_initializer(p).to_vec())
                    .collect();
                let mut joined: Vec<Token> = Vec::new();
                for (k, part) in parts.into_iter().enumerate() {
                    if k > 0 {
                        joined.push(Token::Punct(','));
                    }
                    joined.extend(part);
                }
                chunks.push(joined);
                continue;
            }
            _ => {}
        }
        chunk.push(token.clone());
    }
    if chunk.iter().any(|t| !matches!(t, Token::Punct(';'))) && !chunk.is_empty() {
        return Err("its fields do not end with `;`".to_string());
    }
    for chunk in chunks {
        let mut bracket = 0i32;
        for word in &chunk {
            // An array length may be an expression (`64 / sizeof(uint32_t)`).
            match word {
                Token::Punct('[') => bracket += 1,
                Token::Punct(']') => bracket -= 1,
                _ if bracket > 0 => continue,
                _ => {}
            }
            match word {
                Token::Punct(':') => return Err("it has a bit-field".to_string()),
                Token::Punct('(' | '{' | '=' | '<') => {
                    return Err("it has members other than plain fields".to_string());
                }
                Token::Ident(w)
                    if [
                        "static", "union", "struct", "class", "public", "private", "virtual",
                    ]
                    .contains(&w.as_str()) =>
                {
                    return Err(format!("it has `{w}` members"));
                }
                _ => {}
            }
        }
        // `float x, y[3];`: one base type, several declarators.
        let parts = split_params(&chunk);
        let first = parts.first().cloned().unwrap_or_default();
        // The name is before any array length (which may name types: `sizeof(uint2)`).
        let before_arrays = first
            .iter()
            .position(|t| matches!(t, Token::Punct('[')))
            .unwrap_or(first.len());
        let declarator_start = first[..before_arrays]
            .iter()
            .rposition(|t| matches!(t, Token::Ident(w) if !TYPE_WORDS.contains(&w.as_str())))
            .map(|end| {
                // The name, and the stars right before it.
                let mut start = end;
                while start > 0 && matches!(first[start - 1], Token::Punct('*')) {
                    start -= 1;
                }
                start
            })
            .ok_or_else(|| "a field has no name".to_string())?;
        let base = &first[..declarator_start];
        for (k, part) in parts.iter().enumerate() {
            let declarator = if k == 0 {
                &first[declarator_start..]
            } else {
                &part[..]
            };
            let mut words: Vec<Token> = base.to_vec();
            let mut dims = Vec::new();
            let mut i = 0;
            while i < declarator.len() {
                match &declarator[i] {
                    Token::Punct('[') => {
                        let end = skip_group(declarator, i, '[', ']');
                        let length = declarator
                            .get(i + 1..end.saturating_sub(1))
                            .unwrap_or_default();
                        let n =
                            constant(length, typedefs)
                                .filter(|n| *n >= 0)
                                .ok_or_else(|| {
                                    "an array length that is no constant this generator computes"
                                        .to_string()
                                })?;
                        dims.push(n as u64);
                        i = end;
                        continue;
                    }
                    Token::Ident(a) if a == "__attribute__" => {
                        return Err("a field with an attribute".to_string());
                    }
                    other => words.push(other.clone()),
                }
                i += 1;
            }
            let Some(Token::Ident(name)) = words.pop() else {
                return Err("a field has no name".to_string());
            };
            let mut ty = rust_type(&words, typedefs, &[], structs, def.namespace.as_deref())
                .map_err(|why| format!("field `{name}` {why}"))?;
            for n in dims.iter().rev() {
                ty = format!("[{ty}; {n}]");
            }
            fields.push((rust_name(&name), ty));
        }
    }
    if fields.is_empty() {
        return Err("it has no fields".to_string());
    }
    // A union: its bytes, of the size and alignment of its largest members, which a launch
    // passes as they are (the kernel reads the member it reads).
    let fields = match def.union {
        false => fields,
        true => {
            let layouts: Vec<(usize, usize)> = fields
                .iter()
                .map(|(n, t)| {
                    rust_layout(t).ok_or_else(|| {
                        format!("it is a union whose member `{n}` is of a type this generator does not lay out")
                    })
                })
                .collect::<Result<_, _>>()?;
            let align = layouts.iter().map(|l| l.1).max().unwrap_or(1);
            let size = layouts
                .iter()
                .map(|l| l.0)
                .max()
                .unwrap_or(0)
                .div_ceil(align)
                .checked_mul(align)
                .ok_or_else(|| "it is a union too large to lay out".to_string())?;
            let members: Vec<String> = fields.iter().map(|(n, t)| format!("`{n}: {t}`")).collect();
            let repr_align = def
                .align
                .as_deref()
                .and_then(|a| a.parse::<usize>().ok())
                .unwrap_or(1);
            let align = align.max(repr_align);
            return Ok((
                format!(
                    "/// `union {name}` of {source}: its {size} bytes (members {}).\n\
                     #[derive(Clone, Copy, Debug, ::cuda_kernel::KernelParam)]\n\
                     #[kernel_param(cuda_name = \"{name}\")]\n#[repr(C, align({align}))]\n\
                     #[allow(non_camel_case_types)]\npub struct {rust} {{\n    pub bytes: [u8; {size}],\n}}\n",
                    members.join(", "),
                    name = def.qualified(),
                ),
                Vec::new(),
            ));
        }
    };
    let uses: Vec<String> = structs
        .iter()
        .filter(|(_, used)| !used.is_empty() && fields.iter().any(|(_, t)| mentions(t, used)))
        .map(|(c, _)| c.clone())
        .collect();
    let repr = match &def.align {
        Some(n) => format!("#[repr(C, align({n}))]"),
        None => "#[repr(C)]".to_string(),
    };
    let list: String = fields
        .iter()
        .map(|(n, t)| format!("    pub {n}: {t},\n"))
        .collect();
    // A struct of a namespace, or of another name in Rust (`Box_`, `Self_`), is named by its
    // C++ name in symbols and CUDA declarations.
    let last = rust.rsplit("::").next().unwrap_or(rust);
    let cuda_name = match def.namespace.is_some() || last.trim_start_matches("r#") != def.name {
        true => format!("#[kernel_param(cuda_name = \"{}\")]\n", def.qualified()),
        false => String::new(),
    };
    // One in a module of its own (`b::Pair`): the module, around it.
    let (scope, rust) = match rust.rsplit_once("::") {
        Some((scope, name)) => (Some(scope), name),
        None => (None, rust),
    };
    let item = format!(
        "/// `{name}` of {source}.\n#[derive(Clone, Copy, Debug, ::cuda_kernel::KernelParam)]\n\
         {cuda_name}{repr}\n#[allow(non_snake_case, non_camel_case_types)]\npub struct {rust} {{\n{list}}}\n",
        name = def.qualified(),
    );
    // One in a module of its own (`b::Pair`): the module is written around it, with the
    // others of its module.
    let item = match scope {
        Some(scope) => format!("{MODULE_MARK}{scope}\n{item}"),
        None => item,
    };
    Ok((item, uses))
}

/// What begins a struct's item that goes in a module (`b` of `b::Pair`), the module's name
/// after it on the same line.
const MODULE_MARK: &str = "// in module ";

/// The structs' items, those of a module (see [`MODULE_MARK`]) written in one `pub mod`.
fn struct_text(items: &[&str]) -> String {
    let mut plain = String::new();
    let mut modules: Vec<(&str, String)> = Vec::new();
    for item in items {
        match item
            .strip_prefix(MODULE_MARK)
            .and_then(|rest| rest.split_once('\n'))
        {
            Some((scope, body)) => match modules.iter_mut().find(|(m, _)| *m == scope) {
                Some((_, text)) => text.push_str(body),
                None => modules.push((scope, body.to_string())),
            },
            None => plain.push_str(item),
        }
    }
    for (scope, body) in modules {
        let _ = write!(
            plain,
            "/// Structs of the file whose names other items have.\npub mod {scope} {{\n\
             #[allow(unused_imports)]\nuse super::*;\n{body}}}\n"
        );
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
# 1 "cuda/k.cu"
typedef unsigned long size_t;
typedef float floatX;
# 1 "/usr/local/cuda/include/cuda_runtime.h" 1
extern "C" __attribute__((global)) void from_a_header(float *x) { }
# 5 "cuda/k.cu" 2
extern "C" __attribute__((global)) void fill_f32(float *buf, float value, const size_t numel) { }
extern "C" {
__attribute__((global)) void __attribute__((launch_bounds(256, 2))) inside(const floatX *__restrict__ x, floatX * const y, unsigned n, long long big) { }
}
__attribute__((global)) void cpp_kernel(const float* const* rows, int, char c[]) { }
template <typename T> __attribute__((global)) void templ(T *x) { }
namespace ns { __attribute__((global)) void spaced(float *x) { } }
namespace other { namespace inner { __attribute__((global)) void spaced(int *x) { } } }
namespace geo { struct Pt { float x; float y; }; __attribute__((global)) void shift(Pt p, const ::geo::Pt *q, geo::Pt *r) { } }
struct P { int a; float b[3], *c; };
struct __attribute__((aligned(16))) Q { P inner; unsigned long long n; };
struct Bits { int a : 3; };
struct Unused { int x; };
__attribute__((global)) void takes_struct(P p, Q q) { }
__attribute__((global)) void takes_bits(Bits b) { }
__attribute__((global)) void declared_only(float *x);
extern "C" __attribute__((global)) void by_hand(float *x) { }
extern "C" __attribute__((global)) void keyword_param(int type, const size_t) { }
"#;

    fn here(file: &str) -> bool {
        file == "cuda/k.cu"
    }

    #[test]
    fn kernels_of_the_file_are_declared_as_their_source_writes_them() {
        let g = generate(
            "cuda/k.cu",
            TEXT,
            &here,
            &Options {
                ptx: "$OUT_DIR/k.ptx",
                module: "Kernels",
                hand_written: &["by_hand".into()],
                ..Options::default()
            },
        );
        assert_eq!(
            g.declared,
            [
                "fill_f32",
                "inside",
                "cpp_kernel",
                "ns::spaced",
                "other::inner::spaced",
                "geo::shift",
                "takes_struct",
                "keyword_param"
            ],
            "{}",
            g.rust
        );
        // A kernel in a namespace, declared in it.
        assert!(
            g.rust.contains(
                "    #[kernel(cpp, namespace = \"ns\")]\n    #[allow(non_snake_case)]\n    pub fn spaced(x: *mut f32);"
            ),
            "{}",
            g.rust
        );
        // A struct of a namespace, by its CUDA name, however the kernel qualifies it.
        assert!(
            g.rust.contains(
                "#[kernel_param(cuda_name = \"geo::Pt\")]\n#[repr(C)]\n\
                 #[allow(non_snake_case, non_camel_case_types)]\npub struct Pt {"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("pub fn shift(p: Pt, q: *const Pt, r: *mut Pt);"),
            "{}",
            g.rust
        );
        // One of the same name in another namespace: a block of its own, renamed.
        assert!(
            g.rust.contains(
                "// Kernels named as one above, in another namespace: not in `Kernels`.\n\
                 #[::cuda_kernel::kernel(ptx = \"$OUT_DIR/k.ptx\")]\n\
                 unsafe extern \"C\" {\n    \
                 /// `other::inner::spaced` of cuda/k.cu.\n    \
                 #[kernel(cpp, namespace = \"other::inner\", rename = OtherInnerSpaced)]\n    \
                 #[allow(non_snake_case)]\n    pub fn spaced(x: *mut i32);\n}"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("pub fn keyword_param(r#type: i32, arg1: ::cuda_kernel::ffi::size_t);"),
            "{}",
            g.rust
        );
        assert!(
            g.rust.contains(
                "pub fn fill_f32(buf: *mut f32, value: f32, numel: ::cuda_kernel::ffi::size_t);"
            ),
            "{}",
            g.rust
        );
        assert!(g.rust.contains(
            "pub fn inside(x: *const f32, y: *mut f32, n: u32, big: ::cuda_kernel::ffi::c_longlong);"
        ), "{}", g.rust);
        assert!(g.rust.contains(
            "    #[kernel(cpp)]\n    #[allow(non_snake_case)]\n    pub fn cpp_kernel(rows: *const *const f32, arg1: i32, c: *mut ::cuda_kernel::ffi::c_char);"
        ), "{}", g.rust);
        let warned: Vec<&str> = g
            .warnings
            .iter()
            .map(|w| w.split('`').nth(1).unwrap())
            .collect();
        assert_eq!(warned, ["templ", "takes_bits"], "{:?}", g.warnings);
        assert!(
            g.warnings[1].contains("takes `Bits`, a struct")
                && g.warnings[1].contains("(`Bits`: it has a bit-field)"),
            "{}",
            g.warnings[1]
        );
        // The file's structs the declared kernels take, nested ones too, as KernelParam types.
        assert!(
            g.rust.contains(
                "#[repr(C)]\n#[allow(non_snake_case, non_camel_case_types)]\npub struct P {\n    \
             pub a: i32,\n    pub b: [f32; 3],\n    pub c: *mut f32,\n}"
            ),
            "{}",
            g.rust
        );
        assert!(g.rust.contains(
            "#[repr(C, align(16))]\n#[allow(non_snake_case, non_camel_case_types)]\npub struct Q {\n    \
             pub inner: P,\n    pub n: ::cuda_kernel::ffi::c_ulonglong,\n}"
        ), "{}", g.rust);
        assert!(
            g.rust.contains("pub fn takes_struct(p: P, q: Q);"),
            "{}",
            g.rust
        );
        assert!(!g.rust.contains("Unused"), "{}", g.rust);
    }

    /// Hopper kernels, as nvcc's preprocessor leaves them (`__grid_constant__` is
    /// `__attribute__((grid_constant))`): a TMA descriptor is a `RawTensorMap`, which C types by
    /// neither element nor rank; another grid constant says so.
    #[test]
    fn grid_constants_and_tma_descriptors_are_declared_as_such() {
        let text = "# 1 \"cuda/k.cu\"\n\
            struct __attribute__((aligned(64))) Tile { float v[16]; };\n\
            extern \"C\" __attribute__((global)) void tma(unsigned a, const __attribute__((grid_constant)) CUtensorMap m, float *out) { }\n\
            extern \"C\" __attribute__((global)) void tile(const __grid_constant__ Tile t, float *out) { }\n\
            extern \"C\" __attribute__((global)) void plain_map(CUtensorMap m) { }\n";
        let g = generate("cuda/k.cu", text, &here, &Options::default());
        assert!(
            g.rust
                .contains("pub fn tma(a: u32, m: ::cuda_kernel::RawTensorMap, out: *mut f32);"),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("pub fn tile(#[kernel(grid_constant)] t: Tile, out: *mut f32);"),
            "{}",
            g.rust
        );
        assert!(
            g.warnings
                .iter()
                .any(|w| w.contains("plain_map") && w.contains("not `const __grid_constant__`")),
            "{:?}",
            g.warnings
        );
    }

    #[test]
    fn nothing_to_declare_writes_nothing() {
        let g = generate(
            "cuda/k.cu",
            "# 1 \"cuda/k.cu\"\nint x;\n",
            &here,
            &Options::default(),
        );
        assert_eq!(g, Generated::default());
    }

    const TEMPLATES_AND_FAMILIES: &str = r#"
# 1 "cuda/k.cu"
typedef unsigned long size_t;
template <typename T, unsigned int BLOCK = 128>
__attribute__((global)) void red(const T *x, T *y, unsigned n) { }
template <typename T> __attribute__((global)) void never(T *x) { }
extern "C" __attribute__((global)) void fill_u8(unsigned char *b, unsigned char v, size_t n) { }
extern "C" __attribute__((global)) void fill_f32(float *b, float v, size_t n) { }
extern "C" __attribute__((global)) void fill_f64(double *b, double v, size_t n) { }
extern "C" __attribute__((global)) void odd_f32(float *b, size_t n) { }
extern "C" __attribute__((global)) void odd_f64(double *b, int n) { }
extern "C" __attribute__((global)) void copy_f32(const float *a, float *b) { }
extern "C" __attribute__((global)) void copy_f64(const double *a, double *b) { }
"#;

    #[test]
    fn templates_with_instances_and_dtype_families_are_declared_once() {
        let entries = ["_Z3redIfLj128EEvPKT_PS0_j".to_string()];
        let g = generate(
            "k.cu",
            TEMPLATES_AND_FAMILIES,
            &|f| f == "cuda/k.cu",
            &Options {
                ptx: "k.ptx",
                module: "K",
                hand_written: &["copy_f64".into()],
                entries: &entries,
                ..Options::default()
            },
        );
        assert!(
            g.rust.contains(
                "    #[kernel(cpp)]\n    #[allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]\n    \
                 pub fn red<T, const BLOCK: u32>(x: *const T, y: *mut T, n: u32);"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust.contains(
                "#[kernel(name = \"fill_{T}\")]\n    #[allow(non_snake_case)]\n    \
                 pub fn fill<T>(b: *mut T, v: T, n: ::cuda_kernel::ffi::size_t);"
            ),
            "{}",
            g.rust
        );
        // Members of other shapes stay kernels of their own; so does the rest of a family one
        // of whose members the crate declares by hand.
        for single in ["pub fn odd_f32(", "pub fn odd_f64(", "pub fn copy_f32("] {
            assert!(g.rust.contains(single), "{single}\n{}", g.rust);
        }
        assert!(!g.rust.contains("copy_f64(") && !g.rust.contains("fn fill_f32("));
        assert_eq!(g.warnings.len(), 1, "{:?}", g.warnings);
        assert!(
            g.warnings[0].contains("`never` is not generated: a template the PTX has no instance")
        );
    }

    /// A template value parameter of an enum type, as vLLM's paged attention and flashinfer
    /// write theirs (`vllm::Fp8KVCacheDataType kv_dt`, `PosEncodingMode POS` inside the enum's
    /// namespace): `#[kernel(enum = "...")] const kv_dt: i32`, the enum qualified as C++ finds
    /// it; a value of a type that is no enum is still named in a warning.
    #[test]
    fn enum_template_values_are_declared_by_the_enums_name() {
        let text = "# 1 \"cuda/k.cu\"\n\
            namespace vllm { enum class Fp8KVCacheDataType { kAuto = 0, kFp8E4M3 = 1 }; }\n\
            namespace flashinfer { enum class PosEncodingMode : unsigned char { kNone = 0 };\n\
            template <typename T, PosEncodingMode POS, unsigned B> __attribute__((global)) void decode(T *x) { } }\n\
            namespace vllm { template <typename scalar_t, vllm::Fp8KVCacheDataType kv_dt> __attribute__((global)) void gather(const scalar_t *x, float *y) { } }\n\
            template <typename T, Unknown U> __attribute__((global)) void unknown(T *x) { }\n\
            template <typename P> __attribute__((global)) void by_params(const __attribute__((grid_constant)) P p) { }\n";
        let entries = [
            "_ZN10flashinfer6decodeIfLNS_15PosEncodingModeE0ELj128EEEvPT_".to_string(),
            "_ZN4vllm6gatherIfLNS_18Fp8KVCacheDataTypeE1EEEvPKT_Pf".to_string(),
            "_Z7unknownIfL7Unknown0EEvPT_".to_string(),
            // flashinfer's decode kernels take their Params, a class template, by value.
            "_Z9by_paramsIN2ns6ParamsIfEEEvT_".to_string(),
        ];
        let g = generate(
            "k.cu",
            text,
            &here,
            &Options {
                entries: &entries,
                ..Options::default()
            },
        );
        assert!(
            g.rust.contains(
                "pub fn decode<T, #[kernel(enum = \"flashinfer::PosEncodingMode\")] const POS: i32, \
                 const B: u32>(x: *mut T);"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust.contains(
                "pub fn gather<scalar_t, #[kernel(enum = \"vllm::Fp8KVCacheDataType\")] const kv_dt: i32>\
                 (x: *const scalar_t, y: *mut f32);"
            ),
            "{}",
            g.rust
        );
        assert_eq!(
            g.declared,
            ["flashinfer::decode", "vllm::gather"],
            "{:?}",
            g.warnings
        );
        assert!(
            g.warnings.len() == 2
                && g.warnings[0].contains("`unknown` is not generated")
                && g.warnings[0].contains("`Unknown`")
                && g.warnings[1].contains("`by_params` is not generated")
                && g.warnings[1].contains("class templates"),
            "{:?}",
            g.warnings
        );
    }

    /// C++11's `alignas(N)` on a struct, as mistral.rs's LoRA kernels write their descriptor
    /// (`struct alignas(8) AdapterWeight`), aligns it as `__align__(N)` does; an alignment
    /// given by a type is not guessed.
    #[test]
    fn alignas_aligns_a_struct() {
        let text = "# 1 \"cuda/k.cu\"\n\
            namespace lora { struct alignas(16) Adapter { unsigned long long a; float scale; }; \
            __attribute__((global)) void apply(const Adapter *w, Adapter one, float *y) { } }\n\
            struct alignas(float4) ByType { float x; };\n\
            __attribute__((global)) void by_type(ByType t) { }\n";
        let g = generate("k.cu", text, &here, &Options::default());
        assert!(
            g.rust.contains(
                "#[kernel_param(cuda_name = \"lora::Adapter\")]\n#[repr(C, align(16))]\n\
                 #[allow(non_snake_case, non_camel_case_types)]\npub struct Adapter {\n    \
                 pub a: ::cuda_kernel::ffi::c_ulonglong,\n    pub scale: f32,\n}"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("pub fn apply(w: *const Adapter, one: Adapter, y: *mut f32);"),
            "{}",
            g.rust
        );
        assert_eq!(g.declared, ["lora::apply"], "{:?}", g.warnings);
        assert!(
            g.warnings.len() == 1 && g.warnings[0].contains("`by_type` is not generated"),
            "{:?}",
            g.warnings
        );
    }

    /// Untyped memory, as ggml's and mistral.rs's quantized kernels take their blocks
    /// (`const void * __restrict__ vx`): `*const c_void`, for C and C++ kernels alike.
    #[test]
    fn void_pointers_are_untyped_memory() {
        let text = "# 1 \"cuda/k.cu\"\n\
            extern \"C\" __attribute__((global)) void deq(const void * __restrict__ vx, float * __restrict__ y, int n) { }\n\
            __attribute__((global)) void quantize(const float *x, void *vy, void **rows) { }\n";
        let g = generate("k.cu", text, &here, &Options::default());
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        assert!(
            g.rust.contains(
                "pub fn deq(vx: *const ::cuda_kernel::ffi::c_void, y: *mut f32, n: i32);"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust.contains(
                "pub fn quantize(x: *const f32, vy: *mut ::cuda_kernel::ffi::c_void, \
                 rows: *mut *mut ::cuda_kernel::ffi::c_void);"
            ),
            "{}",
            g.rust
        );
    }

    /// A kernel in an anonymous namespace (mistral.rs's `dflash_selector.cu` keeps one there):
    /// one warning saying so, and its PTX entry, whose symbol spells the namespace with a hash
    /// of the source's path, is counted as that warning's, not named again as a kernel of a
    /// system header.
    #[test]
    fn a_kernel_in_an_anonymous_namespace_is_named_once() {
        let text = "# 1 \"cuda/k.cu\"\n\
            namespace { __attribute__((global)) void fill(float *x, int n) { } }\n\
            namespace outer { namespace { __attribute__((global)) void fill(float *x, int n) { } } }\n\
            extern \"C\" __attribute__((global)) void plain(float *x) { }\n";
        let entries = [
            "_ZN36_GLOBAL__N__a278e39b_4_k_cu_ad1a73184fillEPfi".to_string(),
            "_ZN5outer36_GLOBAL__N__a278e39b_4_k_cu_ad1a73184fillEPfi".to_string(),
            "plain".to_string(),
        ];
        let g = generate(
            "k.cu",
            text,
            &here,
            &Options {
                entries: &entries,
                ..Options::default()
            },
        );
        assert_eq!(g.declared, ["plain"], "{}", g.rust);
        assert_eq!(g.warnings.len(), 2, "{:?}", g.warnings);
        assert!(
            g.warnings[0].starts_with(
                "k.cu: `(anonymous namespace)::fill` is not generated: in an anonymous namespace"
            ),
            "{:?}",
            g.warnings
        );
        assert!(
            g.warnings[1].starts_with(
                "k.cu: `outer::(anonymous namespace)::fill` is not generated: in an anonymous"
            ),
            "{:?}",
            g.warnings
        );
        assert_eq!(
            (
                g.accounting.entries,
                g.accounting.declared,
                g.accounting.warned
            ),
            (3, 1, 2)
        );
    }

    #[test]
    fn named_families_take_the_kernels_their_pattern_matches() {
        let named = |list: &[(&str, &str)]| -> Vec<NamedFamily> {
            list.iter()
                .map(|(pattern, name)| NamedFamily {
                    pattern: pattern.to_string(),
                    name: name.to_string(),
                })
                .collect()
        };
        let run = |families: &[NamedFamily]| {
            generate(
                "k.cu",
                TEMPLATES_AND_FAMILIES,
                &|f| f == "cuda/k.cu",
                &Options {
                    families,
                    ..Options::default()
                },
            )
        };
        // A run-time part: the shape most kernels share (fill's three), the rest apart.
        let g = run(&named(&[("{op}_{T}", "any")]));
        assert!(
            g.rust.contains(
                "#[kernel(name = \"{op}_{T}\")]\n    #[allow(non_snake_case)]\n    \
                 pub fn any<T>(b: *mut T, v: T, n: ::cuda_kernel::ffi::size_t);"
            ),
            "{}",
            g.rust
        );
        assert!(
            g.rust
                .contains("/// `{op}_{T}` of k.cu: fill_u8, fill_f32, fill_f64.")
        );
        for apart in ["pub fn odd_f32(", "pub fn odd_f64(", "pub fn copy<T>("] {
            assert!(g.rust.contains(apart), "{apart}\n{}", g.rust);
        }
        assert_eq!(g.named_families, ["{op}_{T}"]);
        // Without one, every kernel it matches must fit: odd_f64 takes an int.
        let g = run(&named(&[("odd_{T}", "odd")]));
        let warning = g.warnings.iter().find(|w| w.contains("odd_{T}")).unwrap();
        assert_eq!(
            warning,
            "k.cu: the family `odd_{T}` (odd) is not generated: odd_f64 matches it with other \
             parameters (a pattern without a part chosen at run time takes every kernel it \
             matches)"
        );
        assert!(g.rust.contains("pub fn odd_f32(") && g.named_families.is_empty());
        // A pattern no kernel of the file matches says so.
        let g = run(&named(&[("scale_{T}", "scale")]));
        assert_eq!(
            g.warnings.last().map(String::as_str),
            Some("k.cu: the family `scale_{T}` (scale) matches no kernel of the file")
        );
        // A name of its own for a family found anyway.
        let g = run(&named(&[("copy_{T}", "copy_elements")]));
        assert!(
            g.rust
                .contains("pub fn copy_elements<T>(a: *const T, b: *mut T);")
        );
        assert!(g.rust.contains("pub fn fill<T>("));
    }
}
