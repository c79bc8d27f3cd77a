//! Our model of a `#[kernel]` block; each node keeps its syn node for spans.
use proc_macro2::Ident;
use syn::{Attribute, DeriveInput, Expr, LitStr, Member as FieldMember, Type, Visibility};

pub mod contract;

use crate::attr::TypeName;

/// A `#[kernel] extern "C" { ... }` block.
pub struct Block {
    /// The block's `extern "C"`: checked, then dropped from the output.
    pub abi: syn::Abi,
    /// The kernels declared in it.
    pub kernels: Vec<Kernel>,
    /// The `__constant__` and `__device__` variables declared in it (`static COEFFS: [f32; 16];`).
    pub globals: Vec<GlobalVar>,
}

/// A `static` of the block: a device global of the module.
pub struct GlobalVar {
    /// Doc comments, carried to the generated type.
    pub docs: Vec<Attribute>,
    /// `#[cfg]` and lint attributes, carried to the generated items.
    pub attrs: Vec<Attribute>,
    /// The static's visibility.
    pub vis: Visibility,
    /// The static's name.
    pub ident: Ident,
    /// `#[kernel(name = "...")]`: the variable's symbol, when not the static's name.
    pub name_arg: Option<LitStr>,
    /// The symbol, resolved.
    pub symbol: String,
    /// Its type as written.
    pub ty: Type,
    /// Why the type cannot be a device global, decided when parsed.
    pub type_error: Option<String>,
    /// What `#[kernel(ptx = ...)]` leaves to the compiler: the size the type must have.
    pub ptx_layout: Option<PtxLayout>,
}

impl GlobalVar {
    /// The generated type's name: the static's name in UpperCamelCase (`coeffs` -> `Coeffs`).
    pub fn type_ident(&self) -> Ident {
        let name = self.ident.to_string();
        let name = if name.chars().all(|c| !c.is_ascii_lowercase()) {
            name.to_ascii_lowercase() // COEFFS -> coeffs -> Coeffs
        } else {
            name
        };
        Ident::new(&upper_camel_case(&name), self.ident.span())
    }

    /// The field of a block's module type that holds it: the name in snake case.
    pub fn field_ident(&self) -> Ident {
        Ident::new(
            &self.ident.to_string().to_ascii_lowercase(),
            self.ident.span(),
        )
    }
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
    pub name_arg: Option<LitStr>,
    /// `#[kernel(cpp)]`: the entry symbol is the C++ mangling of the signature.
    pub cpp: Option<syn::Path>,
    /// `#[kernel(cpp, namespace = "ns")]`: the C++ namespace the kernel is in.
    pub namespace: Option<LitStr>,
    /// The entry symbol, resolved once: `name = "..."`, the C++ mangling for `cpp`, or the fn's
    /// name without `r#`.
    pub symbol: String,
    /// For `cpp`: the index of the first parameter whose type has no C++ spelling (the symbol
    /// is then the fn's name, and the checks report it).
    pub unmangled_param: Option<usize>,
    /// For a `cpp` kernel taking structs: the C++ name the PTX's entry gives each struct
    /// parameter, by index (`geo::Pair` for `p: Pair`), where the PTX check found the kernel
    /// by them; the expansion asserts that each struct's CUDA name is that one.
    pub cuda_names: Vec<(usize, String)>,
    /// The fn's signature, for the checks of generics, variadics and return types.
    pub sig: syn::Signature,
    /// Type and const parameters of a generic declaration: a C++ function template
    /// (`#[kernel(cpp)]`) or a family of `extern "C"` kernels (`name = "affine_{T}"`).
    pub generics: Vec<KernelGeneric>,
    /// `const op: fn(f32) -> f32` among the generics of a `cpp` template: a template
    /// parameter that is a device function, chosen by its C++ name when the launcher loads
    /// (the kernel's [`run_time_name`](Self::run_time_name)); not a Rust generic.
    pub device_fn: Option<DeviceFnParam>,
    /// The parameters with a plain name.
    pub params: Vec<Param>,
    /// `#[kernel(rename = Name)]`: the generated type's name.
    pub rename: Option<Ident>,
    /// The generated type's name ([`type_ident`](Self::type_ident)), found once when parsed.
    pub type_name: Ident,
    /// What `{T}` stands for in the symbol pattern, for the types named: the fn's
    /// `names(...)`, then the block's.
    pub type_names: Vec<TypeName>,
    /// The placeholder of the pattern that no generic parameter fills (`op` of `"u{op}_{T}"`):
    /// that part of the symbol is chosen at run time, when the launcher is loaded.
    pub run_time_name: Option<String>,
    /// The PTX's members of a family or run-time named kernel, or a C++ template's instances
    /// over built-in types, found by the `ptx` check; `None` without a PTX file.
    pub members: Option<Members>,
    /// `#[requires(...)]`: when a launch is memory-safe, checked before each one; the
    /// launcher of a kernel with a contract is safe to call.
    pub contract: Option<contract::Contract>,
}

