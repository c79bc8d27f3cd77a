//! Symbol patterns of families and run-time named kernels: `"affine_{T}"`, `"u{op}_{T}"`.
//!
//! A pattern is text with placeholders in braces. A placeholder a generic parameter fills
//! (`{T}`, `{N}`) is named at compile time by the type arguments; the one placeholder no generic
//! parameter fills (`{op}`) is chosen at run time. The macro matches patterns against a PTX's
//! entries; the runtime fills them in when loading.
//!
//! ```
//! use cuda_kernel_syntax::pattern;
//! assert_eq!(pattern::holes("u{op}_{T}"), ["op", "T"]);
//! let types = ["f32".to_string(), "f16".to_string()];
//! let choices = |hole: &str| (hole == "T").then_some(&types[..]);
//! let filled = pattern::fill("u{op}_{T}", "ugelu_erf_f32", &choices).unwrap();
//! assert_eq!(filled, [("op", "gelu_erf".to_string()), ("T", "f32".to_string())]);
//! assert!(pattern::fill("u{op}_{T}", "ugelu_i64", &choices).is_none());
//! ```

/// A piece of a pattern: literal text, or a placeholder's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text the symbol holds as is.
    Text(&'a str),
    /// `{name}`.
    Hole(&'a str),
}

/// The pattern's pieces. A `{` without a closing `}`, or braces around nothing, are text.
pub fn pieces(pattern: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open + 1..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + 1 + len];
        if name.is_empty() || name.contains('{') {
            // Not a placeholder: keep the brace as text and go on after it.
            push_text(&mut out, &rest[..=open]);
            rest = &rest[open + 1..];
            continue;
        }
        push_text(&mut out, &rest[..open]);
        out.push(Piece::Hole(name));
        rest = &rest[open + len + 2..];
    }
    push_text(&mut out, rest);
    out
}

fn push_text<'a>(out: &mut Vec<Piece<'a>>, text: &'a str) {
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
}

