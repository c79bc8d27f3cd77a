//! Itanium C++ mangling of kernel symbols: plain functions, template instances (type and
//! non-type arguments) and the substitutions that tie them together. The macro mangles
//! `#[kernel(cpp)]` declarations with it at compile time, the runtime mangles template
//! instances (`Reduce0::<f32>`) with it at load time.
//!
//! ```
//! use cuda_kernel_syntax::itanium::{CppType, TemplateArg, mangle};
//! // template <typename T> __global__ void reduce0(T*, T*, unsigned int), for T = float
//! let t_ptr = CppType::from_rust("*mut T", &["T"]).unwrap();
//! let n = CppType::from_rust("u32", &["T"]).unwrap();
//! let float = CppType::from_rust("f32", &[]).unwrap();
//! let symbol = mangle("reduce0", Some(&[TemplateArg::Type(float)]), &[t_ptr.clone(), t_ptr, n]);
//! assert_eq!(symbol, "_Z7reduce0IfEvPT_S1_j");
//! ```

use crate::types;

/// A C++ parameter type as mangling sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CppType {
    /// A fundamental type, by its code (`f` for `float`).
    Builtin(&'static str),
    /// A class type, by its name (`float4`, `__half`, a struct's name).
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
    /// An integral constant (`matrixMulCUDA<32>`): the code of its type and its value.
    Int {
        /// The fundamental type's code (`i` for `int`).
        code: &'static str,
        /// The value.
        value: i128,
    },
}

impl CppType {
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
        if text.is_empty()
            || !text
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
        {
            return None;
        }
        Some(CppType::from_path_name(
            text.rsplit("::").next()?.trim_start_matches("r#"),
            generics,
        ))
    }

    /// The type a Rust path ending in `name` stands for (`f32`, `Float4`, `size_t`, a template
    /// parameter among `generics`, a struct).
    pub fn from_path_name(name: &str, generics: &[&str]) -> CppType {
        if let Some(i) = generics.iter().position(|g| *g == name) {
            return CppType::Param(i);
        }
        match types::by_name(name) {
            Some(t) => match t.itanium {
                Some(code) => CppType::Builtin(code),
                None => CppType::Named(t.cuda.to_string()),
            },
            None => CppType::Named(name.to_string()),
        }
    }

    /// The type CUDA C spells `name` followed by `pointers` `*`s (a `KernelParam`'s
    /// `CUDA_TYPE`), as a template argument: `float` is `f`, `float4` a class type.
    pub fn from_cuda(name: &str, pointers: u8) -> CppType {
        let mut ty = match types::by_cuda_name(name).and_then(|t| t.itanium) {
            Some(code) => CppType::Builtin(code),
            None => CppType::Named(name.to_string()),
        };
        for _ in 0..pointers {
            ty = CppType::Pointer {
                to_const: false,
                to: Box::new(ty),
            };
        }
        ty
    }
}

/// The symbol of `void name(params)`, or of the instance `name<args>` of a function template
/// (whose symbol also encodes the return type, `v`).
pub fn mangle(name: &str, template_args: Option<&[TemplateArg]>, params: &[CppType]) -> String {
    let mut out = format!("_Z{}{}", name.len(), name);
    let mut subs = Vec::new();
    if let Some(args) = template_args {
        // The template's name is the first substitution candidate.
        subs.push(format!("{}{}", name.len(), name));
        out.push('I');
        for arg in args {
            match arg {
                TemplateArg::Type(ty) => out.push_str(&encode(ty, &mut subs).1),
                TemplateArg::Int { code, value } if *value < 0 => {
                    out.push_str(&format!("L{code}n{}E", value.unsigned_abs()))
                }
                TemplateArg::Int { code, value } => out.push_str(&format!("L{code}{value}E")),
            }
        }
        out.push_str("Ev");
    }
    if params.is_empty() {
        out.push('v');
    }
    for param in params {
        out.push_str(&encode(param, &mut subs).1);
    }
    out
}

