//! Reading C++: the preprocessed text as tokens, and what the compiler's facts do not carry:
//! the kernels' definitions with their template heads (the names of a template's parameters)
//! and `__grid_constant__`, and the namespaces of the structs.

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
    pub(super) namespace: Option<String>,
    /// The template head's parameters, for a function template.
    pub(super) template: Option<Vec<Vec<Token>>>,
    pub(super) params: Vec<Vec<Token>>,
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

/// What the scanner found: what the compiler's facts do not carry.
#[derive(Default)]
pub(super) struct Scanned {
    /// The kernels the code base defines (not the toolkit's), with their template heads.
    pub(super) kernels: Vec<Found>,
    /// The qualified names of the structs, unions and classes defined at namespace level.
    pub(super) structs: Vec<String>,
}

/// The kernels and struct names of `text`: the kernels defined by files `from_here` accepts.
pub(super) fn scan(text: &str, from_here: &dyn Fn(&str) -> bool) -> Scanned {
    let tokens = tokenize(text);
    let mut found: Vec<Found> = Vec::new();
    let mut structs: Vec<String> = Vec::new();
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
                if (t == "struct" || t == "union" || t == "class")
                    && !blocks.contains(&Block::Other) =>
            {
                // `struct [attributes] NAME [attributes] [: bases] {`: its qualified name, which
                // the device's debug information leaves out of a record's (`shape_t` for
                // `wp::shape_t`).
                let mut j = i + 1;
                while is_ident(tokens.get(j), "__attribute__") || is_ident(tokens.get(j), "alignas")
                {
                    j = skip_group(&tokens, j + 1, '(', ')');
                }
                if let Some(Token::Ident(name)) = tokens.get(j) {
                    let named = qualified(namespace_of(&blocks).as_deref(), name);
                    let body = (j + 1..tokens.len().min(j + 64))
                        .find(|&k| matches!(tokens[k], Token::Punct('{' | ';' | '(' | ')')))
                        .is_some_and(|k| is_punct(tokens.get(k), '{'));
                    if body && !structs.contains(&named) {
                        structs.push(named);
                    }
                }
                i = j.max(i + 1);
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
                    // A toolkit header's (CUB's): the facts' files tell them apart.
                    continue;
                }
                // A template head before it.
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
                        namespace,
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
        structs,
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
