//! Rust names for what the generator declares: each a valid identifier, unique in its scope,
//! by construction. C++ names are free to be Rust keywords (`type`, `fn`, `match`), to repeat
//! across namespaces (`reset` beside `gemm::detail::reset`), to start with `__` or to differ
//! only in case; a generated file that rustc or `#[kernel]` refuses is the generator's bug.
//!
//! The rule for launcher types, which the README documents: a kernel's launcher is its name in
//! UpperCamelCase (`reset` is `Reset`); where another item of the file has that name already
//! (a kernel of the global namespace, which names first, a kernel before it, one of the file's
//! structs, the module type `Kernels`), its qualified C++ name (`gemm::detail::reset` is
//! `GemmDetailReset`); where that is taken too, the first with a number after it
//! (`Reset2`, `Reset3`, ...).

use cuda_kernel_syntax::ast::upper_camel_case;

/// `name` as a Rust identifier: a keyword as a raw identifier (`type` is `r#type`; syn says
/// which words are keywords, `gen` is reserved from edition 2024), and those a raw identifier
/// cannot spell (`self`, `Self`, `super`, `crate`, `_`) with a `_` after them.
pub fn ident(name: &str) -> String {
    if ["self", "Self", "super", "crate", "_"].contains(&name) {
        format!("{name}_")
    } else if name == "gen" || syn::parse_str::<syn::Ident>(name).is_err() {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// Whether `name` is a name Rust code can use as it is: an identifier, raw or not.
fn valid(name: &str) -> bool {
    let bare = name.strip_prefix("r#").unwrap_or(name);
    !bare.is_empty()
        && !["self", "Self", "super", "crate", "_"].contains(&bare)
        && (syn::parse_str::<syn::Ident>(bare).is_ok()
            || syn::parse_str::<syn::Ident>(name).is_ok())
}

/// A parameter's (or a template parameter's) name, as `#[kernel]` takes it and unique among
/// `taken`, which it joins: [`ident`], then not the launcher's own arguments (`stream`,
/// `config`) nor `__`-prefixed (generated code's), which take a `_` after them (`stream_`,
/// `x_` for `__x`); a name taken already, a number (`x_2`).
pub fn param(name: &str, taken: &mut Vec<String>) -> String {
    let trimmed = name.trim_start_matches('_');
    let base = if trimmed.is_empty() {
        "arg".to_string()
    } else if name.starts_with("__") {
        format!("{trimmed}_")
    } else if cuda_kernel_syntax::check::LAUNCHER_ARGS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    };
    let base = ident(&base);
    let unraw = |n: &str| n.trim_start_matches("r#").to_string();
    let mut candidate = base.clone();
    let mut n = 2;
    while taken.iter().any(|t| unraw(t) == unraw(&candidate)) {
        candidate = ident(&format!("{}_{n}", unraw(&base)));
        n += 1;
    }
    taken.push(candidate.clone());
    candidate
}

/// The type names of one generated file: each claimed once.
#[derive(Debug, Default)]
pub struct TypeNames {
    taken: Vec<String>,
}

impl TypeNames {
    /// Claims `name` as it is (the module type's, given by the build script).
    pub fn reserve(&mut self, name: &str) {
        self.taken.push(name.to_string());
    }

    /// Whether `name` is claimed.
    pub fn is_taken(&self, name: &str) -> bool {
        self.taken.iter().any(|t| t == name)
    }

    /// The first of `candidates` (type names, in UpperCamelCase or as C++ writes them) that is
    /// a valid identifier and not taken, else the first valid one with a number after it;
    /// claimed.
    pub fn claim(&mut self, candidates: &[String]) -> String {
        // A keyword (`Self`) takes a `_` after it.
        let valid: Vec<String> = candidates
            .iter()
            .map(|c| if valid(c) { c.clone() } else { format!("{c}_") })
            .filter(|c| valid(c))
            .collect();
        let chosen = valid
            .iter()
            .find(|c| !self.is_taken(c))
            .cloned()
            .unwrap_or_else(|| {
                let base = valid
                    .first()
                    .map_or("Kernel", |c| c.trim_start_matches("r#"));
                (2..)
                    .map(|n| format!("{base}{n}"))
                    .find(|c| !self.is_taken(c))
                    .unwrap_or_default()
            });
        self.taken.push(chosen.clone());
        chosen
    }

    /// A launcher's type for the kernel `qualified` (`gemm::detail::reset`), by the rule of
    /// this module: `Reset`, else `GemmDetailReset`, else `Reset2`.
    pub fn launcher(&mut self, qualified: &str) -> String {
        let name = qualified.rsplit("::").next().unwrap_or(qualified);
        let plain = upper_camel_case(name);
        let full = upper_camel_case(&qualified.replace("::", "_"));
        self.claim(&[plain, full])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_identifiers_and_unique() {
        assert_eq!(ident("type"), "r#type");
        assert_eq!(ident("gen"), "r#gen");
        assert_eq!(ident("Self"), "Self_");
        assert_eq!(ident("_"), "__");
        assert_eq!(ident("n"), "n");
        let mut taken = Vec::new();
        assert_eq!(param("stream", &mut taken), "stream_");
        assert_eq!(param("__x", &mut taken), "x_");
        assert_eq!(param("x_", &mut taken), "x__2");
        assert_eq!(param("fn", &mut taken), "r#fn");
        assert_eq!(param("fn", &mut taken), "fn_2");
        assert_eq!(param("__", &mut taken), "arg");
        assert_eq!(param("_", &mut taken), "arg_2");
        let mut types = TypeNames::default();
        types.reserve("Kernels");
        assert_eq!(types.launcher("reset"), "Reset");
        assert_eq!(types.launcher("gemm::detail::reset"), "GemmDetailReset");
        assert_eq!(types.launcher("gemm::detail::reset"), "Reset2");
        assert_eq!(types.launcher("kernels"), "Kernels2");
        // `Self` camel-cases to a keyword, as `self_` does.
        assert_eq!(types.launcher("Self"), "Self_");
        assert_eq!(types.launcher("self_"), "Self_2");
        assert_eq!(types.launcher("ns::Self"), "NsSelf");
    }
}
