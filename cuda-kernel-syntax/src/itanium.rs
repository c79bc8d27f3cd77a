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

pub use crate::cpp::{CppType, INTERNAL, TemplateArg};
use crate::types;
pub use crate::types::fundamental_name;

/// The symbol of `void name(params)`, or of the instance `name<args>` of a function template
/// (whose symbol also encodes the return type, `v`).
///
/// `name` may be qualified by namespaces (`ns::scale`, `cutlass::gemm::kernel`): a nested name
/// (`_ZN2ns5scaleE...`), each enclosing namespace a substitution candidate, as a class type's
/// are, so a parameter of `ns::Pair` in `ns::scale` is `NS_4PairE`.
pub fn mangle(name: &str, template_args: Option<&[TemplateArg]>, params: &[CppType]) -> String {
    let mut subs = Vec::new();
    let segments: Vec<&str> = name.split("::").filter(|s| !s.is_empty()).collect();
    let mut out = match segments.split_last() {
        Some((base, namespaces)) if !namespaces.is_empty() => {
            // The namespaces, each added as a candidate (`2ns`, then `N2ns5innerE`), then the
            // function's own name, which a function template's prefix makes one more.
            let mut out = String::from("_ZN");
            for n in 1..=namespaces.len() {
                out.push_str(&source_name(namespaces[n - 1]));
                subs.push(nested_candidate(&segments[..n]));
            }
            out.push_str(&source_name(base));
            if template_args.is_some() {
                subs.push(nested_candidate(&segments));
            }
            out
        }
        _ => {
            let name = name.trim_start_matches("::");
            if template_args.is_some() {
                // The template's name is the first substitution candidate.
                subs.push(source_name(name));
            }
            format!("_Z{}", source_name(name))
        }
    };
    let nested = out.starts_with("_ZN");
    if let Some(args) = template_args {
        out.push('I');
        for arg in args {
            match arg {
                TemplateArg::Type(ty) => out.push_str(&encode(ty, &mut subs).1),
                TemplateArg::Int { code, value } => out.push_str(&literal(code, *value)),
                TemplateArg::Enum { name, value } => {
                    // The enum's type is encoded as any class type is, a substitution candidate.
                    let ty = encode(&CppType::Named(name.clone()), &mut subs).1;
                    out.push_str(&literal(&ty, *value));
                }
                TemplateArg::Function {
                    name,
                    params,
                    internal,
                } => out.push_str(&function_address(name, params, *internal, &mut subs)),
            }
        }
        out.push('E');
        if nested {
            out.push('E');
        }
        out.push('v');
    } else if nested {
        out.push('E');
    }
    if params.is_empty() {
        out.push('v');
    }
    // `T_`, `T0_`, ... count every template parameter, values too: the i-th type parameter of
    // `<uint32_t vec_size, typename DTypeIn>` is `T0_`.
    let positions: Vec<usize> = template_args
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter_map(|(at, arg)| matches!(arg, TemplateArg::Type(_)).then_some(at))
        .collect();
    for param in params {
        let param = at_positions(param, &positions);
        out.push_str(&encode(&param, &mut subs).1);
    }
    out
}

/// A device function's address as a template argument, `XadL_Z<encoding>EE`: its name (nested
/// in its namespaces, each a substitution candidate, nvcc's internal namespace first for a
/// `static` one) and its parameter types, which join the symbol's candidates (g++ and nvcc
/// agree: `k<ops::neg>(const T*, T*, const float*)` ends `S2_` for the `PKf` of `neg`).
fn function_address(
    name: &str,
    params: &[CppType],
    internal: bool,
    subs: &mut Vec<String>,
) -> String {
    let mut segments: Vec<&str> = Vec::new();
    if internal {
        segments.push(INTERNAL);
    }
    segments.extend(name.split("::").filter(|s| !s.is_empty()));
    let mut out = String::from("XadL_Z");
    if segments.len() <= 1 {
        out.push_str(&source_name(segments.first().copied().unwrap_or_default()));
    } else {
        // The longest prefix seen before is a substitution; the namespaces after it add
        // candidates; the function's own name is none.
        let last = segments.len() - 1;
        let seen = (1..=last).rev().find_map(|n| {
            subs.iter()
                .position(|s| *s == nested_candidate(&segments[..n]))
                .map(|i| (n, i))
        });
        let (mut emitted, start) = match seen {
            Some((n, i)) => (substitution(i), n),
            None => (String::new(), 0),
        };
        for n in start + 1..=last {
            emitted.push_str(&source_name(segments[n - 1]));
            subs.push(nested_candidate(&segments[..n]));
        }
        emitted.push_str(&source_name(segments[last]));
        out.push_str(&format!("N{emitted}E"));
    }
    finish_function(out, params, subs)
}

