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
    // Separate compilation's internal prefix (`__nv_static_28__<hash>_7_main_cu_<hash>_`)
    // before a C++ symbol: the symbol names the kernel.
    let symbol = match crate::itanium::nv_static_prefix_len(symbol) {
        Some(len) => &symbol[len..],
        None => symbol,
    };
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
    let text = declarators_after_member_names(&text);
    Some(text.strip_prefix("void ").unwrap_or(&text).to_string())
}

/// How many pointers deep a function pointer type is, as the demangler writes it: 1 for
/// `float (*)(float)`, 2 for `float (**)(float)` or `float (* const*)(float)`; `None` for
/// another type.
///
/// ```
/// use cuda_kernel_syntax::demangle;
/// let types = demangle::param_types("_Z8apply_fnPKfPfPFffEj").unwrap();
/// assert_eq!(demangle::function_pointer_levels(&types[2]), Some(1));
/// assert_eq!(demangle::function_pointer_levels(&types[0]), None);
/// ```
pub fn function_pointer_levels(ty: &str) -> Option<usize> {
    let open = ty.find("(*")?;
    let close = open + ty[open..].find(")(")?;
    let declarator = &ty[open + 1..close];
    let only_pointers = declarator
        .replace("const", "")
        .replace("volatile", "")
        .chars()
        .all(|c| c == '*' || c == ' ');
    only_pointers.then(|| declarator.matches('*').count())
}

