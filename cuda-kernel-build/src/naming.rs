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

// `name` as a Rust identifier: the front end's rule (`ast::rust_ident`), which the macro
// follows for the names it makes too. (A doc comment on this re-export, with a link, stops
// rustdoc 1.95 with an internal error.)
pub use cuda_kernel_syntax::ast::rust_ident as ident;

/// A module's name for a C++ namespace's (`b` of `b::Pair`): [`ident`], and one starting
/// with `__` (`__ck`, the generated code's own) with the underscores after it instead.
pub fn module(name: &str) -> String {
    match name.strip_prefix("__") {
        Some(rest) => ident(&format!("{}_", rest.trim_start_matches('_'))),
        None => ident(name),
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

/// Whether a struct of the user's may be named `name` in Rust: not a name `#[kernel]` reads
/// as one of its own types by the last segment of a path (`Float4`, `f32`, `size_t`,
/// `TensorMap`, `c_void`) nor one it refuses (`Box`, `String`, `Option`).
pub fn free_type_name(name: &str) -> bool {
    // The check refuses a parameter of a type so named (`Box`, `Option`, `char`): asked, not
    // listed again here.
    let refused = syn::parse_str::<syn::Type>(&ident(name)).map_or(true, |ty| {
        cuda_kernel_syntax::check::param_type_error(&ty).is_some()
    });
    cuda_kernel_syntax::types::by_name(name).is_none()
        && !refused
        && !["TensorMap", "c_void", "Self"].contains(&name)
        // `__ck` and its kind are the generated code's own.
        && !name.starts_with("__")
}

/// A type parameter's name: [`param`], and one `#[kernel]` reads as a type of its own or
/// refuses (`Option`, `f32`, `Float4`) with a `_` after it.
pub fn type_param(name: &str, taken: &mut Vec<String>) -> String {
    match free_type_name(name) && !TYPE_NAMESPACE.contains(&name) {
        true => param(name, taken),
        false => param(&format!("{name}_"), taken),
    }
}

/// Names of Rust's prelude and extern crates, which a const parameter named so would be read
/// as where a generic argument is expected (`Launcher<core>`, `Launcher<Result>`).
const TYPE_NAMESPACE: &[&str] = &[
    "Option",
    "Result",
    "Vec",
    "String",
    "Box",
    "Some",
    "None",
    "Ok",
    "Err",
    "core",
    "std",
    "alloc",
    "Copy",
    "Clone",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Default",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "Iterator",
    "IntoIterator",
    "Extend",
    "ToString",
    "ToOwned",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "TryFrom",
    "TryInto",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "FromIterator",
    "Unpin",
    "bool",
    "char",
    "str",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "f32",
    "f64",
];

/// A template's generic parameter as written (`const N: u32`, `#[kernel(enum = "K")] const
/// k: i32`, `const op: fn(f32) -> f32`, `T`), with a const parameter's name given a `_` where
/// it is a type of the file or of Rust's prelude (which a generic argument would name).
pub fn unshadowed_generic(generic: &str, types: &TypeNames) -> String {
    let Some(at) = generic.find("const ") else {
        return generic.to_string();
    };
    let (head, rest) = generic.split_at(at + "const ".len());
    let Some((name, tail)) = rest.split_once(':') else {
        return generic.to_string();
    };
    let mut bare = name.trim_start_matches("r#").to_string();
    if !types.is_taken(&bare) && !TYPE_NAMESPACE.contains(&bare.as_str()) {
        return generic.to_string();
    }
    while types.is_taken(&bare) || TYPE_NAMESPACE.contains(&bare.as_str()) {
        bare.push('_');
    }
    format!("{head}{bare}:{tail}")
}

/// A parameter's name that no pattern of Rust takes for something else: not a tuple struct or
/// variant in scope (a type of the file, `Some`, `None`, `Ok`, `Err`), which a parameter
/// cannot shadow.
pub fn unshadowed(name: &str, types: &TypeNames) -> String {
    let mut bare = name.trim_start_matches("r#").to_string();
    if !types.is_taken(&bare) && !["Some", "None", "Ok", "Err"].contains(&bare.as_str()) {
        return name.to_string();
    }
    while types.is_taken(&bare) || ["Some", "None", "Ok", "Err"].contains(&bare.as_str()) {
        bare.push('_');
    }
    bare
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
    } else if cuda_kernel_syntax::check::LAUNCHER_ARGS.contains(&name)
        || ["Some", "None", "Ok", "Err"].contains(&name)
    {
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
        self.claim_where(candidates, |_, _| true)
    }

    /// `claim`, of the candidates `free` also accepts.
    fn claim_where(
        &mut self,
        candidates: &[String],
        free: impl Fn(&TypeNames, &str) -> bool,
    ) -> String {
        // A keyword (`Self`) takes a `_` after it.
        let valid: Vec<String> = candidates
            .iter()
            .map(|c| if valid(c) { c.clone() } else { format!("{c}_") })
            .filter(|c| valid(c))
            .collect();
        let chosen = valid
            .iter()
            .find(|c| !self.is_taken(c) && free(self, c))
            .cloned()
            .unwrap_or_else(|| {
                let base = valid
                    .first()
                    .map_or("Kernel", |c| c.trim_start_matches("r#"));
                (2..)
                    .map(|n| format!("{base}{n}"))
                    .find(|c| !self.is_taken(c) && free(self, c))
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
        // An anonymous namespace as the word `anonymous` (`AnonymousFill`, `OuterFill`).
        let qualified = qualified
            .replace(
                &format!("{}::", cuda_kernel_syntax::demangle::ANONYMOUS_NAMESPACE),
                "anonymous::",
            )
            .replace("::anonymous::", "::");
        let full = upper_camel_case(&qualified.replace("::", "_"));
        // `#[kernel]` gives a generic launcher a trait named after it (`ResetInPtx`): that
        // name is the launcher's too.
        let in_ptx = |name: &str| format!("{name}{}", cuda_kernel_syntax::check::IN_PTX);
        let chosen = self.claim_where(&[plain, full], |names, c| !names.is_taken(&in_ptx(c)));
        self.taken.push(in_ptx(&chosen));
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launcher_never_takes_the_name_of_another_ones_trait() {
        let mut names = TypeNames::default();
        assert_eq!(names.launcher("tile"), "Tile");
        // `TileInPtx` is `Tile`'s trait of instances in the PTX.
        assert_eq!(names.launcher("tile_in_ptx"), "TileInPtx2");
        assert_eq!(names.launcher("reset_in_ptx"), "ResetInPtx");
        assert_eq!(names.launcher("reset"), "Reset2");
    }

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