/// `(full, emitted)`: the spelled-out encoding that identifies the type as a substitution
/// candidate, and what goes into the name (a substitution when it was seen before). Candidates
/// are recorded in the order the Itanium ABI defines: a component before what is built of it.
fn encode(ty: &CppType, subs: &mut Vec<String>) -> (String, String) {
    match ty {
        // Fundamental types are never candidates.
        CppType::Builtin(code) => (code.to_string(), code.to_string()),
        CppType::Named(name) => {
            let full = format!("{}{}", name.len(), name);
            let emitted = substitute_or_add(&full, &full, subs);
            (full, emitted)
        }
        CppType::Param(i) => {
            let full = match i {
                0 => "T_".to_string(),
                i => format!("T{}_", i - 1),
            };
            let emitted = substitute_or_add(&full, &full, subs);
            (full, emitted)
        }
        CppType::Pointer { to_const, to } => {
            let (inner_full, inner_emitted) = encode(to, subs);
            let (qualified_full, qualified_emitted) = if *to_const {
                let full = format!("K{inner_full}");
                let emitted = substitute_or_add(&full, &format!("K{inner_emitted}"), subs);
                (full, emitted)
            } else {
                (inner_full, inner_emitted)
            };
            let full = format!("P{qualified_full}");
            let emitted = substitute_or_add(&full, &format!("P{qualified_emitted}"), subs);
            (full, emitted)
        }
    }
}

/// `S_`, `S0_`, `S1_`... for a seen candidate; otherwise records it and emits `emitted`.
fn substitute_or_add(full: &str, emitted: &str, subs: &mut Vec<String>) -> String {
    if let Some(i) = subs.iter().position(|s| s == full) {
        return if i == 0 {
            "S_".to_string()
        } else {
            format!("S{}_", base36(i - 1))
        };
    }
    subs.push(full.to_string());
    emitted.to_string()
}

fn base36(mut n: usize) -> String {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[n % 36]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The C++ name of a fundamental type's code (`j` is `unsigned int`), as demanglers write it.
pub fn fundamental_name(code: &str) -> &'static str {
    match code {
        "v" => "void",
        "b" => "bool",
        "c" => "char",
        "a" => "signed char",
        "h" => "unsigned char",
        "s" => "short",
        "t" => "unsigned short",
        "i" => "int",
        "j" => "unsigned int",
        "l" => "long",
        "m" => "unsigned long",
        "x" => "long long",
        "y" => "unsigned long long",
        "f" => "float",
        "d" => "double",
        _ => "?",
    }
}

/// The symbol a dtype family's member has: `pattern` with `{T}` (or `{NAME}` of another type
/// parameter) replaced by the type's name as a Rust declaration writes it (`affine_{T}` with
/// `half::f16` is `affine_f16`), and `{N}` of a const parameter by its value; placeholders
/// without a substitution stay (the one [`pattern`](crate::pattern) rule for patterns).
pub fn family_symbol(pattern: &str, substitutions: &[(&str, String)]) -> String {
    let values: Vec<(&str, &str)> = substitutions
        .iter()
        .map(|(param, value)| (*param, value.as_str()))
        .collect();
    crate::pattern::substitute(pattern, &values)
}

/// How the symbol of every instance of the function template `name` begins (`_Z5scaleI` for
/// `scale<...>`): the name, then the template arguments.
pub fn template_instance_prefix(name: &str) -> String {
    format!("_Z{}{name}I", name.len())
}

