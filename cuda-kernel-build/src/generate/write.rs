//! Writing the records' items, those named in a module (`b::Pair`) in one `pub mod`.

use std::fmt::Write as _;

/// What begins a struct's item that goes in a module (`b` of `b::Pair`), the module's name
/// after it on the same line.
pub(super) const MODULE_MARK: &str = "// in module ";

/// The structs' items, those of a module (see [`MODULE_MARK`]) written in one `pub mod`.
pub(super) fn struct_text(items: &[&str]) -> String {
    let mut plain = String::new();
    let mut modules: Vec<(&str, String)> = Vec::new();
    for item in items {
        match item
            .strip_prefix(MODULE_MARK)
            .and_then(|rest| rest.split_once('\n'))
        {
            Some((scope, body)) => match modules.iter_mut().find(|(m, _)| *m == scope) {
                Some((_, text)) => text.push_str(body),
                None => modules.push((scope, body.to_string())),
            },
            None => plain.push_str(item),
        }
    }
    for (scope, body) in modules {
        let _ = write!(
            plain,
            "/// Structs of the file whose names other items have.\n\
             #[allow(non_snake_case)]\npub mod {scope} {{\n\
             #[allow(unused_imports)]\nuse super::*;\n{body}}}\n"
        );
    }
    plain
}
