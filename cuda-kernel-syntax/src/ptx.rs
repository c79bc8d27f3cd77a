//! Reading kernel signatures from PTX text: each `.entry` with the size and alignment of its
//! parameters.
//!
//! `#[kernel(ptx = ...)]` reads declarations' PTX with it at compile time, and the runtime
//! publishes it as `cuda_kernel::ptx`. It uses only `std`.
//!
//! ```
//! use cuda_kernel_syntax::ptx;
//! let text = ".visible .entry add(\n  .param .u64 add_param_0,\n  .param .align 16 .b8 add_param_1[16]\n)\n{\n  ret;\n}\n";
//! let entries = ptx::entries(text)?;
//! assert_eq!(entries[0].name, "add");
//! assert_eq!((entries[0].params[1].size, entries[0].params[1].align), (16, 16));
//! # Ok::<(), ptx::PtxError>(())
//! ```

use std::fmt;

/// A kernel entry point declared in PTX (`.entry name(...)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry's symbol, mangled if the kernel was not declared `extern "C"`.
    pub name: String,
    /// 1-based line of the `.entry` directive.
    pub line: usize,
    /// The parameters in declaration order.
    pub params: Vec<PtxParam>,
}

/// One `.param` of an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxParam {
    /// The parameter's name in the PTX (`vector_add_param_0`).
    pub name: String,
    /// Its PTX type: `.u32`, `.f64`, `.b8`, ...
    pub ty: String,
    /// Number of elements for `name[N]`, `None` for a scalar.
    pub array_len: Option<usize>,
    /// Size in bytes.
    pub size: usize,
    /// Alignment in bytes: the `.align` given, or the element size.
    pub align: usize,
    /// For `.ptr` parameters, the pointee's alignment from `.ptr .align N` (not the
    /// parameter's own alignment, which is that of a 64-bit address).
    pub pointee_align: Option<usize>,
    /// 1-based line of the declaration.
    pub line: usize,
}

impl PtxParam {
    /// How the parameter reads in PTX: `.u32`, `.align 16 .b8 [16]`.
    pub fn describe(&self) -> String {
        match self.array_len {
            Some(n) => format!(".align {} {} [{n}]", self.align, self.ty),
            None => self.ty.clone(),
        }
    }

    /// Whether the PTX type is a floating-point scalar (`.f16`, `.f32`, `.f64`, `.bf16`).
    pub fn is_float(&self) -> bool {
        self.array_len.is_none() && (self.ty.starts_with(".f") || self.ty == ".bf16")
    }

    /// Whether the PTX type is an integer scalar (`.u32`, `.s64`, ...).
    pub fn is_integer(&self) -> bool {
        self.array_len.is_none() && (self.ty.starts_with(".u") || self.ty.starts_with(".s"))
    }
}

/// PTX that could not be read, with the line where reading stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong there.
    pub message: String,
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PtxError {}

/// Every `.entry` of a PTX module, in order, with its parameters.
///
/// Understands comments, `.visible`/`.weak`/`.extern` linkage, declarations spread over lines,
/// `.ptr` qualifiers on pointer parameters, `.align` and arrays. Device functions (`.func`) are
/// skipped. Malformed declarations are an error naming the line, never a panic.
pub fn entries(ptx: &str) -> Result<Vec<Entry>, PtxError> {
    entries_of(&tokenize(ptx)?)
}

/// A module's [`entries`] and [`globals`], from one reading of its text.
pub fn entries_and_globals(ptx: &str) -> Result<(Vec<Entry>, Vec<Global>), PtxError> {
    let tokens = tokenize(ptx)?;
    Ok((entries_of(&tokens)?, globals_of(&tokens)?))
}

fn entries_of(tokens: &[Token<'_>]) -> Result<Vec<Entry>, PtxError> {
    let mut entries = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].text == ".entry" {
            let (entry, next) = parse_entry(tokens, i)?;
            entries.push(entry);
            i = next;
        } else {
            i += 1;
        }
    }
    Ok(entries)
}