/// The entries of a PTX that a pattern (`"u{op}_{T}"`) matches, with what each placeholder
/// stands for.
#[derive(Clone, Debug, Default)]
pub struct Members {
    /// One per entry, in the PTX's order.
    pub entries: Vec<Member>,
    /// Whether every member's type arguments are types the front end knows by name (built-in
    /// types and types given a name with `names(...)`), so that the set of types with members
    /// can be spelled in generated code.
    pub types_known: bool,
    /// The PTX file as the declaration names it, for messages.
    pub file: String,
}

/// A family member's type argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemberType {
    /// A built-in type, by its path under the runtime (`half::f16`, `u32`, `Float4`).
    Builtin(&'static str),
    /// A type named in `names(...)`, as written there.
    Path(String),
}

/// One member of a family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its entry symbol.
    pub symbol: String,
    /// Each type parameter's argument, `None` where the name is not one the front end knows.
    pub types: Vec<Option<MemberType>>,
    /// What the run-time part of the pattern is for this member (`exp` of `uexp_f32`).
    pub run_time_name: Option<String>,
    /// A C++ template instance's arguments, read back from its symbol (empty for a family's
    /// member), for messages that spell it as the Rust that loads it.
    pub args: Vec<crate::cpp::TemplateArg>,
}

/// A template parameter that is a pointer to a device function (`float (*op)(float)`),
/// declared `const op: fn(f32) -> f32`.
pub struct DeviceFnParam {
    /// Its name, which the launcher's `load` takes the function's C++ name by.
    pub ident: Ident,
    /// Its position among the template's parameters.
    pub position: usize,
    /// The function's parameter types.
    pub params: Vec<Type>,
    /// The type as written, for spans.
    pub ty: syn::TypeBareFn,
}

/// A generic parameter of a kernel declaration.
pub enum KernelGeneric {
    /// `T`: a `typename` template parameter, or a family's element type.
    Type(Ident),
    /// `const N: i32`: a non-type template parameter, with the Itanium code of its type.
    Const {
        /// Its name.
        ident: Ident,
        /// Its Rust type.
        ty: Box<Type>,
        /// The Itanium code of that type (`i` for `i32`); `None` for a type C++ templates do not
        /// take (which the checks report).
        code: Option<&'static str>,
        /// `#[kernel(enum = "Mode")]`: the parameter is a value of this C++ enum (qualified
        /// where it is in a namespace), the Rust integer holding the enumerator's value.
        enum_name: Option<String>,
    },
}

impl KernelGeneric {
    /// The parameter's name.
    pub fn ident(&self) -> &Ident {
        match self {
            KernelGeneric::Type(ident) | KernelGeneric::Const { ident, .. } => ident,
        }
    }
}

/// A parameter `name: Type`.
pub struct Param {
    /// The parameter's name.
    pub ident: Ident,
    /// Its type as written.
    pub ty: Type,
    /// `#[kernel(read_only)]` on a `*mut T` the kernel only reads (C code that omits `const`):
    /// the launcher takes a shared borrow, while the C++ symbol and prototype keep `T*`.
    pub read_only: Option<syn::Path>,
    /// `#[kernel(grid_constant)]` on a value the kernel declares `const __grid_constant__`
    /// (which its prototype must repeat); a TMA descriptor always is.
    pub grid_constant: Option<syn::Path>,
    /// Why the type cannot be a kernel parameter, decided once by
    /// [`check::param_type_error`](crate::check::param_type_error) when parsed; `None` for types
    /// the runtime's `KernelParam` bound decides.
    pub type_error: Option<String>,
    /// What `#[kernel(ptx = ...)]` leaves to the compiler for this parameter, once the PTX was
    /// read: the size and alignment the type must have.
    pub ptx_layout: Option<PtxLayout>,
    /// The built-in type (the table's row) the type names, looked up once when parsed
    /// ([`builtin_of`]); `None` for pointers, the user's types and generics.
    pub builtin: Option<&'static crate::types::BuiltinType>,
}

