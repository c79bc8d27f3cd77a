//! Reading C++: the preprocessed text as tokens, and what the generator declares from it:
//! kernel definitions, their namespaces and template heads, structs, enums, typedefs and the
//! constant expressions of array lengths.

use super::*;

/// A token of preprocessed C++.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Token {
    Ident(String),
    Punct(char),
    Literal(String),
    /// `# 12 "file"`: the text after it comes from `file`.
    Line(String),
}

pub(super) fn tokenize(text: &str) -> Vec<Token> {
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

pub(super) fn is_ident(token: Option<&Token>, name: &str) -> bool {
    matches!(token, Some(Token::Ident(i)) if i == name)
}

pub(super) fn is_punct(token: Option<&Token>, c: char) -> bool {
    matches!(token, Some(Token::Punct(p)) if *p == c)
}

/// The index just past the bracket closing the one at `open`.
pub(super) fn skip_group(tokens: &[Token], open: usize, left: char, right: char) -> usize {
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
pub(super) enum Block {
    ExternC,
    Namespace(String),
    Other,
}

/// A kernel definition found in the text.
#[derive(Clone, Debug)]
pub(super) struct Found {
    pub(super) name: String,
    pub(super) extern_c: bool,
    pub(super) namespace: Option<String>,
    /// The file that defines it, as the line markers name it.
    pub(super) file: String,
    /// The template head's parameters, for a function template.
    pub(super) template: Option<Vec<Vec<Token>>>,
    pub(super) params: Vec<Vec<Token>>,
}

/// The kernels defined in `text` by files `from_here` accepts, and the typedefs seen.
/// A struct defined at namespace level: its name, `aligned(N)` if given, its fields' tokens,
/// and whether the file itself defines it.
#[derive(Clone, Debug)]
pub(super) struct StructDef {
    pub(super) name: String,
    /// The enclosing namespaces (`ns::shapes`), if any.
    pub(super) namespace: Option<String>,
    pub(super) align: Option<String>,
    pub(super) fields: Vec<Token>,
    pub(super) here: bool,
    /// A `union`: its members overlap.
    pub(super) union: bool,
    /// It derives from base classes (`struct Derived : Base`).
    pub(super) bases: bool,
}

impl StructDef {
    /// Its name as C++ qualifies it (`ns::shapes::Interval`).
    pub(super) fn qualified(&self) -> String {
        qualified(self.namespace.as_deref(), &self.name)
    }
}

/// `name` in `namespace`, as C++ qualifies it (`ns::inner::fill`) and the demangler spells it
/// (an anonymous namespace's empty segment as `(anonymous namespace)`), so that the PTX's
/// entries find it.
pub(super) fn qualified(namespace: Option<&str>, name: &str) -> String {
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
pub(super) fn namespace_of(blocks: &[Block]) -> Option<String> {
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
pub(super) fn class_opened(tokens: &[Token], open: usize) -> Option<String> {
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
pub(super) const TOOLKIT_NAMESPACES: &[&str] = &["cub", "thrust", "cuda", "cooperative_groups"];

/// What the scanner found.
#[derive(Default)]
pub(super) struct Scanned {
    pub(super) kernels: Vec<Found>,
    pub(super) typedefs: Vec<(String, Vec<Token>)>,
    pub(super) structs: Vec<StructDef>,
    /// The enums declared at namespace level, by their qualified C++ names (`vllm::Kind`).
    pub(super) enums: Vec<String>,
    /// Kernels defined by headers outside the file and its local headers (the toolkit's).
    pub(super) toolkit: Vec<String>,
    /// The enums with what a by-value parameter of one needs.
    pub(super) enum_defs: Vec<EnumDef>,
}

/// An enum defined at namespace level.
#[derive(Clone, Debug)]
pub(super) struct EnumDef {
    pub(super) name: String,
    pub(super) namespace: Option<String>,
    /// Its base type's words (`uint8_t`), empty for `int`.
    pub(super) base: Vec<String>,
    /// Its enumerators with their values, `None` from the first whose value is an expression
    /// this generator does not compute.
    pub(super) enumerators: Vec<(String, Option<i128>)>,
    pub(super) here: bool,
}

/// The enumerators of an enum's body, each with its value where it is a literal or follows
/// one.
pub(super) fn enumerators(body: &[Token]) -> Vec<(String, Option<i128>)> {
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
pub(super) fn integer_literal(text: &str) -> Option<i128> {
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

pub(super) fn scan(text: &str, from_here: &dyn Fn(&str) -> bool) -> Scanned {
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
                // `struct Derived : Base {`: read as a struct with base classes, which hides
                // any struct of its name in an enclosing namespace (the compiler's facts lay
                // it out).
                let mut bases = false;
                if is_punct(tokens.get(j), ':') {
                    bases = true;
                    while j < tokens.len() && !matches!(tokens[j], Token::Punct('{' | ';')) {
                        j += 1;
                    }
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
                    bases,
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
                    // One of an anonymous namespace is no template value parameter's type (its
                    // symbol holds a hash), but a parameter's, of a kernel bound by C++ name.
                    let anonymous =
                        named.contains(cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE);
                    if !enum_defs
                        .iter()
                        .any(|d| qualified(d.namespace.as_deref(), &d.name) == named)
                    {
                        if !anonymous {
                            enums.push(named);
                        }
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
                                bases: false,
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
pub(super) fn split_params(tokens: &[Token]) -> Vec<Vec<Token>> {
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
pub(super) fn without_initializer(tokens: &[Token]) -> &[Token] {
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

/// The value of a constant expression of an array length: integers, `+ - * / %`, parentheses
/// and `sizeof` of a built-in C type (`64 / sizeof(uint32_t)`); `None` for anything else.
pub(super) fn constant(tokens: &[Token], typedefs: &[(String, Vec<Token>)]) -> Option<i128> {
    pub(super) fn sum(
        t: &[Token],
        at: &mut usize,
        typedefs: &[(String, Vec<Token>)],
    ) -> Option<i128> {
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
    pub(super) fn product(
        t: &[Token],
        at: &mut usize,
        typedefs: &[(String, Vec<Token>)],
    ) -> Option<i128> {
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
    pub(super) fn atom(
        t: &[Token],
        at: &mut usize,
        typedefs: &[(String, Vec<Token>)],
    ) -> Option<i128> {
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