/// The placeholders' names, in order, each once.
pub fn holes(pattern: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for piece in pieces(pattern) {
        if let Piece::Hole(name) = piece {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// How `symbol` fills `pattern`: each placeholder's text, in the order of [`holes`]. A
/// placeholder for which `choices` gives a list takes one of its values; any other takes a
/// non-empty run of letters, digits and `_` (for a const parameter, digits). A placeholder used
/// twice takes the same text both times. Where several fillings fit, the one giving the earlier
/// placeholders the shortest text wins.
pub fn fill<'p, 'c>(
    pattern: &'p str,
    symbol: &str,
    choices: &dyn Fn(&str) -> Option<&'c [String]>,
) -> Option<Vec<(&'p str, String)>> {
    Pattern::new(pattern).fill(symbol, choices)
}

/// A pattern read once, for filling it from many symbols (a family's against every entry of a
/// PTX).
#[derive(Clone, Debug)]
pub struct Pattern<'p> {
    pieces: Vec<Piece<'p>>,
    holes: Vec<&'p str>,
}

impl<'p> Pattern<'p> {
    /// The pattern's [`pieces`] and [`holes`].
    pub fn new(pattern: &'p str) -> Pattern<'p> {
        Pattern {
            pieces: pieces(pattern),
            holes: holes(pattern),
        }
    }

    /// [`fill`] with this pattern.
    pub fn fill<'c>(
        &self,
        symbol: &str,
        choices: &dyn Fn(&str) -> Option<&'c [String]>,
    ) -> Option<Vec<(&'p str, String)>> {
        let mut bound: Vec<(&'p str, String)> = Vec::new();
        if !fill_from(&self.pieces, symbol, choices, &mut bound) {
            return None;
        }
        let mut out = Vec::with_capacity(self.holes.len());
        for hole in &self.holes {
            let value = bound.iter().find(|(h, _)| h == hole)?.1.clone();
            out.push((*hole, value));
        }
        Some(out)
    }
}

fn fill_from<'p, 'c>(
    pieces: &[Piece<'p>],
    rest: &str,
    choices: &dyn Fn(&str) -> Option<&'c [String]>,
    bound: &mut Vec<(&'p str, String)>,
) -> bool {
    let Some((first, later)) = pieces.split_first() else {
        return rest.is_empty();
    };
    match *first {
        Piece::Text(text) => match rest.strip_prefix(text) {
            Some(after) => fill_from(later, after, choices, bound),
            None => false,
        },
        Piece::Hole(name) => {
            if let Some((_, value)) = bound.iter().find(|(h, _)| *h == name) {
                let value = value.clone();
                return match rest.strip_prefix(value.as_str()) {
                    Some(after) => fill_from(later, after, choices, bound),
                    None => false,
                };
            }
            let candidates: Vec<usize> = match choices(name) {
                Some(list) => {
                    let mut lens: Vec<usize> = list
                        .iter()
                        .filter(|v| !v.is_empty() && rest.starts_with(v.as_str()))
                        .map(String::len)
                        .collect();
                    lens.sort_unstable();
                    lens.dedup();
                    lens
                }
                None => {
                    let run = rest
                        .char_indices()
                        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
                        .map_or(rest.len(), |(i, _)| i);
                    (1..=run).collect()
                }
            };
            for len in candidates {
                bound.push((name, rest[..len].to_string()));
                if fill_from(later, &rest[len..], choices, bound) {
                    return true;
                }
                bound.pop();
            }
            false
        }
    }
}

/// `pattern` with each placeholder named in `values` replaced by its value; others stay.
pub fn substitute(pattern: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    for piece in pieces(pattern) {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Hole(name) => match values.iter().find(|(hole, _)| *hole == name) {
                Some((_, value)) => out.push_str(value),
                None => {
                    out.push('{');
                    out.push_str(name);
                    out.push('}');
                }
            },
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn splits_patterns_into_text_and_holes() {
        assert_eq!(
            pieces("cast_{T}_{U}"),
            [
                Piece::Text("cast_"),
                Piece::Hole("T"),
                Piece::Text("_"),
                Piece::Hole("U")
            ]
        );
        assert_eq!(pieces("a{}b{"), [Piece::Text("a{"), Piece::Text("}b{")]);
        assert_eq!(holes("{T}_{T}"), ["T"]);
        assert!(holes("plain").is_empty());
    }

    #[test]
    fn fills_with_closed_and_free_placeholders() {
        let types = names(&["f32", "f8_e4m3", "f8", "u8"]);
        let choices = |hole: &str| matches!(hole, "T" | "U").then_some(&types[..]);
        let fill = |p, s| fill(p, s, &choices);
        assert_eq!(
            fill("cast_{T}_{U}", "cast_f8_e4m3_f32").unwrap(),
            [("T", "f8_e4m3".to_string()), ("U", "f32".to_string())]
        );
        assert_eq!(
            fill("affine_{T}", "affine_f8_e4m3").unwrap(),
            [("T", "f8_e4m3".to_string())]
        );
        assert_eq!(
            fill("{op}_{T}", "fast_sum_u8").unwrap(),
            [("op", "fast_sum".to_string()), ("T", "u8".to_string())]
        );
        assert!(fill("affine_{T}", "affine_f64").is_none());
        assert!(fill("u{op}_{T}", "u_f32").is_none());
        assert!(fill("{T}x{T}", "f32xu8").is_none());
        assert!(fill("{T}x{T}", "u8xu8").is_some());
    }

    #[test]
    fn substitutes_named_placeholders_only() {
        assert_eq!(substitute("u{op}_{T}", &[("T", "f16")]), "u{op}_f16");
        assert_eq!(
            substitute("u{op}_{T}", &[("T", "f16"), ("op", "exp")]),
            "uexp_f16"
        );
    }

    #[test]
    fn never_panics_on_odd_patterns() {
        let types = names(&["f32"]);
        let choices = |hole: &str| (hole == "T").then_some(&types[..]);
        for p in [
            "{",
            "}",
            "{{T}}",
            "{T",
            "T}",
            "{op}{T}",
            "é{T}",
            "{é}",
            "{T}{T}{T}",
        ] {
            for s in ["", "f32", "éf32", "{f32}", "xf32f32"] {
                let _ = fill(p, s, &choices);
                let _ = substitute(p, &[("T", "f32")]);
            }
        }
    }
}