/// A check left to the compiler: the size and alignment of a type the front end cannot know
/// (vector types through a path, user structs) must equal the PTX's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxLayout {
    /// Size the PTX declares.
    pub size: usize,
    /// Alignment the PTX declares.
    pub align: usize,
    /// What the compiler says when they differ.
    pub message: String,
}

/// How a parameter reaches the launcher.
pub enum ParamKind<'a> {
    /// `*const T` (or a `*mut T` declared read-only): the launcher takes
    /// `&impl DeviceArg<T>`. A pointer to pointers takes device memory of addresses (`u64`).
    ConstPtr(&'a Type),
    /// `*mut T`: the launcher takes `&mut impl DeviceArgMut<T>`.
    MutPtr(&'a Type),
    /// `TensorMap<T, N>`: a TMA descriptor of `N`-dimensional memory of `T`s, which the
    /// kernel takes as `const __grid_constant__ CUtensorMap`; the launcher takes a descriptor
    /// of that element type and rank, which borrows its memory.
    TensorMap(&'a Type, &'a syn::GenericArgument),
    /// Anything else: the launcher takes the value.
    Value,
}

impl Param {
    /// Whether the parameter is device memory or a value.
    pub fn kind(&self) -> ParamKind<'_> {
        match &self.ty {
            Type::Ptr(ptr) if ptr.mutability.is_some() && self.read_only.is_none() => {
                ParamKind::MutPtr(&ptr.elem)
            }
            Type::Ptr(ptr) => ParamKind::ConstPtr(&ptr.elem),
            ty => match tensor_map(ty) {
                Some((elem, rank)) => ParamKind::TensorMap(elem, rank),
                None => ParamKind::Value,
            },
        }
    }

    /// Whether the kernel declares the parameter `const __grid_constant__`: a TMA descriptor
    /// (typed or raw), or a value marked `#[kernel(grid_constant)]`.
    pub fn is_grid_constant(&self) -> bool {
        self.grid_constant.is_some() || self.is_descriptor()
    }

    /// Whether the parameter is a TMA descriptor: `TensorMap<T, N>`, or the table's raw
    /// `CUtensorMap` (`RawTensorMap`), which a kernel always takes as `const __grid_constant__`.
    pub fn is_descriptor(&self) -> bool {
        tensor_map(&self.ty).is_some()
            || self
                .builtin
                .is_some_and(|t| t.rust == crate::types::TENSOR_MAP[0].rust)
    }
}

/// The built-in type a parameter's type names by path (`f32`, `half::f16`,
/// `cuda_kernel::Float4`), by the table: the one lookup of a parameter's type, made when it is
/// parsed ([`Param::builtin`]).
pub fn builtin_of(ty: &Type) -> Option<&'static crate::types::BuiltinType> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            crate::types::by_rust_path(&crate::text::type_text(ty))
        }
        _ => None,
    }
}

/// Whether a pointer's element `ty` is C's `void` (`c_void` by any path: `core::ffi::c_void`,
/// `cuda_kernel::ffi::c_void`): the pointer is untyped memory, which the launcher takes of any
/// element type.
pub fn is_void(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
    && p.path.segments.last().is_some_and(|last| {
        last.ident == "c_void" && matches!(last.arguments, syn::PathArguments::None)
    }))
}

pub use crate::types::tensor_map;

impl Kernel {
    /// Whether the declaration is generic: one Rust type for many kernels.
    pub fn is_generic(&self) -> bool {
        !self.generics.is_empty()
    }

    /// What `{T}` stands for when the type argument is the built-in `t`: the name
    /// `names(...)` gives it, or its Rust name (`f16`).
    pub fn family_name(&self, t: &crate::types::BuiltinType) -> String {
        self.type_names
            .iter()
            .find(|n| n.builtin().is_some_and(|b| b.rust == t.rust))
            .map_or_else(|| t.name().to_string(), |n| n.name.value())
    }

    /// The C++ function template's arguments in order: `generic` (the declaration's generic
    /// parameters' arguments, in order) with `function`, the device function's, at its place.
    pub fn template_args<A>(&self, generic: Vec<A>, function: Option<A>) -> Vec<A> {
        let mut args = generic;
        if let (Some(f), Some(arg)) = (&self.device_fn, function) {
            args.insert(f.position.min(args.len()), arg);
        }
        args
    }

    /// The parameter types of the device function parameter, as C++ (`None` where one has no
    /// C++ spelling, which the checks report).
    pub fn device_fn_params(&self) -> Option<Vec<crate::cpp::CppType>> {
        self.device_fn
            .as_ref()?
            .params
            .iter()
            .map(|ty| crate::cpp::from_syn(ty, &[]))
            .collect()
    }