/// The name `{T}` stands for in a family's symbol: the Rust name of a built-in type (`f16`,
/// `u32`, `Float4`) whose CUDA spelling is `cuda_name`, or the struct's own name.
pub fn family_name(cuda_name: &str) -> String {
    match types::by_cuda_name(cuda_name) {
        Some(t) => t.name().to_string(),
        None => cuda_name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> CppType {
        CppType::from_rust(text, &["T", "U"]).unwrap()
    }

    #[test]
    fn matches_symbols_nvcc_emitted() {
        let f = TemplateArg::Type(ty("f32"));
        let d = TemplateArg::Type(ty("f64"));
        // kernels/ptx/cxx_fixtures.ptx: scale<float>(T*, T, unsigned), scale<double>.
        let params = [ty("*mut T"), ty("T"), ty("u32")];
        assert_eq!(mangle("scale", Some(&[f]), &params), "_Z5scaleIfEvPT_S0_j");
        assert_eq!(mangle("scale", Some(&[d]), &params), "_Z5scaleIdEvPT_S0_j");
        // cuda-samples matrixMul: template <int BLOCK_SIZE> (float*, float*, float*, int, int)
        let block = TemplateArg::Int {
            code: "i",
            value: 32,
        };
        let params = [
            ty("*mut f32"),
            ty("*mut f32"),
            ty("*mut f32"),
            ty("i32"),
            ty("i32"),
        ];
        assert_eq!(
            mangle("matrixMulCUDA", Some(&[block]), &params),
            "_Z13matrixMulCUDAILi32EEvPfS0_S0_ii"
        );
        assert_eq!(
            mangle(
                "saxpy",
                None,
                &[ty("*const f32"), ty("*mut f32"), ty("f32"), ty("i32")]
            ),
            "_Z5saxpyPKfPffi"
        );
    }

    #[test]
    fn families_name_members_by_rust_names() {
        assert_eq!(family_name("__half"), "f16");
        assert_eq!(family_name("unsigned int"), "u32");
        assert_eq!(family_name("Particle"), "Particle");
        assert_eq!(
            family_symbol("affine_{T}", &[("T", family_name("__nv_bfloat16"))]),
            "affine_bf16"
        );
    }

    #[test]
    fn template_instances_match_gxx_on_random_signatures() {
        // (Rust spelling, C++ spelling) of parameter types; T and U are the type parameters, and
        // `const` goes after what it qualifies, so that substituting `float*` for T stays right.
        let pool: &[(&str, &str)] = &[
            ("T", "T"),
            ("*mut T", "T*"),
            ("*const T", "T const*"),
            ("U", "U"),
            ("*mut U", "U*"),
            ("*const *mut T", "T* const*"),
            ("u32", "unsigned int"),
            ("i32", "int"),
            ("f32", "float"),
            ("*const f32", "float const*"),
            ("Float4", "float4"),
            ("*mut Float4", "float4*"),
            ("ffi::size_t", "unsigned long"),
            ("Particle", "Particle"),
            ("*const Particle", "Particle const*"),
        ];
        // (C++ spelling, what a KernelParam's CUDA_TYPE names) of template arguments.
        let args: &[(&str, &str, u8)] = &[
            ("float", "float", 0),
            ("int", "int", 0),
            ("unsigned char", "unsigned char", 0),
            ("double", "double", 0),
            ("float4", "float4", 0),
            ("__half", "__half", 0),
            ("Particle", "Particle", 0),
            ("float*", "float", 1),
        ];
        let mut next = crate::test_rng(0x7e3f_u64);
        let mut cpp = String::from(
            "struct float4 { float x, y, z, w; }; struct __half { unsigned short x; };\n\
             struct Particle { int a; };\n",
        );
        let mut expected = Vec::new();
        for k in 0..240 {
            let type_params = 1 + next(2);
            let with_int = next(3) == 0;
            let generics: Vec<&str> = ["T", "U"][..type_params].to_vec();
            let params: Vec<(&str, &str)> = (0..next(7))
                .map(|_| pool[next(pool.len())])
                .filter(|(rust, _)| type_params == 2 || !rust.contains('U'))
                .collect();
            let chosen: Vec<_> = (0..type_params).map(|_| args[next(args.len())]).collect();
            let value = next(200) as i128 - 60;
            let name = format!("k{k}");
            let mut targs: Vec<TemplateArg> = chosen
                .iter()
                .map(|(_, cuda, ptrs)| TemplateArg::Type(CppType::from_cuda(cuda, *ptrs)))
                .collect();
            if with_int {
                targs.push(TemplateArg::Int { code: "i", value });
            }
            let cpp_params: Vec<CppType> = params
                .iter()
                .map(|(rust, _)| CppType::from_rust(rust, &generics).unwrap())
                .collect();
            expected.push(mangle(&name, Some(&targs), &cpp_params));
            let mut head: Vec<String> = generics.iter().map(|g| format!("typename {g}")).collect();
            let mut inst: Vec<String> = chosen.iter().map(|(c, ..)| c.to_string()).collect();
            if with_int {
                head.push("int N".to_string());
                inst.push(format!("{value}"));
            }
            let c_params: Vec<&str> = params.iter().map(|(_, c)| *c).collect();
            cpp.push_str(&format!(
                "template <{}> void {name}({}) {{}}\ntemplate void {name}<{}>({});\n",
                head.join(", "),
                c_params.join(", "),
                inst.join(", "),
                c_params
                    .iter()
                    .map(|c| substitute(c, &chosen))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let symbols = crate::gxx_symbols(&cpp);
        for symbol in &expected {
            assert!(
                symbols.lines().any(|l| l.ends_with(&format!(" {symbol}"))),
                "g++ has no symbol {symbol}; it has:\n{symbols}"
            );
        }
    }

    /// A C++ parameter type with the template's type parameters replaced by their arguments.
    fn substitute(c: &str, chosen: &[(&str, &str, u8)]) -> String {
        let mut out = String::new();
        for word in c.split_inclusive(|ch: char| !ch.is_alphanumeric() && ch != '_') {
            let (name, rest) = word.split_at(
                word.trim_end_matches(|ch: char| !ch.is_alphanumeric() && ch != '_')
                    .len(),
            );
            match name {
                "T" => out.push_str(&format!("{}{rest}", chosen[0].0)),
                "U" => out.push_str(&format!("{}{rest}", chosen[1].0)),
                _ => out.push_str(word),
            }
        }
        out
    }
}