/// A member type of a template parameter written as C++ writes it. In a function named in a
/// namespace (`_ZN3psz1fI...EEvPNT0_2EqE`), the demangler writes the declarator that applies
/// to `T0_::Eq` after `T0_`'s argument, inside the name: `psz::Config<float>*::Eq`,
/// `A const::Eq*` (c++filt: `psz::Config<float>::Eq*`, `A::Eq const*`). A declarator (`*`, `&`,
/// `const`, `volatile`) never qualifies a name in C++, so one before `::` is moved after the
/// qualified name it interrupts.
fn declarators_after_member_names(text: &str) -> String {
    let mut out = text.to_string();
    let mut from = 0;
    while let Some(found) = out[from..].find("::") {
        let at = from + found;
        // The run of declarators that ends where `::` begins.
        let mut start = at;
        loop {
            let head = &out[..start];
            if head.ends_with('*') || head.ends_with('&') {
                start -= 1;
            } else if head.ends_with(" const") {
                start -= " const".len();
            } else if head.ends_with(" volatile") {
                start -= " volatile".len();
            } else {
                break;
            }
        }
        // The qualified name after it: `::Eq`, `::B::C`, `::B<int>`.
        let mut end = at;
        while out[end..].starts_with("::") {
            let name = out[end + 2..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            if name == 0 {
                break;
            }
            let mut next = end + 2 + name;
            if out[next..].starts_with('<') {
                match closing_angle(&out[next..]) {
                    Some(close) => next += close + 1,
                    None => break,
                }
            }
            end = next;
        }
        if start == at || end == at {
            from = at + 2;
            continue;
        }
        let moved = format!("{}{}", &out[at..end], &out[start..at]);
        out.replace_range(start..end, &moved);
        from = start;
    }
    out
}

/// Where the template argument list that `text` opens with `<` closes.
fn closing_angle(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
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
    let open = param_list_start(&text)?;
    let inner = text[open + 1..].strip_suffix(')')?;
    // An empty pack leaves an empty item (`pack<>(float*, )`).
    let mut types = crate::cpp::split_list(inner);
    types.retain(|t| !t.is_empty());
    Some(types)
}

/// Where the parameter list of a demangled function begins: the `(` that the final `)` closes,
/// found by structure, so that a template argument written as a cast (`ReduceOp<(Kind)1,
/// float>`) or a function pointer type among the parameters is not taken for it.
fn param_list_start(text: &str) -> Option<usize> {
    if !text.ends_with(')') {
        return None;
    }
    let mut depth = 0i32;
    for (i, c) in text.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The kernel a symbol names as its author writes it, without the parameter list: the
/// qualified name and template arguments, with nothing of nvcc's run-dependent internal names
/// (a `static __device__` function as a template argument is its name, `op_repeat`, not
/// `&_INTERNAL_fcdb68e2_7_main_cu_8cbc7b15::op_repeat(float, float)`; an empty pack leaves no
/// comma). `#[kernel(name = "...")]` takes this spelling, and the build step writes it.
///
/// ```
/// use cuda_kernel_syntax::demangle;
/// let run = "_Z5k_binIXadL_ZN37_INTERNAL_fcdb68e2_7_main_cu_8cbc7b159op_repeatEffEEfJEEvPKT0_PS1_iDpT1_";
/// assert_eq!(demangle::instance_name(run).unwrap(), "k_bin<op_repeat, float>");
/// assert_eq!(
///     demangle::instance_name("_ZN12_GLOBAL__N_14fillEPfi").unwrap(),
///     "(anonymous namespace)::fill"
/// );
/// assert_eq!(demangle::instance_name("_Z5scaleILi128EEvPf").unwrap(), "scale<128>");
/// assert_eq!(demangle::instance_name("vector_add"), None);
/// ```
pub fn instance_name(symbol: &str) -> Option<String> {
    let text = demangle(symbol)?;
    let head = match param_list_start(&text) {
        Some(open) => &text[..open],
        None => &text,
    };
    Some(user_spelling(head))
}

/// `symbol` as its author writes the kernel, with its parameter list and nothing of nvcc's
/// internal names (`k_bin<op_repeat, float>(float const*, float*, int)`): for doc lines that
/// stay the same from one nvcc run to the next. A name that does not demangle is returned as
/// it is.
pub fn written(symbol: &str) -> String {
    match (instance_name(symbol), param_types(symbol)) {
        (Some(name), Some(params)) => for_messages(&format!("{name}({})", params.join(", "))),
        _ => shown(symbol),
    }
}

/// Demangled C++ as its author writes it: nvcc's internal namespaces dropped
/// (`_INTERNAL_<hash>_<file>_<hash>::`), a function as a template argument by its name
/// (`&ns::f(float)` is `ns::f`), an empty pack's dangling comma removed.
fn user_spelling(text: &str) -> String {
    // The internal namespaces: `_INTERNAL_...::`, up to the next `::`.
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(crate::cpp::INTERNAL) {
        let starts_segment = at == 0 || !is_name_char(rest.as_bytes()[at - 1] as char);
        match rest[at..].find("::").filter(|_| starts_segment) {
            Some(end) => {
                out.push_str(&rest[..at]);
                rest = &rest[at + end + 2..];
            }
            None => {
                let cut = at + crate::cpp::INTERNAL.len();
                out.push_str(&rest[..cut]);
                rest = &rest[cut..];
            }
        }
    }
    out.push_str(rest);
    // Functions as template arguments: `&name(params)` after `<` or `, ` is `name`, and a
    // function template's instance, which the demangler writes with its return type
    // (`&void cpy_1<float, float>(char const*, char*)`), is `cpy_1<float, float>`.
    let mut text = String::with_capacity(out.len());
    let chars: Vec<char> = out.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at_arg = matches!(text.trim_end().chars().last(), Some('<' | ','));
        if c == '&' && at_arg {
            if let Some((name, next)) = function_argument(&chars, i + 1) {
                text.push_str(&name);
                i = next;
                continue;
            }
        }
        text.push(c);
        i += 1;
    }
    text.replace(", >", ">").replace(",>", ">")
}

/// A function as a template argument from `start` (after its `&`): its name as C++ writes it,
/// without the return type and parameter list the demangler gives it, and where the argument
/// ends; `None` where no parameter list follows a name.
fn function_argument(chars: &[char], start: usize) -> Option<(String, usize)> {
    // The name runs to the `(` at depth 0 of `<>`; a space at depth 0 ends a return type.
    let mut depth = 0i32;
    let mut name_start = start;
    let mut open = None;
    for (j, &c) in chars.iter().enumerate().skip(start) {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ' ' if depth == 0 => name_start = j + 1,
            '(' if depth == 0 => {
                open = Some(j);
                break;
            }
            ',' | ')' if depth == 0 => return None,
            _ => {}
        }
    }
    let open = open?;
    let name: String = chars[name_start..open].iter().collect();
    if name.is_empty()
        || !name
            .chars()
            .next()
            .is_some_and(|c| is_name_char(c) || c == ':')
    {
        return None;
    }
    // Past the parameter list.
    let mut depth = 0i32;
    for (j, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some((name, j + 1));
                }
            }
            _ => {}
        }
    }
    None
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `written` (a `#[kernel(name = "...")]` in C++: `k_bin<op_repeat, float>`,
/// `fill(float*, int)`) names the entry `symbol`: its [`instance_name`], or that with the
/// parameter list, alike but for spaces and the casts the demangler writes before values
/// (`(unsigned int)128` is `128u` or `128`).
pub fn names_entry(written: &str, symbol: &str) -> bool {
    let Some(text) = demangle(symbol) else {
        return false;
    };
    let written = comparable(written);
    let full = comparable(&user_spelling(&text));
    if written == full {
        return true;
    }
    match param_list_start(&text) {
        Some(open) => written == comparable(&user_spelling(&text[..open])),
        None => false,
    }
}

/// C++ text compared by what it names: without spaces, casts before numbers or integer
/// suffixes.
fn comparable(text: &str) -> String {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        // `(unsigned int)128`, `(Kind)1`: the cast dropped where a number follows it.
        if chars[i] == '(' {
            if let Some(close) = (i + 1..chars.len()).find(|&j| chars[j] == ')') {
                let inner_is_type = chars[i + 1..close]
                    .iter()
                    .all(|&c| is_name_char(c) || c == ':');
                let number = chars
                    .get(close + 1)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '-');
                if close > i + 1 && inner_is_type && number {
                    i = close + 1;
                    continue;
                }
            }
        }
        // An integer suffix (`128u`, `4ul`) after digits.
        if matches!(chars[i], 'u' | 'U' | 'l' | 'L')
            && i > 0
            && chars[i - 1].is_ascii_digit()
            && !chars.get(i + 1).is_some_and(|c| is_name_char(*c))
        {
            i += 1;
            continue;
        }
        if matches!(chars[i], 'u' | 'U' | 'l' | 'L')
            && i > 0
            && chars[i - 1].is_ascii_digit()
            && chars
                .get(i + 1)
                .is_some_and(|c| matches!(c, 'u' | 'U' | 'l' | 'L'))
        {
            i += 1;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Whether a `#[kernel(name = "...")]` is a C++ name (`scale<float>`, `ns::fill`,
/// `(anonymous namespace)::fill`, `fill(float*, int)`) rather than an entry symbol, which
/// is an identifier (`vector_add`, `_Z5scaleIfEvPT_S0_j`).
pub fn is_cpp_name(text: &str) -> bool {
    text.contains(['<', '(', ':', ' '])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_lists_are_read_by_structure() {
        // `reduce<(Kind)1, float>(ReduceOp<(Kind)1, float>, float*)`: a cast inside a template
        // argument is no parameter list.
        let symbol = "_Z6reduceIL4Kind1EfEv8ReduceOpIXT_ET0_EPS2_";
        let text = demangle(symbol).unwrap();
        assert!(text.contains("(Kind)1"), "{text}");
        let types = param_types(symbol).unwrap();
        assert_eq!(types.len(), 2, "{types:?}");
        assert!(types[0].starts_with("ReduceOp<"), "{types:?}");
        // A function pointer parameter keeps its own parentheses.
        let types = param_types("_Z5applyPFffEPf").unwrap();
        assert_eq!(types, ["float (*)(float)", "float*"]);
    }

    #[test]
    fn member_types_of_template_parameters_are_written_as_cpp_writes_them() {
        // Each with what c++filt writes for it (binutils 2.40).
        for (symbol, cpp) in [
            (
                "_ZN1n1fIfNS_1AEEEvPT_PNT0_2EqE",
                "n::f<float, n::A>(float*, n::A::Eq*)",
            ),
            (
                "_ZN1n1fIfNS_1AEEEvPKNT0_2EqE",
                "n::f<float, n::A>(n::A::Eq const*)",
            ),
            (
                "_ZN1n1fIfNS_1AEEEvPPNT0_2EqE",
                "n::f<float, n::A>(n::A::Eq**)",
            ),
            ("_ZN1n1fIfNS_1AEEEvNT0_2EqE", "n::f<float, n::A>(n::A::Eq)"),
            (
                "_ZN1n1fIfNS_1AEEEvPNT0_1B1CE",
                "n::f<float, n::A>(n::A::B::C*)",
            ),
            (
                "_ZN1n1fIfNS_1AEEEvPNT0_1BIiEE",
                "n::f<float, n::A>(n::A::B<int>*)",
            ),
            ("_Z1fIf1AEvPT_PNT0_2EqE", "f<float, A>(float*, A::Eq*)"),
            // cuSZ's Lorenzo kernel: `typename PC::Eq*` and its siblings.
            (
                "_ZN3psz1kIfNS_6ConfigIfEEEEvPT_mPNT0_2EqEPNS5_4C2VIEmNS5_2FpE",
                "psz::k<float, psz::Config<float> >(float*, unsigned long, \
                 psz::Config<float>::Eq*, psz::Config<float>::C2VI*, unsigned long, \
                 psz::Config<float>::Fp)",
            ),
        ] {
            assert_eq!(demangle(symbol).as_deref(), Some(cpp), "{symbol}");
        }
        // What is not a declarator before `::` stays.
        assert_eq!(
            declarators_after_member_names("f((anonymous namespace)::A*, B<C*>::D)"),
            "f((anonymous namespace)::A*, B<C*>::D)"
        );
    }

    #[test]
    fn entries_are_named_as_their_authors_write_them() {
        let run1 = "_Z5k_binIXadL_ZN37_INTERNAL_fcdb68e2_7_main_cu_8cbc7b156op_addEffEEfJPfEEvPKT0_PS2_iDpT1_";
        let run2 = "_Z5k_binIXadL_ZN37_INTERNAL_c4f579e8_7_main_cu_8cbc7b156op_addEffEEfJPfEEvPKT0_PS2_iDpT1_";
        assert_eq!(instance_name(run1).unwrap(), "k_bin<op_add, float, float*>");
        assert_eq!(instance_name(run1), instance_name(run2));
        assert!(names_entry("k_bin<op_add, float, float*>", run1));
        assert!(names_entry("k_bin<op_add,float,float *>", run2));
        assert!(names_entry(
            "k_bin<op_add, float, float*>(float const*, float*, int, float*)",
            run1
        ));
        assert!(!names_entry("k_bin<op_add, float>", run1));
        // Values as the demangler writes them, or as C++ does.
        let scale = "_Z11strided_sumIfLj128EEvPKT_PS0_j";
        assert!(names_entry("strided_sum<float, (unsigned int)128>", scale));
        assert!(names_entry("strided_sum<float, 128u>", scale));
        assert!(names_entry("strided_sum<float, 128>", scale));
        assert!(!names_entry("strided_sum<float, 64>", scale));
        // External device functions keep their namespace.
        assert_eq!(
            instance_name("_Z15unary_op_kernelIXadL_ZN3ops3negEfEEfEvPKT0_PS1_i").unwrap(),
            "unary_op_kernel<ops::neg, float>"
        );
        assert!(names_entry("vol", "_Z3volPVi"));
        // A function template's instance as an argument: without its return type.
        let text = "cpy_scalar<&void cpy_1_scalar<float, float>(char const*, char*)>";
        let chars: Vec<char> = text.chars().collect();
        assert_eq!(
            function_argument(&chars, 12).map(|(n, _)| n).as_deref(),
            Some("cpy_1_scalar<float, float>")
        );
        assert_eq!(
            user_spelling(text),
            "cpy_scalar<cpy_1_scalar<float, float>>"
        );
        assert!(!names_entry("vo", "_Z3volPVi"));
    }
}
