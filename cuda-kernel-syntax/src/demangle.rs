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

use crate::itanium::{self, CppType};

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
    Some(text.strip_prefix("void ").unwrap_or(&text).to_string())
}

/// `symbol` for messages: `name` alone, or `reduce0<int>(int*, int*, unsigned int)` for a C++
/// symbol.
pub fn shown(symbol: &str) -> String {
    demangle(symbol).unwrap_or_else(|| symbol.to_string())
}

/// The parameter types of a C++ symbol, as the demangler writes them (`float const*`).
pub fn param_types(symbol: &str) -> Option<Vec<String>> {
    let text = demangle(symbol)?;
    let open = text.rfind('(')?;
    let inner = text[open + 1..].strip_suffix(')')?;
    if inner.is_empty() {
        return Some(Vec::new());
    }
    let mut params = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                params.push(inner[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    params.push(inner[start..].trim().to_string());
    Some(params)
}

/// How the demangler writes `ty` (`float const*`), to compare with [`param_types`].
pub fn spelled(ty: &CppType) -> String {
    match ty {
        CppType::Builtin(code) => itanium::fundamental_name(code).to_string(),
        CppType::Named(name) => name.clone(),
        CppType::Param(i) => format!("T{i}"),
        CppType::Pointer { to_const, to } => {
            format!("{}{}*", spelled(to), if *to_const { " const" } else { "" })
        }
    }
}
