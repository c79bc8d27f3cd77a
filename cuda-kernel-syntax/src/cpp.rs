//! A Rust type as C++: the one home of what a declaration's type, or a template argument, is on
//! the C++ side. Every tool reads it from here: its C spelling in the prototypes the build step
//! writes, its Itanium mangling ([`itanium`](crate::itanium) encodes a [`CppType`]), how a
//! demangler writes it in messages, and, the other way, the Rust a user writes for a C++ type
//! read back from a PTX symbol (`__nv_bfloat16` is `cuda_kernel::half::bf16`).
//!
//! The built-in types come from the one table, [`types`]: a row's `itanium` code when C++ has a
//! fundamental type for it, else its CUDA name as a class type (`__half`, `float4`,
//! `__nv_fp8_e4m3`). Other names are the user's structs and enums, namespaces included
//! (`ns::Pair` mangles as `N2ns4PairE`).
//!
//! ```
//! use cuda_kernel_syntax::cpp::CppType;
//! let bf16 = CppType::from_rust("cuda_kernel::half::bf16", &[]).unwrap();
//! assert_eq!(bf16.c_spelling(), "__nv_bfloat16");
//! assert_eq!(bf16.rust("cuda_kernel"), "cuda_kernel::half::bf16");
//! let read = CppType::from_cpp("__nv_bfloat16 const*").unwrap();
//! assert_eq!(read.rust("cuda_kernel"), "*const cuda_kernel::half::bf16");
//! assert_eq!(read.c_spelling(), "const __nv_bfloat16*");
//! ```

use crate::types::{self, BuiltinType};

/// The namespace nvcc puts internal-linkage functions in, as a derived symbol names it (a
/// source name `10_INTERNAL_`, which [`without_internal_parts`](crate::itanium::without_internal_parts) makes of any run's).
pub const INTERNAL: &str = "_INTERNAL_";

/// A C++ type as the tools see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CppType {
    /// A built-in type, by its row of the table: fundamental (`float`) or a CUDA class type
    /// (`__half`, `float4`).
    Builtin(&'static BuiltinType),
    /// A class or enum type of the user's, by its qualified C++ name (`Particle`, `ns::Pair`).
    Named(String),
    /// The template's type parameter of this index (`T_`, `T0_`, ...).
    Param(usize),
    /// A pointer; `to_const` when what it points at is `const`.
    Pointer {
        /// `const T*` rather than `T*`.
        to_const: bool,
        /// What it points at.
        to: Box<CppType>,
    },
}

/// A template argument of an instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateArg {
    /// A type (`reduce0<float>`).
    Type(CppType),
    /// An integral constant (`matrixMulCUDA<32>`, `<true>`, `<'a'>`): the Itanium code of its
    /// fundamental type and its value.
    Int {
        /// The fundamental type's code (`i` for `int`, `b` for `bool`).
        code: &'static str,
        /// The value.
        value: i128,
    },
    /// A value of an enum (`<Mode::Fast>`): the enum's qualified C++ name and the value of the
    /// enumerator.
    Enum {
        /// The enum's name (`Mode`, `ns::Mode`).
        name: String,
        /// The enumerator's value.
        value: i128,
    },
    /// A device function (`template <float (*op)(float)> ...` instantiated `<op_gelu>`): its
    /// qualified C++ name and parameter types, and whether it has internal linkage (`static`),
    /// which nvcc names in a namespace `_INTERNAL_<hashes>[_<counter>]` that changes from file
    /// to file and run to run (written `_INTERNAL_` here, as
    /// [`itanium::without_internal_parts`](crate::itanium::without_internal_parts) masks it).
    Function {
        /// The function's name (`op_gelu`, `ops::neg`), without the internal namespace.
        name: String,
        /// Its parameter types.
        params: Vec<CppType>,
        /// Whether nvcc names it in its internal namespace.
        internal: bool,
    },
}

impl CppType {
    /// The built-in type a Rust declaration writes as `rust`, by the table: its full path
    /// (`half::f16`, `cuda_kernel::half::f16`) or its name (`f16`); a name the table lacks is
    /// a struct of the user's.
    pub fn builtin(rust: &str) -> CppType {
        let rust = rust.trim().trim_start_matches("::");
        match types::by_rust_path(rust) {
            Some(t) => CppType::Builtin(t),
            None => CppType::Named(rust.rsplit("::").next().unwrap_or(rust).to_string()),
        }
    }

