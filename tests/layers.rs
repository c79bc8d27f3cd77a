//! The library crates read as floors (shared/STYLE.md, "Layers, no circles"): no module of
//! `cuda-kernel-syntax`, `cuda-kernel`, `cuda-kernel-build` or `cuda-kernel-macros` reaches,
//! through the modules it uses, back to itself. A module's uses are the `crate::` paths of its
//! code outside its tests and comments, each resolved to the deepest module it names, or through
//! `lib.rs`'s `pub use` to the module an item lives in; a module using its own children, or a
//! child its parent, is not counted (a module and its children are one room). docs/ARCHITECTURE.md
//! draws the floors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const CRATES: [&str; 4] = [
    "cuda-kernel-syntax",
    "cuda-kernel",
    "cuda-kernel-build",
    "cuda-kernel-macros",
];

/// Every module of a crate's `src`, by path (`driver::module`), with its text.
fn modules(src: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, src, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap().with_extension("");
                let mut parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                    parts.pop();
                }
                out.insert(parts.join("::"), std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// The code of a module: without line comments, and without its `#[cfg(test)]` module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The `crate::a::b::Item` paths of `code`, as their segments; `crate::{a::X, b}` as one path
/// per item.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && code[..at].ends_with(|c: char| ident_char(c) || c == ':') {
            continue; // `$crate::`, `cuda_kernel_syntax::...::crate`
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(0)];
            for item in inner.split(',') {
                let item = item.split_whitespace().next().unwrap_or("");
                out.push(item.split("::").map(str::to_string).collect());
            }
            continue;
        }
        let end = rest
            .find(|c: char| !(ident_char(c) || c == ':'))
            .unwrap_or(rest.len());
        out.push(
            rest[..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        );
    }
    out
}

/// The items `lib.rs` re-exports (`pub use a::b::{X, Y}`, `pub use a::X`), by name: the path
/// they are used from.
fn reexports(lib: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let code = code(lib);
    for statement in code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let path = path.trim();
        let (base, items): (&str, Vec<&str>) = match path.split_once('{') {
            Some((base, items)) => (base, items.trim_end_matches('}').split(',').collect()),
            None => match path.rsplit_once("::") {
                Some((base, item)) => (base, vec![item]),
                None => continue,
            },
        };
        for item in items {
            let item = item.trim();
            let name = item.rsplit(" as ").next().unwrap_or(item).trim();
            let name = name.rsplit("::").next().unwrap_or(name);
            let mut full: Vec<String> = base
                .trim_end_matches("::")
                .split("::")
                .map(str::to_string)
                .collect();
            full.extend(
                item.split(" as ")
                    .next()
                    .unwrap_or(item)
                    .split("::")
                    .map(|s| s.trim().to_string()),
            );
            out.insert(name.to_string(), full);
        }
    }
    out
}

/// The deepest module `path` names, if any.
fn module_of(path: &[String], modules: &BTreeMap<String, String>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|m| modules.contains_key(m))
}

/// Whether `a` is `b` or one of its descendants, or `b` one of `a`'s.
fn one_room(a: &str, b: &str) -> bool {
    a == b || a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"))
}

/// Each module's uses of the crate's other modules.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules(src);
    let reexported = reexports(&modules[""]);
    let mut graph = BTreeMap::new();
    for (module, text) in &modules {
        let mut uses = BTreeSet::new();
        for path in crate_paths(&code(text)) {
            let Some(first) = path.first() else { continue };
            let target = match reexported.get(first) {
                Some(full) if !modules.contains_key(first) => {
                    module_of(&[full.clone(), path[1..].to_vec()].concat(), &modules)
                }
                _ => module_of(&path, &modules),
            };
            if let Some(target) = target.filter(|t| !t.is_empty() && !one_room(module, t)) {
                uses.insert(target);
            }
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

/// The circles of `graph`: its strongly connected components of more than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in &self.graph[v] {
                let w = w.as_str();
                if !self.graph.contains_key(w) {
                    continue;
                }
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

#[test]
fn no_library_crate_has_a_circle_of_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in CRATES {
        let graph = graph(&root.join(krate).join("src"));
        for circle in circles(&graph) {
            let uses: Vec<String> = circle
                .iter()
                .map(|m| {
                    let within: Vec<&str> = graph[m]
                        .iter()
                        .filter(|t| circle.contains(t))
                        .map(String::as_str)
                        .collect();
                    format!("{m} -> {}", within.join(", "))
                })
                .collect();
            found.push(format!("{krate}: {}", uses.join("; ")));
        }
    }
    assert!(
        found.is_empty(),
        "circles of modules:\n{}",
        found.join("\n")
    );
}

/// The reading of uses finds a circle where there is one: two modules using each other through
/// a path and through a re-export.
#[test]
fn a_circle_is_found() {
    let dir = std::env::temp_dir().join(format!("cuda-kernel-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "mod a;\nmod b;\npub use b::inner::Thing;\n",
    )
    .unwrap();
    std::fs::write(dir.join("a.rs"), "use crate::Thing;\n").unwrap();
    std::fs::write(dir.join("b/mod.rs"), "pub mod inner;\n").unwrap();
    std::fs::write(
        dir.join("b/inner.rs"),
        "pub struct Thing;\nfn f() { crate::a::g(); }\n// crate::c\n",
    )
    .unwrap();
    let graph = graph(&dir);
    assert_eq!(
        circles(&graph),
        vec![vec!["a".to_string(), "b::inner".to_string()]]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
