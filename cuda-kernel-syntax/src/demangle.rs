//! C++ symbols read back: PTX entries shown as people write them, and a mangled `name = "..."`
//! compared with its declaration.
//!
//! ```
//! use cuda_kernel_syntax::demangle;
//! assert_eq!(
//!     demangle::demangle("_Z7reduce0IiEvPT_S1_j").unwrap(),
//!     "reduce0<int>(int*, int*, unsigned int)"
//! );
//! assert_eq!(
//!     demangle::param_types("_Z5saxpyPKfPffi").unwrap(),
//!     ["float const*", "float*", "float", "int"]
//! );
//! ```

/// The symbol as C++ writes the function (without a template's `void` return type), or `None`
/// for a name that is not an Itanium symbol.
pub fn demangle(symbol: &str) -> Option<String> {
    if !symbol.starts_with("_Z") {
        return None;
    }
    // `Display` panics on some malformed symbols; `demangle` reports them as an error.
    let text = cpp_demangle::Symbol::new(symbol)
        .ok()?
        .demangle(&cpp_demangle::DemangleOptions::default())
        .ok()?;
    // An empty pack is written `f<>(float*, )`: without the dangling comma.
    let text = text.replace(", )", ")");
    Some(text.strip_prefix("void ").unwrap_or(&text).to_string())
}

/// `symbol` for messages: `name` alone, or `reduce0<int>(int*, int*, unsigned int)` for a C++
/// symbol.
pub fn shown(symbol: &str) -> String {
    demangle(symbol).map_or_else(|| symbol.to_string(), |text| for_messages(&text))
}

/// C++ as a demangler writes it, as a user reads it in a message: a TMA descriptor by the
/// typedef `cuda.h` gives it, `CUtensorMap`, not its struct's name `CUtensorMap_st`.
pub fn for_messages(text: &str) -> String {
    text.replace("CUtensorMap_st", "CUtensorMap")
}

/// The parameter types of a C++ symbol read back as C++ types; `None` where one is not a type
/// the model knows.
pub fn param_cpp_types(symbol: &str) -> Option<Vec<crate::cpp::CppType>> {
    param_types(symbol)?
        .iter()
        .map(|t| crate::cpp::CppType::from_cpp(t))
        .collect()
}

/// The parameter types of a C++ symbol, as the demangler writes them (`float const*`).
pub fn param_types(symbol: &str) -> Option<Vec<String>> {
    let text = demangle(symbol)?;
    let open = text.rfind('(')?;
    let inner = text[open + 1..].strip_suffix(')')?;
    // An empty pack leaves an empty item (`pack<>(float*, )`).
    let mut types = crate::cpp::split_list(inner);
    types.retain(|t| !t.is_empty());
    Some(types)
}

/// The template arguments of a C++ symbol, as the demangler writes them (`float`,
/// `(unsigned int)128`); `None` for a symbol that is no template instance.
///
/// ```
/// use cuda_kernel_syntax::demangle;
/// assert_eq!(
///     demangle::template_args("_Z11strided_sumIfLj128EEvPKT_PS0_j").unwrap(),
///     ["float", "(unsigned int)128"]
/// );
/// ```
pub fn template_args(symbol: &str) -> Option<Vec<String>> {
    let text = demangle(symbol)?;
    let open = text.find('<')?;
    // The `>` closing the list: the first at depth 0 after `<`.
    let mut depth = 0i32;
    let close = text[open + 1..].char_indices().find_map(|(i, c)| {
        match c {
            '<' | '(' => depth += 1,
            ')' => depth -= 1,
            '>' if depth == 0 => return Some(open + 1 + i),
            '>' => depth -= 1,
            _ => {}
        }
        None
    })?;
    Some(crate::cpp::split_list(&text[open + 1..close]))
}

/// The function a C++ symbol names, qualified, without template arguments or parameters:
/// `ns::scale` of `ns::scale<128>(float*, float, unsigned int)`; `None` for a name that is no
/// Itanium symbol (an `extern "C"` kernel's).
///
/// ```
/// use cuda_kernel_syntax::demangle;
/// assert_eq!(demangle::function_name("_ZN2ns5scaleILi128EEEvPffj").unwrap(), "ns::scale");
/// assert_eq!(demangle::function_name("_Z5saxpyPKfPffi").unwrap(), "saxpy");
/// assert_eq!(demangle::function_name("vector_add"), None);
/// // An anonymous namespace is a segment of the name, spelled as the demangler spells it.
/// assert_eq!(
///     demangle::function_name("_ZN12_GLOBAL__N_14fillEPfi").unwrap(),
///     "(anonymous namespace)::fill"
/// );
/// ```
pub fn function_name(symbol: &str) -> Option<String> {
    let text = demangle(symbol)?;
    let mut depth = 0i32;
    let mut chars = text.char_indices();
    let mut end = text.len();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' if depth == 0 && text[i..].starts_with(ANONYMOUS_NAMESPACE) => {
                // Skip to the segment's closing parenthesis: part of the name.
                chars.nth(ANONYMOUS_NAMESPACE.len() - 2);
            }
            '<' | '(' if depth == 0 => {
                end = i;
                break;
            }
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            _ => {}
        }
    }
    Some(text[..end].to_string())
}

/// How a demangled name spells a segment that is an anonymous namespace.
pub const ANONYMOUS_NAMESPACE: &str = "(anonymous namespace)";