    /// The type a Rust declaration writes as `text` (`*const f32`, `*mut T`, `cuda_kernel::Float4`,
    /// `ffi::size_t`), with `generics` naming the template's type parameters in order. `None`
    /// for what C++ cannot spell (slices, tuples, ...).
    pub fn from_rust(text: &str, generics: &[&str]) -> Option<CppType> {
        let text = text.trim();
        for (prefix, to_const) in [("*const ", true), ("*mut ", false)] {
            if let Some(rest) = text.strip_prefix(prefix) {
                let to = Box::new(CppType::from_rust(rest, generics)?);
                return Some(CppType::Pointer { to_const, to });
            }
        }
        // Raw identifiers (`r#type`) name what they name without `r#`.
        let unraw = text.replace("r#", "");
        let text = unraw.as_str();
        if text.is_empty()
            || !text
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
        {
            return None;
        }
        let text = text.trim_start_matches("::");
        if let Some(i) = generics
            .iter()
            .position(|g| g.trim_start_matches("r#") == text)
        {
            return Some(CppType::Param(i));
        }
        let unraw: Vec<&str> = text
            .split("::")
            .map(|s| s.trim_start_matches("r#"))
            .collect();
        Some(CppType::builtin(&unraw.join("::")))
    }

    /// The type a Rust path ending in `name` stands for (`f32`, `Float4`, `size_t`, a template
    /// parameter among `generics`, a struct).
    pub fn from_path_name(name: &str, generics: &[&str]) -> CppType {
        // A raw identifier (`r#type`) names the parameter `type`.
        let name = name.trim_start_matches("r#");
        match generics
            .iter()
            .position(|g| g.trim_start_matches("r#") == name)
        {
            Some(i) => CppType::Param(i),
            None => CppType::builtin(name),
        }
    }

    /// The type CUDA C spells `name` followed by `pointers` `*`s (a `KernelParam`'s
    /// `CUDA_TYPE`), the pointer at level `i` (counted from the innermost) pointing at `const`
    /// where bit `i` of `consts` is set: `float` is fundamental, `float4` a class type,
    /// `ns::Pair` a struct in a namespace.
    pub fn from_cuda(name: &str, pointers: u8, consts: u8) -> CppType {
        let mut ty = match types::by_cuda_name(name) {
            Some(t) => CppType::Builtin(t),
            None => CppType::Named(name.to_string()),
        };
        for level in 0..pointers {
            ty = CppType::Pointer {
                to_const: consts & (1 << level) != 0,
                to: Box::new(ty),
            };
        }
        ty
    }

    /// The type with each class type of the user's renamed where `rename` gives it another
    /// name (a Rust struct's name, `Pair`, as its CUDA name, `geo::Pair`).
    pub fn with_class_names(self, rename: &dyn Fn(&str) -> Option<String>) -> CppType {
        match self {
            CppType::Named(name) => CppType::Named(rename(&name).unwrap_or(name)),
            CppType::Pointer { to_const, to } => CppType::Pointer {
                to_const,
                to: Box::new(to.with_class_names(rename)),
            },
            other => other,
        }
    }

    /// The class type of the user's it is or points to (`ns::Pair` of `const ns::Pair*`).
    pub fn class_name(&self) -> Option<&str> {
        match self {
            CppType::Named(name) => Some(name),
            CppType::Pointer { to, .. } => to.class_name(),
            _ => None,
        }
    }

    /// Whether it is a class type of the user's, or a pointer to one (`Pair`, `const ns::Pair*`).
    pub fn names_a_class(&self) -> bool {
        self.class_name().is_some()
    }

    /// How many pointers deep the type is, and the type the innermost one points at:
    /// `(2, float)` for `float**`, `(0, int)` for `int`.
    pub fn pointee(&self) -> (usize, &CppType) {
        match self {
            CppType::Pointer { to, .. } => {
                let (depth, base) = to.pointee();
                (depth + 1, base)
            }
            base => (0, base),
        }
    }