/// A variable at module scope: `__constant__` (`.const`) or `__device__` (`.global`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    /// Its symbol.
    pub name: String,
    /// `.const` or `.global`.
    pub space: String,
    /// Its PTX type: `.u32`, `.b8`, ...
    pub ty: String,
    /// Elements for `name[N]`, `None` for a scalar.
    pub array_len: Option<usize>,
    /// Size in bytes.
    pub size: usize,
    /// Alignment in bytes: the `.align` given, or the element size.
    pub align: usize,
    /// 1-based line of the declaration.
    pub line: usize,
}

/// Every `.const` and `.global` variable declared at module scope, in order (shared memory and
/// variables inside functions are not globals a host can reach).
///
/// ```
/// use cuda_kernel_syntax::ptx;
/// let text = ".const .align 4 .b8 coeffs[64];\n.global .align 4 .u32 calls;\n";
/// let globals = ptx::globals(text)?;
/// assert_eq!((globals[0].name.as_str(), globals[0].size), ("coeffs", 64));
/// assert_eq!((globals[1].space.as_str(), globals[1].size, globals[1].align), (".global", 4, 4));
/// # Ok::<(), ptx::PtxError>(())
/// ```
pub fn globals(ptx: &str) -> Result<Vec<Global>, PtxError> {
    globals_of(&tokenize(ptx)?)
}

fn globals_of(tokens: &[Token<'_>]) -> Result<Vec<Global>, PtxError> {
    let mut globals = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].text {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            space @ (".const" | ".global") if depth == 0 => {
                let (global, next) = parse_global(tokens, i, space)?;
                globals.push(global);
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(globals)
}

/// `.const [.align N] .type name[[N]] ...;`: the variable and the index after its name.
fn parse_global(tokens: &[Token<'_>], at: usize, space: &str) -> Result<(Global, usize), PtxError> {
    let line = tokens[at].line;
    let mut i = at + 1;
    let mut align = None;
    if tokens.get(i).is_some_and(|t| t.text == ".align") {
        align = Some(parse_number(tokens.get(i + 1), line, ".align")?);
        i += 2;
    }
    let Some(ty) = tokens.get(i).map(|t| t.text) else {
        return error(line, format!("expected a type after {space}"));
    };
    let Some(element) = scalar_size(ty) else {
        return error(line, format!("unknown type {ty} of a {space} variable"));
    };
    let Some(name) = tokens.get(i + 1).filter(|t| is_identifier(t.text)) else {
        return error(line, format!("expected the {space} variable's name"));
    };
    i += 2;
    let mut array_len = None;
    if tokens.get(i).is_some_and(|t| t.text == "[") {
        if tokens.get(i + 1).is_some_and(|t| t.text == "]") {
            array_len = Some(0);
            i += 2;
        } else {
            array_len = Some(parse_number(tokens.get(i + 1), line, "an array length")?);
            i += 3;
        }
    }
    Ok((
        Global {
            name: name.text.to_string(),
            space: space.to_string(),
            ty: ty.to_string(),
            array_len,
            size: element * array_len.unwrap_or(1),
            align: align.unwrap_or(element),
            line,
        },
        i,
    ))
}

/// The entry called `name`, if the PTX has it.
pub fn find<'a>(entries: &'a [Entry], name: &str) -> Option<&'a Entry> {
    entries.iter().find(|e| e.name == name).or_else(|| {
        // A `static` kernel under separate compilation (`-rdc=true`): its symbol behind
        // `__nv_static_<length>_<part>_`.
        entries.iter().find(|e| {
            crate::itanium::nv_static_prefix_len(&e.name).is_some_and(|len| e.name[len..] == *name)
        })
    })
}

/// Entries whose Itanium-mangled name is that of a C++ function called `name`
/// (`_Z5scaleIfEvPT_S0_j` for `scale`): what a kernel not declared `extern "C"` is called.
pub fn mangled_matches<'a>(entries: &'a [Entry], name: &str) -> Vec<&'a Entry> {
    let prefix = format!("_Z{}{}", name.len(), name);
    entries
        .iter()
        .filter(|e| {
            e.name.strip_prefix(&prefix).is_some_and(|rest| {
                // The next character starts the template arguments or the parameter types,
                // never more of an identifier's length (which would be a longer name).
                !rest.starts_with(|c: char| c.is_ascii_digit())
            })
        })
        .collect()
}