/// The parameter types of a device function's address, and the `EE` closing it.
fn finish_function(mut out: String, params: &[CppType], subs: &mut Vec<String>) -> String {
    if params.is_empty() {
        out.push('v');
    }
    for param in params {
        out.push_str(&encode(param, subs).1);
    }
    out.push_str("EE");
    out
}

/// `ty` with each type parameter (its index among the type parameters) numbered by its position
/// among all template parameters, which `positions` gives.
fn at_positions(ty: &CppType, positions: &[usize]) -> CppType {
    match ty {
        CppType::Param(i) => CppType::Param(positions.get(*i).copied().unwrap_or(*i)),
        CppType::Pointer { to_const, to } => CppType::Pointer {
            to_const: *to_const,
            to: Box::new(at_positions(to, positions)),
        },
        other => other.clone(),
    }
}

/// `L<type><value>E`, a negative value written `n<magnitude>`.
fn literal(ty: &str, value: i128) -> String {
    match value < 0 {
        true => format!("L{ty}n{}E", value.unsigned_abs()),
        false => format!("L{ty}{value}E"),
    }
}

/// `(full, emitted)`: the spelled-out encoding that identifies the type as a substitution
/// candidate, and what goes into the name (a substitution when it was seen before). Candidates
/// are recorded in the order the Itanium ABI defines: a component before what is built of it.
fn encode(ty: &CppType, subs: &mut Vec<String>) -> (String, String) {
    match ty {
        CppType::Builtin(t) => match t.itanium {
            // Fundamental types are never candidates.
            Some(code) => (code.to_string(), code.to_string()),
            None => encode_name(t.cuda, subs),
        },
        CppType::Named(name) => encode_name(name, subs),
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

/// `<length><identifier>`: `5scale`.
fn source_name(name: &str) -> String {
    format!("{}{name}", name.len())
}

/// How a qualified name's prefix is spelled as a substitution candidate: `2ns` for one segment,
/// `N2ns5innerE` for more (the spelling [`encode_name`] compares with).
fn nested_candidate(segments: &[&str]) -> String {
    let inner: String = segments.iter().map(|s| source_name(s)).collect();
    if segments.len() == 1 {
        inner
    } else {
        format!("N{inner}E")
    }
}

/// A class or enum name, qualified or not: `6__half`, or `N2ns4PairE` for `ns::Pair`, each
/// enclosing namespace a candidate before the name it encloses (`2ns`, then `N2ns4PairE`).
fn encode_name(name: &str, subs: &mut Vec<String>) -> (String, String) {
    let segments: Vec<&str> = name.split("::").filter(|s| !s.is_empty()).collect();
    let source = |s: &str| source_name(s);
    if segments.len() <= 1 {
        let full = source(name.trim_start_matches("::"));
        let emitted = substitute_or_add(&full, &full, subs);
        return (full, emitted);
    }
    // The candidate of each prefix, spelled out: `2ns`, `N2ns4PairE` (a prefix of one segment
    // is its source name, longer ones nested names).
    let spelled = |n: usize| nested_candidate(&segments[..n]);
    let full = spelled(segments.len());
    if let Some(i) = subs.iter().position(|s| *s == full) {
        return (full, substitution(i));
    }
    // The longest prefix seen before is a substitution; the segments after it add candidates.
    let seen = (1..segments.len())
        .rev()
        .find_map(|n| subs.iter().position(|s| *s == spelled(n)).map(|i| (n, i)));
    let (mut emitted, start) = match seen {
        Some((n, i)) => (substitution(i), n),
        None => (String::new(), 0),
    };
    for n in start + 1..=segments.len() {
        emitted.push_str(&source(segments[n - 1]));
        subs.push(spelled(n));
    }
    (full, format!("N{emitted}E"))
}

/// `S_`, `S0_`, `S1_`... for the candidate of this index.
fn substitution(i: usize) -> String {
    if i == 0 {
        "S_".to_string()
    } else {
        format!("S{}_", base36(i - 1))
    }
}

/// `S_`, `S0_`, `S1_`... for a seen candidate; otherwise records it and emits `emitted`.
fn substitute_or_add(full: &str, emitted: &str, subs: &mut Vec<String>) -> String {
    if let Some(i) = subs.iter().position(|s| s == full) {
        return substitution(i);
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
/// `scale<...>`, `_ZN2ns5scaleI` for `ns::scale<...>`): the name, then the template arguments.
pub fn template_instance_prefix(name: &str) -> String {
    let segments: Vec<&str> = name.split("::").filter(|s| !s.is_empty()).collect();
    match segments.len() {
        0 | 1 => format!("_Z{}I", source_name(name.trim_start_matches("::"))),
        _ => {
            let inner: String = segments.iter().map(|s| source_name(s)).collect();
            format!("_ZN{inner}I")
        }
    }
}

/// How nvcc names what has internal linkage in a file (`static __device__` functions, the
/// anonymous namespace): a source name beginning `_INTERNAL_` or `_GLOBAL__N_`.
const INTERNAL_MARKS: [&str; 2] = [INTERNAL, "_GLOBAL__N_"];

/// `text` (a symbol, or PTX) with the parts of nvcc's internal names that change from run to
/// run or from checkout to checkout masked: each source name `<length>_INTERNAL_<hash>_<file>_
/// <hash>[_<counter>]` (and `_GLOBAL__N_...`) becomes `10_INTERNAL_` (`11_GLOBAL__N_`), its
/// length prefix included, since the counter's digits change it. Two PTX files nvcc made of
/// the same source compare equal once masked, and a symbol derived with the bare mark finds
/// the entry whatever the run gave it.
///
/// ```
/// use cuda_kernel_syntax::itanium::without_internal_parts;
/// let run1 = "_Z5applyIXadL_ZN40_INTERNAL_9276699c_5_u4_cu_f863f173_35807op_geluEfEEEvPf";
/// let run2 = "_Z5applyIXadL_ZN41_INTERNAL_9276699c_5_u4_cu_f863f173_102027op_geluEfEEEvPf";
/// assert_eq!(without_internal_parts(run1), without_internal_parts(run2));
/// assert_eq!(
///     without_internal_parts(run1),
///     "_Z5applyIXadL_ZN10_INTERNAL_7op_geluEfEEEvPf"
/// );
/// // Text without internal names is returned as it is.
/// assert_eq!(without_internal_parts("_Z5scaleIfEvPT_S0_j"), "_Z5scaleIfEvPT_S0_j");
/// ```
pub fn without_internal_parts(text: &str) -> std::borrow::Cow<'_, str> {
    match without_nv_static_prefixes(text) {
        std::borrow::Cow::Borrowed(_) => without_internal_names(text),
        std::borrow::Cow::Owned(masked) => {
            std::borrow::Cow::Owned(without_internal_names(&masked).into_owned())
        }
    }
}

/// [`without_internal_parts`] for the source names `_INTERNAL_...` and `_GLOBAL__N_...`.
fn without_internal_names(text: &str) -> std::borrow::Cow<'_, str> {
    if !INTERNAL_MARKS.iter().any(|mark| text.contains(mark)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let Some(mark) = INTERNAL_MARKS
            .iter()
            .find(|mark| bytes[i..].starts_with(mark.as_bytes()))
        else {
            i += 1;
            continue;
        };
        // The length prefix: the digits right before the mark, or (where the name before it
        // ends in digits, as `cuda::std::__4` does) the last of them that the name's own
        // structure confirms.
        let run = bytes[..i]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let length = internal_name_len(text, i, &text[i - run..i]).or_else(|| {
            let n = text[i - run..i].parse::<usize>().ok()?;
            Some((run, n))
        });
        match length.filter(|&(digits, n)| n >= mark.len() && i + n <= bytes.len() && digits > 0) {
            Some((digits, n)) if text.is_char_boundary(i + n) => {
                out.push_str(&text[copied..i - digits]);
                out.push_str(&format!("{}{mark}", mark.len()));
                i += n;
                copied = i;
            }
            _ => i += mark.len(),
        }
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

/// The length of the internal source name at `at` by its structure, `<mark>[_]<hash>_<length>_
/// <file>_<hash>[_<counter>]`, as the digits `prefix` before it give it: (how many of those
/// digits are the length, the length). The counter's digits run into the next name's length
/// prefix (`_97764cuda`), and a name before the mark may end in digits (`__443_GLOBAL__N_`):
/// the one reading whose length the prefix ends in is taken.
fn internal_name_len(text: &str, at: usize, prefix: &str) -> Option<(usize, usize)> {
    let mark = INTERNAL_MARKS
        .iter()
        .find(|m| text[at..].starts_with(**m))?;
    let rest = &text[at + mark.len()..];
    let rest_start = at + mark.len();
    let body = rest.strip_prefix('_').unwrap_or(rest);
    let mut pos = rest_start + (rest.len() - body.len());
    let hex8 = |s: &str| {
        s.get(..8)
            .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    if !hex8(&text[pos..]) {
        return None;
    }
    pos += 8;
    let after = text[pos..].strip_prefix('_')?;
    pos += 1;
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let file_len: usize = after.get(..digits)?.parse().ok()?;
    pos += digits;
    pos += 1 + file_len;
    if text.as_bytes().get(pos - file_len - 1) != Some(&b'_') || !hex8(text.get(pos + 1..)?) {
        return None;
    }
    if text.as_bytes().get(pos) != Some(&b'_') {
        return None;
    }
    pos += 9;
    let base = pos - at;
    // Without a counter, or with each possible count of its digits.
    let counter_digits = match text[pos..].strip_prefix('_') {
        Some(c) => c.bytes().take_while(u8::is_ascii_digit).count(),
        None => 0,
    };
    (0..=counter_digits)
        .map(|k| if k == 0 { base } else { base + 1 + k })
        .find_map(|n| {
            let n_text = n.to_string();
            prefix.ends_with(&n_text).then_some((n_text.len(), n))
        })
}

/// Whether `text` holds any of nvcc's internal names: `_INTERNAL_...`, an anonymous namespace's
/// `_GLOBAL__N_...`, separate compilation's `__nv_static_...`.
pub fn has_internal_parts(text: &str) -> bool {
    ALL_INTERNAL_MARKS.iter().any(|mark| text.contains(mark))
}

/// Every mark of nvcc's internal names: the source names' (`_INTERNAL_`, `_GLOBAL__N_`) and
/// separate compilation's prefix ([`NV_STATIC`]), for what searches bytes rather than text.
pub const ALL_INTERNAL_MARKS: [&str; 3] = [INTERNAL_MARKS[0], INTERNAL_MARKS[1], NV_STATIC];

/// How separate compilation (`nvcc -rdc=true`) names what has internal linkage: a `static
/// __constant__` table, a kernel instance over a `static` device function.
pub const NV_STATIC: &str = "__nv_static_";

/// The prefix `-rdc=true` puts before an internal name, `__nv_static_<length>_<part>_`, the
/// part being `_<hash>_<length>_<file>_<hash>[_<counter>]`, of that length
/// (`__nv_static_28__fcdb68e2_7_main_cu_8cbc7b15_`): its length in `text`, where `text`
/// begins with one.
pub fn nv_static_prefix_len(text: &str) -> Option<usize> {
    let rest = text.strip_prefix(NV_STATIC)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let part: usize = rest.get(..digits)?.parse().ok()?;
    let rest = rest[digits..].strip_prefix('_')?;
    let part_text = rest.get(..part)?;
    if digits == 0 || !part_text.starts_with('_') || !part_text.is_ascii() {
        return None;
    }
    rest[part..].strip_prefix('_')?;
    Some(NV_STATIC.len() + digits + 1 + part + 1)
}

/// `symbol` without separate compilation's internal prefix ([`nv_static_prefix_len`]), where it
/// has one: the C++ symbol of a `static` kernel under `-rdc=true`.
pub fn without_nv_static_prefix(symbol: &str) -> &str {
    match nv_static_prefix_len(symbol) {
        Some(len) => &symbol[len..],
        None => symbol,
    }
}

/// `text` with each `-rdc=true` internal prefix ([`nv_static_prefix_len`]) made the bare mark
/// `__nv_static_`: its counter and the hashes of the source's path change from run to run and
/// from checkout to checkout.
fn without_nv_static_prefixes(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(NV_STATIC) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find(NV_STATIC) {
        out.push_str(&rest[..at]);
        out.push_str(NV_STATIC);
        match nv_static_prefix_len(&rest[at..]) {
            Some(len) => {
                changed = true;
                rest = &rest[at + len..];
            }
            None => rest = &rest[at + NV_STATIC.len()..],
        }
    }
    out.push_str(rest);
    match changed {
        true => std::borrow::Cow::Owned(out),
        false => std::borrow::Cow::Borrowed(text),
    }
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
    fn internal_names_after_a_name_ending_in_digits_are_masked_by_their_structure() {
        // `cuda::std::__4` before the anonymous namespace: `__4` then `43_GLOBAL__N_...`.
        let run1 = "_ZN41_INTERNAL_80555ab2_6_sum_cu_6c404083_97764cuda3std3__443_GLOBAL__N__80555ab2_6_sum_cu_6c404083_97766ignoreE";
        let run2 = "_ZN42_INTERNAL_80555ab2_6_sum_cu_6c404083_217294cuda3std3__444_GLOBAL__N__80555ab2_6_sum_cu_6c404083_217296ignoreE";
        assert_eq!(without_internal_parts(run1), without_internal_parts(run2));
        assert_eq!(
            without_internal_parts(run1),
            "_ZN10_INTERNAL_4cuda3std3__411_GLOBAL__N_6ignoreE"
        );
    }

    #[test]
    fn separate_compilations_internal_prefixes_are_masked() {
        let run1 = "__nv_static_28__fcdb68e2_7_main_cu_8cbc7b15__Z5k_binIXadL_ZN37_INTERNAL_fcdb68e2_7_main_cu_8cbc7b159op_repeatEffEEfJEEvPKT0_PS1_iDpT1_";
        let run2 = "__nv_static_33__c4f579e8_7_main_cu_8cbc7b15_8696__Z5k_binIXadL_ZN37_INTERNAL_c4f579e8_7_main_cu_8cbc7b159op_repeatEffEEfJEEvPKT0_PS1_iDpT1_";
        assert_eq!(without_internal_parts(run1), without_internal_parts(run2));
        assert_eq!(
            without_internal_parts(run1),
            "__nv_static__Z5k_binIXadL_ZN10_INTERNAL_9op_repeatEffEEfJEEvPKT0_PS1_iDpT1_"
        );
        let table = ".const .align 4 .b8 __nv_static_28__fcdb68e2_7_main_cu_8cbc7b15_NF4_LUT[16];";
        assert_eq!(
            without_internal_parts(table),
            ".const .align 4 .b8 __nv_static_NF4_LUT[16];"
        );
        assert_eq!(nv_static_prefix_len("__nv_static_x"), None);
        assert_eq!(nv_static_prefix_len("__nv_static_99__ab"), None);
        // A static kernel of a file whose internal names carry a counter.
        let kernel = "__nv_static_32__a7ac0bb9_5_st_cu_26cfd759_13155__Z3fooPf";
        assert_eq!(&kernel[nv_static_prefix_len(kernel).unwrap()..], "_Z3fooPf");
    }

    #[test]
    fn device_functions_as_template_arguments_mangle_as_gxx_and_nvcc_do() {
        let function = |name: &str, params: &[&str], internal: bool| TemplateArg::Function {
            name: name.to_string(),
            params: params.iter().map(|p| ty(p)).collect(),
            internal,
        };
        let f = TemplateArg::Type(ty("f32"));
        // g++ 12: template <float (*op)(const float*), typename T> void k(const T*, T*, const float*)
        assert_eq!(
            mangle(
                "k",
                Some(&[function("ops::neg", &["*const f32"], false), f.clone()]),
                &[ty("*const T"), ty("*mut T"), ty("*const f32")]
            ),
            "_Z1kIXadL_ZN3ops3negEPKfEEfEvPKT0_PS3_S2_"
        );
        assert_eq!(
            mangle(
                "k2",
                Some(&[
                    function("ops::in::twice", &["f32", "i32"], false),
                    TemplateArg::Type(ty("f64"))
                ]),
                &[ty("*const T"), ty("*mut f32")]
            ),
            "_Z2k2IXadL_ZN3ops2in5twiceEfiEEdEvPKT0_Pf"
        );
        let int = TemplateArg::Type(ty("i32"));
        assert_eq!(
            mangle(
                "k3",
                Some(&[int, function("ext", &["f32"], false)]),
                &[ty("*mut T")]
            ),
            "_Z2k3IiXadL_Z3extfEEEvPT_"
        );
        assert_eq!(
            mangle(
                "ops::k4",
                Some(&[function("ext", &["f32"], false)]),
                &[ty("*mut f32")]
            ),
            "_ZN3ops2k4IXadL_Z3extfEEEEvPf"
        );
        // A function of the kernel's own namespace: `ops` is a substitution by then.
        assert_eq!(
            mangle(
                "ops::k5",
                Some(&[function("ops::neg", &["f32"], false)]),
                &[ty("*mut f32")]
            ),
            "_ZN3ops2k5IXadL_ZNS_3negEfEEEEvPf"
        );
        // nvcc 13.0: unary_op_kernel<op, T>(const T*, T*, int), op external, namespaced, static.
        let params = [ty("*const T"), ty("*mut T"), ty("i32")];
        assert_eq!(
            mangle(
                "unary_op_kernel",
                Some(&[function("op_ext", &["f32"], false), f.clone()]),
                &params
            ),
            "_Z15unary_op_kernelIXadL_Z6op_extfEEfEvPKT0_PS0_i"
        );
        assert_eq!(
            mangle(
                "unary_op_kernel",
                Some(&[
                    function("ops::neg", &["f32"], false),
                    TemplateArg::Type(ty("f64"))
                ]),
                &params
            ),
            "_Z15unary_op_kernelIXadL_ZN3ops3negEfEEdEvPKT0_PS1_i"
        );
        let nvcc = "_Z15unary_op_kernelIXadL_ZN38_INTERNAL_34804504_8_unary_cu_7a4c0b307op_geluEfEEfEvPKT0_PS1_i";
        let derived = mangle(
            "unary_op_kernel",
            Some(&[function("op_gelu", &["f32"], true), f]),
            &params,
        );
        assert_eq!(without_internal_parts(nvcc), derived);
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
            ("half::bf16", "__nv_bfloat16"),
            // Namespaced structs, which a Rust path does not name: read from their C++ spelling.
            ("", "ns::Pair*"),
            ("", "ns::inner::Deep const*"),
        ];
        // (C++ spelling, the argument as a KernelParam's CUDA_TYPE gives it) of type arguments.
        let args: &[(&str, CppType)] = &[
            ("float", CppType::from_cuda("float", 0, 0)),
            ("int", CppType::from_cuda("int", 0, 0)),
            ("unsigned char", CppType::from_cuda("unsigned char", 0, 0)),
            ("double", CppType::from_cuda("double", 0, 0)),
            ("float4", CppType::from_cuda("float4", 0, 0)),
            ("__half", CppType::from_cuda("__half", 0, 0)),
            ("__nv_bfloat16", CppType::from_cuda("__nv_bfloat16", 0, 0)),
            ("__nv_fp8_e4m3", CppType::from_cuda("__nv_fp8_e4m3", 0, 0)),
            ("Particle", CppType::from_cuda("Particle", 0, 0)),
            ("ns::Pair", CppType::from_cuda("ns::Pair", 0, 0)),
            (
                "ns::inner::Deep",
                CppType::from_cuda("ns::inner::Deep", 0, 0),
            ),
            ("float*", CppType::from_cuda("float", 1, 0)),
            ("float const*", CppType::from_cuda("float", 1, 1)),
            ("ns::Pair* const*", CppType::from_cuda("ns::Pair", 2, 2)),
            ("size_t", CppType::from_cuda("size_t", 0, 0)),
        ];
        // (C++ parameter declaration, C++ spelling of a value, the argument) of value parameters.
        let values = |v: i128| -> Vec<(&'static str, String, TemplateArg)> {
            vec![
                (
                    "int",
                    v.to_string(),
                    TemplateArg::Int {
                        code: "i",
                        value: v,
                    },
                ),
                (
                    "bool",
                    (v % 2 != 0).to_string(),
                    TemplateArg::Int {
                        code: "b",
                        value: (v % 2 != 0) as i128,
                    },
                ),
                (
                    "char",
                    format!("(char){}", v.rem_euclid(100)),
                    TemplateArg::Int {
                        code: "c",
                        value: v.rem_euclid(100),
                    },
                ),
                (
                    "unsigned long long",
                    format!("{}ull", v.abs()),
                    TemplateArg::Int {
                        code: "y",
                        value: v.abs(),
                    },
                ),
                (
                    "short",
                    v.to_string(),
                    TemplateArg::Int {
                        code: "s",
                        value: v,
                    },
                ),
                (
                    "Mode",
                    format!("(Mode){}", v.rem_euclid(3)),
                    TemplateArg::Enum {
                        name: "Mode".into(),
                        value: v.rem_euclid(3),
                    },
                ),
                (
                    "ns::Kind",
                    format!("(ns::Kind){}", v.rem_euclid(2)),
                    TemplateArg::Enum {
                        name: "ns::Kind".into(),
                        value: v.rem_euclid(2),
                    },
                ),
            ]
        };
        let mut next = crate::test_rng(0x7e3f_u64);
        let mut cpp = String::from(
            "struct float4 { float x, y, z, w; }; struct __half { unsigned short x; };\n\
             struct __nv_bfloat16 { unsigned short x; }; struct __nv_fp8_e4m3 { unsigned char x; };\n\
             struct Particle { int a; }; enum Mode { M0, M1, M2 };\n\
             namespace ns { struct Pair { int a; }; enum class Kind { A, B };\n\
             namespace inner { struct Deep { int d; }; } }\n\
             typedef unsigned long size_t;\n",
        );
        let mut expected = Vec::new();
        for k in 0..400 {
            let type_params = 1 + next(3);
            let value_params = next(3);
            let generics: Vec<&str> = ["T", "U", "V"][..type_params].to_vec();
            let params: Vec<(&str, &str)> = (0..next(7))
                .map(|_| pool[next(pool.len())])
                .filter(|(rust, _)| type_params >= 2 || !rust.contains('U'))
                .collect();
            let chosen: Vec<&(&str, CppType)> =
                (0..type_params).map(|_| &args[next(args.len())]).collect();
            let chosen_values: Vec<_> = (0..value_params)
                .map(|_| {
                    let all = values(next(200) as i128 - 60);
                    all[next(all.len())].clone()
                })
                .collect();
            // In a namespace or not, as real code keeps its kernels.
            let namespace = ["", "ns", "ns::inner", "other", "a::b::c"][next(5)];
            let name = match namespace {
                "" => format!("k{k}"),
                ns => format!("{ns}::k{k}"),
            };
            // Value parameters after the type parameters, or before them, as flashinfer's
            // `template <uint32_t vec_size, ..., typename DTypeIn, ...>` has them (its type
            // parameters are then `T3_` and on).
            let values_first = next(2) == 1;
            let mut targs: Vec<TemplateArg> = chosen
                .iter()
                .map(|(_, ty)| TemplateArg::Type(ty.clone()))
                .collect();
            let value_args = chosen_values.iter().map(|(_, _, arg)| arg.clone());
            match values_first {
                true => targs.splice(0..0, value_args).for_each(drop),
                false => targs.extend(value_args),
            }
            let cpp_params: Vec<CppType> = params
                .iter()
                .map(|(rust, c)| match rust.is_empty() {
                    true => CppType::from_cpp(c).unwrap(),
                    false => CppType::from_rust(rust, &generics).unwrap(),
                })
                .collect();
            expected.push(mangle(&name, Some(&targs), &cpp_params));
            let mut head: Vec<String> = generics.iter().map(|g| format!("typename {g}")).collect();
            let mut inst: Vec<String> = chosen.iter().map(|(c, _)| c.to_string()).collect();
            let at = |len: usize| if values_first { 0..0 } else { len..len };
            let value_heads = chosen_values
                .iter()
                .enumerate()
                .map(|(i, (decl, _, _))| format!("{decl} N{i}"));
            head.splice(at(head.len()), value_heads).for_each(drop);
            let value_insts = chosen_values.iter().map(|(_, value, _)| value.clone());
            inst.splice(at(inst.len()), value_insts).for_each(drop);
            let c_params: Vec<&str> = params.iter().map(|(_, c)| *c).collect();
            let spelled: Vec<&str> = chosen.iter().map(|(c, _)| *c).collect();
            let (open, close) = match namespace {
                "" => (String::new(), String::new()),
                ns => (format!("namespace {ns} {{ "), "}\n".to_string()),
            };
            cpp.push_str(&format!(
                "{open}template <{}> void k{k}({}) {{}}\n{close}template void {name}<{}>({});\n",
                head.join(", "),
                c_params.join(", "),
                inst.join(", "),
                c_params
                    .iter()
                    .map(|c| substitute(c, &spelled))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        // Plain functions in namespaces, of the same parameters.
        for k in 0..100 {
            let namespace = ["ns", "ns::inner", "other", "a::b::c"][next(4)];
            let params: Vec<(&str, &str)> = (0..next(6))
                .map(|_| pool[next(pool.len())])
                .filter(|(rust, _)| !["T", "U", "V"].iter().any(|g| rust.contains(g)))
                .collect();
            let cpp_params: Vec<CppType> = params
                .iter()
                .map(|(rust, c)| match rust.is_empty() {
                    true => CppType::from_cpp(c).unwrap(),
                    false => CppType::from_rust(rust, &[]).unwrap(),
                })
                .collect();
            expected.push(mangle(&format!("{namespace}::f{k}"), None, &cpp_params));
            let c_params: Vec<&str> = params.iter().map(|(_, c)| *c).collect();
            cpp.push_str(&format!(
                "namespace {namespace} {{ void f{k}({}) {{}} }}\n",
                c_params.join(", ")
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
    fn substitute(c: &str, chosen: &[&str]) -> String {
        let mut out = String::new();
        for word in c.split_inclusive(|ch: char| !ch.is_alphanumeric() && ch != '_') {
            let (name, rest) = word.split_at(
                word.trim_end_matches(|ch: char| !ch.is_alphanumeric() && ch != '_')
                    .len(),
            );
            match name {
                "T" => out.push_str(&format!("{}{rest}", chosen[0])),
                "U" => out.push_str(&format!("{}{rest}", chosen[1])),
                "V" => out.push_str(&format!("{}{rest}", chosen[2])),
                _ => out.push_str(word),
            }
        }
        out
    }
}