    /// A C++ type as a demangler or a C declaration writes it (`float const*`, `const float*`,
    /// `unsigned long`, `__nv_bfloat16`, `ns::Pair* const*`). `None` for what is not a plain
    /// type name with pointers and `const`s (templates, references, arrays, functions).
    pub fn from_cpp(text: &str) -> Option<CppType> {
        let text = text.trim();
        if let Some(inner) = text.strip_suffix('*') {
            let inner = inner.trim_end();
            let (to_const, inner) = match inner.strip_suffix(" const") {
                Some(rest) => (true, rest),
                None => (false, inner),
            };
            let to = CppType::from_cpp(inner)?;
            // `const float*`: the `const` written before the innermost type qualifies it.
            let (to_const, to) = match to {
                CppType::Pointer { .. } => (to_const, to),
                base => match inner.trim_start().strip_prefix("const ") {
                    Some(_) => (true, base),
                    None => (to_const, base),
                },
            };
            return Some(CppType::Pointer {
                to_const,
                to: Box::new(to),
            });
        }
        let base = text.strip_prefix("const ").unwrap_or(text).trim();
        let base = base.strip_suffix(" const").unwrap_or(base).trim();
        if base.is_empty()
            || !base
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == ' ')
            || base.starts_with(':')
            || base.ends_with(':')
        {
            return None;
        }
        let words: Vec<&str> = base.split_whitespace().collect();
        let base = words.join(" ");
        if let Some(t) = types::by_fundamental_name(&base) {
            return Some(CppType::Builtin(t));
        }
        if words.len() != 1 {
            return None;
        }
        Some(match types::by_cuda_name(&base) {
            Some(t) => CppType::Builtin(t),
            None => CppType::Named(base),
        })
    }

    /// How a C declaration spells it: `const float*`, `float* const*`, `uint64_t`, `ns::Pair`.
    /// A template parameter is `T0`, `T1`, ...
    pub fn c_spelling(&self) -> String {
        match self {
            CppType::Builtin(t) => t.cuda.to_string(),
            CppType::Named(name) => name.clone(),
            CppType::Param(i) => format!("T{i}"),
            CppType::Pointer { to_const, to } => match (&**to, to_const) {
                (CppType::Pointer { .. }, true) => format!("{} const*", to.c_spelling()),
                (_, true) => format!("const {}*", to.c_spelling()),
                (_, false) => format!("{}*", to.c_spelling()),
            },
        }
    }

    /// How a demangler writes it (`float const*`, `unsigned long` for `size_t`), to compare
    /// with the types a PTX symbol has.
    pub fn demangled(&self) -> String {
        match self {
            CppType::Builtin(t) => match t.itanium {
                Some(code) => crate::types::fundamental_name(code).to_string(),
                None => t.cuda.to_string(),
            },
            CppType::Named(name) => name.clone(),
            CppType::Param(i) => format!("T{i}"),
            CppType::Pointer { to_const, to } => {
                format!(
                    "{}{}*",
                    to.demangled(),
                    if *to_const { " const" } else { "" }
                )
            }
        }
    }

    /// The Rust a user writes for it, with the runtime at `krate` (`cuda_kernel`): `f32`,
    /// `cuda_kernel::half::bf16`, `*const cuda_kernel::Float4`; a struct by its name without
    /// namespaces (the Rust type `#[derive(KernelParam)]` gives that C name).
    pub fn rust(&self, krate: &str) -> String {
        match self {
            CppType::Builtin(t) => t.rust_path(krate),
            CppType::Named(name) => name.rsplit("::").next().unwrap_or(name).to_string(),
            CppType::Param(i) => format!("T{i}"),
            CppType::Pointer { to_const, to } => format!(
                "*{} {}",
                if *to_const { "const" } else { "mut" },
                to.rust(krate)
            ),
        }
    }

    /// Whether this (a declared type) is `found` (a type read from a symbol) but for the names
    /// of the classes in it: a Rust struct named otherwise than its C++ class (`Self_` for
    /// `Self`, `Activation` for `ACTIVATION`), which its `cuda_name` names in symbols.
    pub fn same_but_class_names(&self, found: &CppType) -> bool {
        match (self, found) {
            (CppType::Named(_), CppType::Named(_)) => true,
            (CppType::Pointer { to_const: c, to: a }, CppType::Pointer { to_const: d, to: b }) => {
                c == d && a.same_but_class_names(b)
            }
            (a, b) => a == b,
        }
    }

    /// The table's row where this is a built-in type.
    pub fn as_builtin(&self) -> Option<&'static BuiltinType> {
        match self {
            CppType::Builtin(t) => Some(t),
            _ => None,
        }
    }
}

