//! C++ types and template parameters as a Rust declaration writes them: the table's types,
//! pointers, the file's structs and enums, values and variadic instances.

use cuda_kernel_syntax::types;

use crate::naming;

use super::*;

/// Type words that are never a parameter's name.
pub(super) const TYPE_WORDS: &[&str] = &[
    "const", "volatile", "unsigned", "signed", "int", "long", "short", "char", "float", "double",
    "bool", "void",
];

/// One parameter as Rust declares it: name and type, or why it cannot be.
pub(super) fn param(
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
pub(super) fn rust_type(
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
            // An anonymous namespace's segment as its structs are named.
            let name = qualified(Some(&segments.join("::")), spelled);
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

/// A template head's parameter as Rust declares it: `T`, or `const N: u32`.
pub(super) fn template_param(
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
pub(super) fn is_pack(tokens: &[Token]) -> bool {
    tokens
        .windows(3)
        .any(|w| w.iter().all(|t| matches!(t, Token::Punct('.'))))
}

/// The parameters of an instance of a variadic template, read from its symbol: each type as the
/// table or the file's structs name it, named as the C++ declaration does (a pack's as the
/// pack, numbered: `args0`, `args1`).
pub(super) fn pack_instance(
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
    // A type of an anonymous namespace, under a name the C++ model spells.
    const IN_ANONYMOUS: &str = "__anonymous_namespace::";
    let anonymous = format!("{}::", cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE);
    let spelled: Vec<(String, String)> = structs
        .iter()
        .map(|(c, r)| (c.replace(&anonymous, IN_ANONYMOUS), r.clone()))
        .collect();
    pub(super) fn rust_of_inner(ty: &CppType, structs: &[(String, String)]) -> Option<String> {
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
    let names = instance_names(kernel, types.len())?;
    let mut taken = Vec::new();
    types
        .iter()
        .enumerate()
        .map(|(i, text)| {
            // A `volatile` pointee is a pointer like any other to a launch; a type of an
            // anonymous namespace is read under a name the C++ model spells.
            let ty = CppType::from_cpp(
                &text
                    .replace(" volatile", "")
                    .replace(&anonymous, IN_ANONYMOUS),
            )
            .and_then(|t| rust_of_inner(&t, &spelled))
            .ok_or_else(|| format!("takes `{text}`, which this generator does not name in Rust"))?;
            let name = names[i].clone();
            Ok((naming::param(&name, &mut taken), ty))
        })
        .collect()
}

/// The names of an instance's `count` parameters, from its template's declaration: those
/// before the pack, the pack's numbered (`xs0`, `xs1`), those after it; not yet Rust names.
pub(super) fn instance_names(kernel: &Found, count: usize) -> Result<Vec<String>, String> {
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
    if count < before + after {
        return Err("has fewer parameters than the declaration".to_string());
    }
    Ok((0..count)
        .map(|i| {
            if i < before {
                names[i].clone()
            } else if i >= count - after {
                names[kernel.params.len() - (count - i)].clone()
            } else {
                format!(
                    "{}{}",
                    pack.map_or("arg", |at| names[at].as_str()),
                    i - before
                )
            }
        })
        .collect())
}

/// A template head's parameter as the generated declaration writes it (`T`, `const N: u32`),
/// and for a type parameter its C++ name and its Rust one (`type` and `r#type`).
pub(super) struct TemplateParam {
    pub(super) text: String,
    pub(super) type_param: Option<(String, String)>,
}

/// The enum a template head names as `word` (`Kind`, `vllm::Kind`, `::Kind`) from within
/// `namespace`, looked up as C++ does: in the namespace, then in each enclosing one.
pub(super) fn enum_named(word: &str, enums: &[String], namespace: Option<&str>) -> Option<String> {
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

/// The size and alignment of a Rust type the generator writes (`*const f32`, `[u32; 16]`,
/// `::cuda_kernel::Uint4`), where the table or C knows them; `None` for a struct's.
pub(super) fn rust_layout(ty: &str) -> Option<(usize, usize)> {
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
pub(super) fn mentions(text: &str, word: &str) -> bool {
    if word.contains("::") {
        return text.match_indices(word).any(|(at, _)| {
            !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
        });
    }
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '#'))
        .any(|w| w == word)
}