#[derive(Debug)]
struct Token<'a> {
    text: &'a str,
    line: usize,
}

/// Splits PTX into tokens: directives and identifiers, numbers, and single punctuation
/// characters; comments dropped, string literals kept whole.
fn tokenize(ptx: &str) -> Result<Vec<Token<'_>>, PtxError> {
    let bytes = ptx.as_bytes();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            _ if c.is_ascii_whitespace() => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start_line = line;
                i += 2;
                loop {
                    match bytes.get(i) {
                        None => {
                            return Err(PtxError {
                                line: start_line,
                                message: "unterminated /* comment".into(),
                            });
                        }
                        Some(b'*') if bytes.get(i + 1) == Some(&b'/') => {
                            i += 2;
                            break;
                        }
                        Some(b'\n') => {
                            line += 1;
                            i += 1;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += 1;
                }
                i = (i + 1).min(bytes.len());
                tokens.push(Token {
                    text: &ptx[start..i],
                    line,
                });
            }
            _ if is_word(c) => {
                let start = i;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                tokens.push(Token {
                    text: &ptx[start..i],
                    line,
                });
            }
            _ => {
                // One character, on a char boundary even for non-ASCII text.
                let len = ptx[i..].chars().next().map_or(1, char::len_utf8);
                tokens.push(Token {
                    text: &ptx[i..i + len],
                    line,
                });
                i += len;
            }
        }
    }
    Ok(tokens)
}

/// Characters of PTX identifiers, directives and numbers.
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

fn error<T>(line: usize, message: impl Into<String>) -> Result<T, PtxError> {
    Err(PtxError {
        line,
        message: message.into(),
    })
}