impl TemplateArg {
    /// A template argument as a demangler writes it: a type (`__half`, `float const*`), or a
    /// value (`128`, `(unsigned int)128`, `true`, `(char)97`, `(Mode)2`, `-3`). `None` for what
    /// is neither.
    pub fn from_demangled(text: &str) -> Option<TemplateArg> {
        let text = text.trim();
        match text {
            "true" => {
                return Some(TemplateArg::Int {
                    code: "b",
                    value: 1,
                });
            }
            "false" => {
                return Some(TemplateArg::Int {
                    code: "b",
                    value: 0,
                });
            }
            _ => {}
        }
        if let Ok(value) = text.parse::<i128>() {
            return Some(TemplateArg::Int { code: "i", value });
        }
        // `128u`, `5ul`, `5ull`, `-5l`, `5ll`: literal suffixes of the integer types.
        for (suffix, code) in [
            ("ull", "y"),
            ("ll", "x"),
            ("ul", "m"),
            ("u", "j"),
            ("l", "l"),
        ] {
            if let Some(digits) = text.strip_suffix(suffix) {
                if let Ok(value) = digits.parse::<i128>() {
                    return Some(TemplateArg::Int { code, value });
                }
            }
        }
        // `&ops::neg(float const*)`: a device function's address.
        if let Some(rest) = text.strip_prefix('&') {
            let (name, list) = rest.split_once('(')?;
            let list = list.strip_suffix(')')?;
            let params = match list.trim() {
                "" | "void" => Vec::new(),
                list => split_list(list)
                    .iter()
                    .map(|p| CppType::from_cpp(p))
                    .collect::<Option<_>>()?,
            };
            let (internal, name) = match name.split_once("::") {
                Some((first, rest)) if first.starts_with(INTERNAL) => (true, rest),
                _ => (false, name),
            };
            if !valid_cpp_name(name) {
                return None;
            }
            return Some(TemplateArg::Function {
                name: name.to_string(),
                params,
                internal,
            });
        }
        if let Some(rest) = text.strip_prefix('(') {
            let (ty, value) = rest.split_once(')')?;
            let value = value.trim().parse::<i128>().ok()?;
            return Some(match CppType::from_cpp(ty)? {
                CppType::Builtin(t) => TemplateArg::Int {
                    code: t.itanium?,
                    value,
                },
                CppType::Named(name) => TemplateArg::Enum { name, value },
                _ => return None,
            });
        }
        CppType::from_cpp(text).map(TemplateArg::Type)
    }

    /// The Rust a user writes for it as a generic argument: a type ([`CppType::rust`]), or the
    /// value (`128`, `true`).
    pub fn rust(&self, krate: &str) -> String {
        match self {
            TemplateArg::Type(ty) => ty.rust(krate),
            TemplateArg::Int { code: "b", value } => (*value != 0).to_string(),
            TemplateArg::Int { value, .. } | TemplateArg::Enum { value, .. } => value.to_string(),
            TemplateArg::Function { name, .. } => format!("\"{name}\""),
        }
    }

    /// The argument as C++ writes it in an explicit instantiation (`__half`, `128`, `true`,
    /// `(Mode)2`).
    pub fn c_spelling(&self) -> String {
        match self {
            TemplateArg::Type(ty) => ty.c_spelling(),
            TemplateArg::Int { code: "b", value } => (*value != 0).to_string(),
            TemplateArg::Int { value, .. } => value.to_string(),
            TemplateArg::Enum { name, value } => format!("({name}){value}"),
            TemplateArg::Function { name, .. } => name.clone(),
        }
    }
}

/// The include guard of a struct's C declaration, the same in the header the build step
/// force-includes and in `cuda_kernel::cuda_header`'s, so that whichever comes first declares
/// it: `CUDA_KERNEL_STRUCT_geo_Pair` for `geo::Pair`.
pub fn struct_guard(c_name: &str) -> String {
    format!("CUDA_KERNEL_STRUCT_{}", c_name.replace("::", "_"))
}

/// The C++ type a declaration's Rust type stands for, with `generics` naming the template's type
/// parameters in order; `None` for what C++ cannot spell (slices, tuples, generic paths, ...).
/// Read from the syntax tree, so the macro hands generated code the model, never text.
#[cfg(feature = "syn")]
pub fn from_syn(ty: &syn::Type, generics: &[&str]) -> Option<CppType> {
    use syn::ext::IdentExt;
    use syn::{PathArguments, Type};
    match ty {
        Type::Ptr(p) => Some(CppType::Pointer {
            to_const: p.const_token.is_some(),
            to: Box::new(from_syn(&p.elem, generics)?),
        }),
        Type::Group(g) => from_syn(&g.elem, generics),
        Type::Paren(p) => from_syn(&p.elem, generics),
        // A typed TMA descriptor is a `CUtensorMap` whatever its element type and rank.
        Type::Path(_) if crate::types::tensor_map(ty).is_some() => {
            Some(CppType::builtin("RawTensorMap"))
        }
        Type::Path(p) if p.qself.is_none() => {
            let plain = p
                .path
                .segments
                .iter()
                .all(|s| matches!(s.arguments, PathArguments::None));
            if !plain {
                return None;
            }
            let last = p.path.segments.last()?.ident.unraw().to_string();
            if p.path.segments.len() == 1 {
                return Some(CppType::from_path_name(&last, generics));
            }
            let text: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.unraw().to_string())
                .collect();
            Some(CppType::builtin(&text.join("::")))
        }
        _ => None,
    }
}