    /// Whether the entry symbol is found when the launcher is loaded (from the type arguments
    /// or a name given at run time) rather than fixed by the declaration.
    pub fn symbol_at_load(&self) -> bool {
        self.is_generic() || self.run_time_name.is_some()
    }

    /// Its name as C++ qualifies it: the fn's, in `namespace = "..."` for a `cpp` kernel
    /// (`ns::scale`).
    pub fn cpp_name(&self) -> String {
        cpp_name(&self.ident, self.namespace.as_ref(), self.cpp.is_some())
    }

    /// The names of its type parameters, in order.
    pub fn type_params(&self) -> Vec<String> {
        self.generics
            .iter()
            .filter_map(|g| match g {
                KernelGeneric::Type(ident) => Some(ident.to_string()),
                KernelGeneric::Const { .. } => None,
            })
            .collect()
    }

    /// The generated type's name: `rename = Name`, or the fn's name in UpperCamelCase
    /// (`vector_add` -> `VectorAdd`).
    pub fn type_ident(&self) -> Ident {
        self.type_name.clone()
    }

    /// The generated type's name of a kernel `ident` renamed or not: what
    /// [`type_ident`](Self::type_ident) returns.
    pub fn type_name_of(ident: &Ident, rename: Option<&Ident>) -> Ident {
        if let Some(name) = rename {
            return name.clone();
        }
        Ident::new(&upper_camel_case(&ident.to_string()), ident.span())
    }
}

/// `name` (a C++ identifier) as a Rust identifier: a keyword as a raw identifier (`type` is `r#type`; syn says
/// which words are keywords, `gen` is reserved from edition 2024), and those a raw identifier
/// cannot spell (`self`, `Self`, `super`, `crate`, `_`) with a `_` after them.
pub fn rust_ident(name: &str) -> String {
    // Rust's keywords are lowercase ASCII words of 2 to 8 letters (`Self` apart): any other
    // identifier is one as it is, without asking syn (whose parse costs a build script, in
    // debug, a few microseconds a name).
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let keyword_shaped =
        (2..=8).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_lowercase());
    if plain && !keyword_shaped && name != "Self" && name != "_" {
        return name.to_string();
    }
    if ["self", "Self", "super", "crate", "_"].contains(&name) {
        format!("{name}_")
    } else if name == "gen" || syn::parse_str::<syn::Ident>(name).is_err() {
        format!("r#{name}")
    } else {
        name.to_string()
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
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        // `_` alone, only underscores, or a digit after them (`_2d`): keep something nameable.
        out.insert_str(0, "Kernel");
    }
    out
}

/// A `#[derive(KernelParam)]` struct: what the derive and the build step need of it, checked.
pub struct ParamStruct<'a> {
    /// The struct as written.
    pub input: &'a DeriveInput,
    /// `#[repr(align(N))]`, 1 without.
    pub repr_align: usize,
    /// Its fields, in order.
    pub fields: Vec<Field<'a>>,
    /// Its C++ name: `#[kernel_param(cuda_name = "geo::Pair")]`, or the Rust name.
    pub cuda_name: String,
}

impl ParamStruct<'_> {
    /// The namespaces of its C++ name (`geo` of `geo::Pair`, `a::b` of `a::b::Pair`), empty at
    /// global scope, and the name within them.
    pub fn cuda_scope(&self) -> (&str, &str) {
        match self.cuda_name.rsplit_once("::") {
            Some((namespace, name)) => (namespace, name),
            None => ("", &self.cuda_name),
        }
    }
}

/// A field of a [`ParamStruct`].
pub struct Field<'a> {
    /// How Rust names it.
    pub member: FieldMember,
    /// The field's name in C: its Rust name, or `f0`, `f1`... for a tuple struct.
    pub c_name: String,
    /// Its type as written.
    pub ty: &'a Type,
    /// `[2, 3]` for `[[T; 3]; 2]`.
    pub dims: Vec<&'a Expr>,
}

/// A kernel fn's name as C++ qualifies it: in `namespace` where the kernel is `cpp`
/// (`ns::scale`), else the fn's name without `r#`.
pub fn cpp_name(ident: &Ident, namespace: Option<&LitStr>, cpp: bool) -> String {
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    match namespace {
        Some(ns) if cpp => format!("{}::{name}", ns.value()),
        _ => name,
    }
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
        // A digit after the underscores would begin no identifier.
        assert_eq!(upper_camel_case("_2d"), "Kernel2d");
        assert_eq!(upper_camel_case("_"), "Kernel");
        assert_eq!(upper_camel_case("r#type"), "Type");
    }
}