/// `.entry name ( params ) ...`: the entry and the index after its closing parenthesis.
fn parse_entry(tokens: &[Token<'_>], at: usize) -> Result<(Entry, usize), PtxError> {
    let line = tokens[at].line;
    let Some(name) = tokens.get(at + 1).filter(|t| is_identifier(t.text)) else {
        return error(line, "expected the entry's name after .entry");
    };
    let mut i = at + 2;
    let mut params = Vec::new();
    if tokens.get(i).is_some_and(|t| t.text == "(") {
        i += 1;
        if tokens.get(i).is_some_and(|t| t.text == ")") {
            i += 1;
        } else {
            loop {
                let (param, next) = parse_param(tokens, i, line)?;
                params.push(param);
                match tokens.get(next).map(|t| t.text) {
                    Some(",") => i = next + 1,
                    Some(")") => {
                        i = next + 1;
                        break;
                    }
                    _ => {
                        let at_line = tokens
                            .get(next)
                            .map_or(param_line(tokens, next), |t| t.line);
                        return error(
                            at_line,
                            format!(
                                "expected `,` or `)` after parameter `{}` of entry `{}`",
                                params.last().map_or("", |p: &PtxParam| &p.name),
                                name.text
                            ),
                        );
                    }
                }
            }
        }
    }
    Ok((
        Entry {
            name: name.text.to_string(),
            line,
            params,
        },
        i,
    ))
}

fn param_line(tokens: &[Token<'_>], at: usize) -> usize {
    tokens.get(at.saturating_sub(1)).map_or(1, |t| t.line)
}

/// `.param [.align N] .type [.ptr [.space] [.align N]] name [ '[' N ']' ]`
fn parse_param(
    tokens: &[Token<'_>],
    at: usize,
    entry_line: usize,
) -> Result<(PtxParam, usize), PtxError> {
    let mut i = at;
    let line = tokens.get(i).map_or(entry_line, |t| t.line);
    if tokens.get(i).map(|t| t.text) != Some(".param") {
        return error(line, "expected `.param` in the entry's parameter list");
    }
    i += 1;
    let mut align = None;
    let mut ty: Option<(&str, usize)> = None;
    let mut is_ptr = false;
    let mut pointee_align = None;
    loop {
        let Some(token) = tokens.get(i) else {
            return error(line, "parameter list ends early");
        };
        match token.text {
            ".align" => {
                let value = parse_number(tokens.get(i + 1), line, ".align")?;
                if !value.is_power_of_two() {
                    return error(line, format!(".align {value} is not a power of two"));
                }
                if is_ptr {
                    pointee_align = Some(value);
                } else {
                    align = Some(value);
                }
                i += 2;
            }
            ".ptr" => {
                is_ptr = true;
                i += 1;
            }
            ".global" | ".const" | ".shared" | ".local" => i += 1,
            text if text.starts_with('.') => match scalar_size(text) {
                Some(size) if ty.is_none() => {
                    ty = Some((text, size));
                    i += 1;
                }
                Some(_) => return error(line, format!("second type {text} in one parameter")),
                None => return error(line, format!("unknown parameter type or qualifier {text}")),
            },
            _ => break,
        }
    }
    let Some((ty, elem_size)) = ty else {
        return error(line, "parameter without a type");
    };
    let Some(name) = tokens.get(i).filter(|t| is_identifier(t.text)) else {
        return error(line, "expected the parameter's name");
    };
    i += 1;
    let mut array_len = None;
    if tokens.get(i).is_some_and(|t| t.text == "[") {
        let len = parse_number(tokens.get(i + 1), line, "the array length")?;
        if tokens.get(i + 2).map(|t| t.text) != Some("]") {
            return error(line, "expected `]` after the array length");
        }
        array_len = Some(len);
        i += 3;
    }
    let size = elem_size * array_len.unwrap_or(1);
    Ok((
        PtxParam {
            name: name.text.to_string(),
            ty: ty.to_string(),
            array_len,
            size,
            align: align.unwrap_or(elem_size),
            pointee_align,
            line,
        },
        i,
    ))
}

fn parse_number(token: Option<&Token<'_>>, line: usize, what: &str) -> Result<usize, PtxError> {
    match token.map(|t| t.text.parse::<usize>()) {
        Some(Ok(n)) if n > 0 => Ok(n),
        _ => error(line, format!("expected a positive number for {what}")),
    }
}

fn is_identifier(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '%')
}

/// Size in bytes of a PTX fundamental type, `None` if `text` is not one.
fn scalar_size(text: &str) -> Option<usize> {
    Some(match text {
        ".b8" | ".u8" | ".s8" => 1,
        ".b16" | ".u16" | ".s16" | ".f16" | ".bf16" => 2,
        ".b32" | ".u32" | ".s32" | ".f32" | ".f16x2" | ".bf16x2" => 4,
        ".b64" | ".u64" | ".s64" | ".f64" => 8,
        ".b128" => 16,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ECHO: &str = include_str!("../../kernels/ptx/echo.ptx");
    const CXX: &str = include_str!("../../kernels/ptx/cxx_fixtures.ptx");
    const VECTOR_ADD: &str = include_str!("../../kernels/ptx/vector_add.ptx");

    fn shape(entry: &Entry) -> Vec<(usize, usize)> {
        entry.params.iter().map(|p| (p.size, p.align)).collect()
    }

    #[test]
    fn reads_nvcc_output_for_the_guide_example() {
        let entries = entries(ECHO).unwrap();
        let guide = find(&entries, "echo_guide").unwrap();
        assert_eq!(
            shape(guide),
            [
                (4, 4),
                (16, 16),
                (1, 1),
                (4, 4),
                (8, 8),
                (8, 8),
                (8, 8),
                (2, 2),
                (16, 16),
                (8, 8)
            ]
        );
        assert_eq!(guide.params[1].describe(), ".align 16 .b8 [16]");
        assert_eq!(guide.params[0].ty, ".u32");
        assert_eq!(guide.params[3].ty, ".f32");
        assert!(guide.params[3].is_float() && guide.params[0].is_integer());
        assert_eq!(find(&entries, "echo_scalars").unwrap().params.len(), 32);
    }

    #[test]
    fn reads_several_entries_and_mangled_names() {
        let entries = entries(CXX).unwrap();
        let names: Vec<_> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "_Z5scaleIfEvPT_S0_j",
                "_Z5scaleIdEvPT_S0_j",
                "_Z5saxpyPKfPffi",
                "takes_struct"
            ]
        );
        assert_eq!(shape(&entries[1]), [(8, 8), (8, 8), (4, 4)]);
        assert_eq!(shape(&entries[3]), [(16, 8), (16, 16), (8, 8)]);
        let scale: Vec<_> = mangled_matches(&entries, "scale")
            .iter()
            .map(|e| &e.name)
            .collect();
        assert_eq!(scale, ["_Z5scaleIfEvPT_S0_j", "_Z5scaleIdEvPT_S0_j"]);
        assert!(mangled_matches(&entries, "scal").is_empty());
        assert_eq!(mangled_matches(&entries, "saxpy").len(), 1);
    }

    #[test]
    fn vector_add_module_has_its_three_kernels() {
        let entries = entries(VECTOR_ADD).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(
            shape(find(&entries, "vector_add").unwrap()),
            [(8, 8), (8, 8), (8, 8), (4, 4)]
        );
        assert_eq!(find(&entries, "vector_add").unwrap().line, 16);
    }

    #[test]
    fn pointer_alignment_belongs_to_the_pointee() {
        let text = "\
            .weak .entry k( // a comment\n\
              .param .u64 .ptr .global .align 16 k_param_0, /* block\n comment */\n\
              .param .u64 .ptr .align 4 k_param_1,\n\
              .param .b32 k_param_2[3]\n\
            ) .maxntid 256, 1, 1\n\
            { ret; }\n\
            .extern .func (.param .b32 r) helper(.param .b32 x);\n\
            .visible .entry empty()\n{ ret; }\n";
        let entries = entries(text).unwrap();
        assert_eq!(entries.len(), 2);
        let k = &entries[0];
        assert_eq!(shape(k), [(8, 8), (8, 8), (12, 4)]);
        assert_eq!(k.params[0].pointee_align, Some(16));
        assert_eq!(k.params[1].pointee_align, Some(4));
        assert_eq!(k.params[0].line, 2);
        assert_eq!(k.params[1].line, 4, "after a comment over two lines");
        assert_eq!(k.params[2].line, 5);
        assert_eq!(entries[1].name, "empty");
        assert!(entries[1].params.is_empty());
    }

    #[test]
    fn malformed_ptx_is_an_error_naming_the_line() {
        let cases = [
            (
                ".entry k(\n .param .u33 x\n)",
                2,
                "unknown parameter type or qualifier .u33",
            ),
            (
                ".entry k(\n .param .u32 x\n .param .u32 y)",
                3,
                "expected `,` or `)`",
            ),
            (
                ".entry k(\n .param .align 3 .b8 x[4])",
                2,
                "not a power of two",
            ),
            (".entry k(\n .param .align 4 .b8 x[4)", 2, "expected `]`"),
            ("\n\n.entry (", 3, "expected the entry's name"),
            (".entry k(\n .param .u32", 2, "parameter list ends early"),
            ("/* never closed\n.entry k()", 1, "unterminated /* comment"),
            (".entry k(.param x)", 1, "parameter without a type"),
            (".entry k(.param .u32 .u64 x)", 1, "second type"),
        ];
        for (text, line, message) in cases {
            let e = entries(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(message), "{text:?}: {e}");
        }
    }

    #[test]
    fn arbitrary_text_never_panics() {
        // Every prefix of real PTX, and some noise: errors are fine, panics are not.
        for end in (0..ECHO.len()).step_by(7) {
            if ECHO.is_char_boundary(end) {
                let _ = entries(&ECHO[..end]);
            }
        }
        for text in [
            "",
            ".entry",
            "(((",
            ".entry k(.param",
            "é.entry ü(",
            "\"unterminated",
        ] {
            let _ = entries(text);
        }
    }
}