/// A comma-separated list of C++ types or values, split where no `<>` or `()` is open.
pub(crate) fn split_list(inner: &str) -> Vec<String> {
    if inner.trim().is_empty() {
        return Vec::new();
    }
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(inner[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(inner[start..].trim().to_string());
    items
}

/// Whether `name` is a C++ identifier, qualified by namespaces or not (`Pair`, `geo::Pair`).
pub fn valid_cpp_name(name: &str) -> bool {
    !name.is_empty()
        && name.split("::").all(|s| {
            s.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_type_reads_back_as_itself() {
        // Every row, spelled as C and as a demangler writes it, reads back as a type of the
        // same C++ identity (same mangling, same Rust layout), and names a Rust type that reads
        // back as a type of that identity too.
        for t in types::all() {
            let ty = CppType::Builtin(t);
            for text in [ty.c_spelling(), ty.demangled()] {
                let back = CppType::from_cpp(&text).unwrap_or_else(|| panic!("{text}"));
                let back = back.as_builtin().unwrap();
                assert_eq!((back.itanium, back.size), (t.itanium, t.size), "{text}");
                if t.itanium.is_none() {
                    assert_eq!(back, t);
                }
            }
            let rust = ty.rust("cuda_kernel");
            let again = CppType::from_rust(&rust, &[]).unwrap();
            assert_eq!(again, ty, "{rust}");
            for ptr in [true, false] {
                let p = CppType::Pointer {
                    to_const: ptr,
                    to: Box::new(ty.clone()),
                };
                assert_eq!(
                    CppType::from_cpp(&p.demangled()).map(|p| p.demangled()),
                    Some(p.demangled())
                );
                assert_eq!(CppType::from_rust(&p.rust("cuda_kernel"), &[]), Some(p));
            }
        }
    }

    #[test]
    fn class_types_of_cuda_are_builtin_wherever_named() {
        for path in [
            "half::bf16",
            "cuda_kernel::half::bf16",
            "::cuda_kernel::half::bf16",
            "bf16",
        ] {
            assert_eq!(
                CppType::from_rust(path, &[]).unwrap().c_spelling(),
                "__nv_bfloat16"
            );
        }
        assert_eq!(
            CppType::from_rust("low_precision::F8E4M3", &[])
                .unwrap()
                .rust("ck"),
            "ck::low_precision::F8E4M3"
        );
        assert_eq!(
            CppType::from_cuda("ns::Pair", 2, 0b10).c_spelling(),
            "ns::Pair* const*"
        );
        assert_eq!(
            CppType::from_cuda("float", 2, 0b01).c_spelling(),
            "const float**"
        );
        assert_eq!(
            CppType::from_cpp("float* const*").unwrap(),
            CppType::from_cuda("float", 2, 0b10)
        );
    }

    #[test]
    fn template_arguments_read_as_demanglers_write_them() {
        let int = |text: &str| match TemplateArg::from_demangled(text) {
            Some(TemplateArg::Int { code, value }) => (code, value),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(int("128"), ("i", 128));
        assert_eq!(int("(unsigned int)128"), ("j", 128));
        assert_eq!(int("128u"), ("j", 128));
        assert_eq!(int("(char)97"), ("c", 97));
        assert_eq!(int("true"), ("b", 1));
        assert_eq!(int("(short)-3"), ("s", -3));
        assert_eq!(int("5ull"), ("y", 5));
        assert_eq!(
            TemplateArg::from_demangled("(ns::Mode)2"),
            Some(TemplateArg::Enum {
                name: "ns::Mode".into(),
                value: 2
            })
        );
        assert_eq!(
            TemplateArg::from_demangled("__half").map(|a| a.rust("cuda_kernel")),
            Some("cuda_kernel::half::f16".into())
        );
        assert_eq!(TemplateArg::from_demangled("foo<int>"), None);
        assert_eq!(TemplateArg::from_demangled("int&"), None);
    }
}
