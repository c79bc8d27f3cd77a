//! Writing the file's structs as `#[derive(KernelParam)]` structs, in the modules of their
//! namespaces.

use std::fmt::Write as _;

use crate::naming::ident as rust_name;

use super::*;

/// A struct of the file as a `#[derive(KernelParam)]` Rust struct, and the file's structs its
/// fields hold.
pub(super) fn struct_item(
    def: &StructDef,
    rust: &str,
    typedefs: &[(String, Vec<Token>)],
    structs: &[(String, String)],
    source: &str,
) -> Result<(String, Vec<String>), String> {
    if def.bases {
        return Err("it has base classes".to_string());
    }
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
        true => format!(
            "#[kernel_param(cuda_name = \"{}\")]\n",
            super::spelled_cuda_name(&def.qualified())
        ),
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
pub(super) const MODULE_MARK: &str = "// in module ";

/// The structs' items, those of a module (see [`MODULE_MARK`]) written in one `pub mod`.
pub(super) fn struct_text(items: &[&str]) -> String {
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
            "/// Structs of the file whose names other items have.\n\
             #[allow(non_snake_case)]\npub mod {scope} {{\n\
             #[allow(unused_imports)]\nuse super::*;\n{body}}}\n"
        );
    }
    plain
}
