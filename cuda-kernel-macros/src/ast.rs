//! Our model of a `#[kernel]` block; each node keeps its syn node for spans.

use proc_macro2::Ident;
use syn::ext::IdentExt;
use syn::{Attribute, LitStr, Type, Visibility};

/// A `#[kernel] extern "C" { ... }` block.
pub struct Block {
    /// The block's `extern "C"`: checked, then dropped from the output.
    pub abi: syn::Abi,
    /// The kernels declared in it.
    pub kernels: Vec<Kernel>,
}

/// One `fn` of the block: a kernel entry and its parameters.
pub struct Kernel {
    /// Doc comments, carried to the generated type.
    pub docs: Vec<Attribute>,
    /// `#[cfg]`, `#[allow]`, `#[deprecated]` and the like, carried to the generated items.
    pub attrs: Vec<Attribute>,
    /// The fn's visibility, given to the generated type.
    pub vis: Visibility,
    /// Declared `safe fn`: the launcher is a safe fn.
    pub safe: bool,
    /// The fn's name.
    pub ident: Ident,
    /// `#[kernel(name = "...")]`: the entry symbol, when not the fn's name.
    pub symbol: Option<LitStr>,
    /// `#[kernel(cpp)]`: the entry symbol is the C++ mangling of the signature.
    pub cpp: Option<syn::Path>,
    /// The fn's signature, for the checks of generics, variadics and return types.
    pub sig: syn::Signature,
    /// The parameters with a plain name.
    pub params: Vec<Param>,
}

/// A parameter `name: Type`.
pub struct Param {
    /// The parameter's name.
    pub ident: Ident,
    /// Its type as written.
    pub ty: Type,
}

/// How a parameter reaches the launcher.
pub enum ParamKind<'a> {
    /// `*const T`: the launcher takes `&impl DevicePtr<T>`.
    ConstPtr(&'a Type),
    /// `*mut T`: the launcher takes `&mut impl DevicePtrMut<T>`.
    MutPtr(&'a Type),
    /// Anything else: the launcher takes the value.
    Value,
}

impl Param {
    /// Whether the parameter is device memory or a value.
    pub fn kind(&self) -> ParamKind<'_> {
        match &self.ty {
            Type::Ptr(ptr) if ptr.mutability.is_some() => ParamKind::MutPtr(&ptr.elem),
            Type::Ptr(ptr) => ParamKind::ConstPtr(&ptr.elem),
            _ => ParamKind::Value,
        }
    }
}

impl Kernel {
    /// The entry symbol: `#[kernel(name = "...")]`, the C++ mangling for `#[kernel(cpp)]`, or
    /// the fn's name. (A signature `cpp` cannot mangle is reported by the checks.)
    pub fn symbol(&self) -> String {
        let name = self.ident.unraw().to_string();
        match (&self.symbol, &self.cpp) {
            (Some(symbol), _) => symbol.value(),
            (None, Some(_)) => {
                crate::mangle::mangle(&name, self.params.iter().map(|p| &p.ty)).unwrap_or(name)
            }
            (None, None) => name,
        }
    }

    /// The generated type's name: the fn's name in UpperCamelCase (`vector_add` -> `VectorAdd`).
    pub fn type_ident(&self) -> Ident {
        Ident::new(
            &upper_camel_case(&self.ident.to_string()),
            self.ident.span(),
        )
    }
}

/// `vector_add` -> `VectorAdd`, `saxpyF4` -> `SaxpyF4`, `r#type` -> `Type`.
pub fn upper_camel_case(name: &str) -> String {
    let name = name.strip_prefix("r#").unwrap_or(name);
    let mut out = String::with_capacity(name.len());
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() {
        // `_` alone, or only underscores: keep something nameable.
        out.push_str("Kernel");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::upper_camel_case;

    #[test]
    fn camel_cases_fn_names() {
        assert_eq!(upper_camel_case("vector_add"), "VectorAdd");
        assert_eq!(upper_camel_case("vector_add_f4"), "VectorAddF4");
        assert_eq!(upper_camel_case("saxpyF4"), "SaxpyF4");
        assert_eq!(upper_camel_case("__echo__guide_"), "EchoGuide");
        assert_eq!(upper_camel_case("r#type"), "Type");
    }
}
