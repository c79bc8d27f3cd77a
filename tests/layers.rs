//! The library crates read as floors (shared/STYLE.md, "Layers, no circles"; docs/ARCHITECTURE.md
//! draws them): in `cuda-kernel-syntax`, `cuda-kernel`, `cuda-kernel-build` and
//! `cuda-kernel-macros`, a module with its children is one room, and no room reaches, through the
//! rooms it uses, back to itself: not the crate's top-level rooms, and not the sibling rooms
//! inside any module.
//!
//! A module's uses are read with syn from its code outside `#[cfg(test)]` items: its `use` items,
//! every path starting `crate::`, `super::` or `self::` (in macro invocations too, as tokens), and
//! every name it takes through a glob (`use super::*`). Each is resolved, through the `use` and
//! `pub use` items of the modules on its way (a parent's re-export of its child's item, `lib.rs`'s
//! re-exports), to the module the item is defined in. A use between a module and its ancestor is
//! inside one room; any other use is a use of the room, under their closest common module, that
//! holds its target.
//!
//! The second floor rule lives here too: no function of the four crates is longer than
//! [`LONGEST_FUNCTION`] lines (test code aside).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

const CRATES: [&str; 4] = [
    "cuda-kernel-syntax",
    "cuda-kernel",
    "cuda-kernel-build",
    "cuda-kernel-macros",
];

/// The most lines a function of the library crates may have, its signature and body together.
const LONGEST_FUNCTION: usize = 150;

type ModPath = Vec<String>;

/// One module: its file, and what its names are.
struct Module {
    file: syn::File,
    /// Names this module brings in by `use`: the absolute path each stands for.
    imports: BTreeMap<String, ModPath>,
    /// Modules whose names this module takes by a glob `use`, as absolute paths.
    globs: Vec<ModPath>,
    /// Names of the items this module defines.
    defines: BTreeSet<String>,
    /// Names of its child modules.
    children: BTreeSet<String>,
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    }) || attrs.iter().any(|a| a.path().is_ident("test"))
}

/// Every module of a crate's `src` that is not test code, by path (`["driver", "module"]`).
fn modules(src: &Path) -> BTreeMap<ModPath, Module> {
    fn load(file: &Path, path: ModPath, out: &mut BTreeMap<ModPath, Module>) {
        let text = std::fs::read_to_string(file).unwrap();
        let file_ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let dir = if file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for item in &file_ast.items {
            if let syn::Item::Mod(m) = item
                && m.content.is_none()
                && !is_test(&m.attrs)
            {
                let name = m.ident.to_string();
                let mut child = path.clone();
                child.push(name.clone());
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                let child_file = if flat.exists() { flat } else { nested };
                load(&child_file, child, out);
            }
        }
        let mut module = Module {
            file: file_ast,
            imports: BTreeMap::new(),
            globs: Vec::new(),
            defines: BTreeSet::new(),
            children: BTreeSet::new(),
        };
        for item in &module.file.items {
            if let syn::Item::Mod(m) = item {
                module.children.insert(m.ident.to_string());
            }
        }
        let items = module.file.items.clone();
        for item in &items {
            read_item(item, &path, &mut module);
        }
        out.insert(path, module);
    }
    let mut out = BTreeMap::new();
    load(&src.join("lib.rs"), Vec::new(), &mut out);
    out
}

/// What `item` adds to a module's names; inline modules are read as part of it.
fn read_item(item: &syn::Item, here: &ModPath, module: &mut Module) {
    let name = |i: &syn::Ident| i.to_string();
    match item {
        syn::Item::Use(u) if !is_test(&u.attrs) => {
            let mut out = Vec::new();
            use_tree(&u.tree, Vec::new(), &mut out);
            for (written, alias) in out {
                let child = written.first().is_some_and(|f| module.children.contains(f));
                let abs = match absolute(&written, here) {
                    Some(abs) => abs,
                    None if child => [here.clone(), written].concat(),
                    None => continue,
                };
                match alias {
                    Some(alias) => {
                        module.imports.insert(alias, abs);
                    }
                    None => module.globs.push(abs),
                }
            }
        }
        syn::Item::Mod(m) if !is_test(&m.attrs) => {
            if let Some((_, items)) = &m.content {
                for item in items {
                    read_item(item, here, module);
                }
            }
        }
        syn::Item::Fn(f) => drop(module.defines.insert(name(&f.sig.ident))),
        syn::Item::Struct(s) => drop(module.defines.insert(name(&s.ident))),
        syn::Item::Enum(e) => drop(module.defines.insert(name(&e.ident))),
        syn::Item::Trait(t) => drop(module.defines.insert(name(&t.ident))),
        syn::Item::Type(t) => drop(module.defines.insert(name(&t.ident))),
        syn::Item::Const(c) => drop(module.defines.insert(name(&c.ident))),
        syn::Item::Static(s) => drop(module.defines.insert(name(&s.ident))),
        syn::Item::Union(u) => drop(module.defines.insert(name(&u.ident))),
        _ => {}
    }
}

/// The paths of a use tree, each with the name it is bound to (`None` for a glob).
fn use_tree(tree: &syn::UseTree, prefix: ModPath, out: &mut Vec<(ModPath, Option<String>)>) {
    let with = |s: &syn::Ident| {
        let mut p = prefix.clone();
        p.push(s.to_string());
        p
    };
    match tree {
        syn::UseTree::Path(p) => use_tree(&p.tree, with(&p.ident), out),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let name = prefix.last().cloned();
            out.push((prefix.clone(), name));
        }
        syn::UseTree::Name(n) => out.push((with(&n.ident), Some(n.ident.to_string()))),
        syn::UseTree::Rename(r) => out.push((with(&r.ident), Some(r.rename.to_string()))),
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix.clone(), out);
            }
        }
    }
}

/// A path as written in module `here`, made absolute where it starts at the crate (`crate`,
/// `super`, `self`); `None` for other crates' paths, and for names resolved later.
fn absolute(written: &[String], here: &ModPath) -> Option<ModPath> {
    let mut at = here.clone();
    let mut rest = written;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            at.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        _ => {
            // `use child::Item` in a module naming its own child module.
            return None;
        }
    }
    at.extend(rest.iter().cloned());
    Some(at)
}

thread_local! {
    /// What `resolve` and `has_name` found, for the crate being read (a module's globs make the
    /// same questions come back; a question met again on its own way is answered `None`).
    static RESOLVED: std::cell::RefCell<BTreeMap<ModPath, Option<ModPath>>> = Default::default();
    static NAMED: std::cell::RefCell<BTreeMap<(ModPath, String), bool>> = Default::default();
}

/// The module an absolute path's item is defined in, following `use` items on the way.
fn resolve(path: &[String], modules: &BTreeMap<ModPath, Module>, depth: usize) -> Option<ModPath> {
    if let Some(known) = RESOLVED.with(|r| r.borrow().get(path).cloned()) {
        return known;
    }
    RESOLVED.with(|r| r.borrow_mut().insert(path.to_vec(), None));
    let found = resolve_uncached(path, modules, depth);
    RESOLVED.with(|r| r.borrow_mut().insert(path.to_vec(), found.clone()));
    found
}

fn resolve_uncached(
    path: &[String],
    modules: &BTreeMap<ModPath, Module>,
    depth: usize,
) -> Option<ModPath> {
    if depth > 16 {
        return None;
    }
    let mut at: ModPath = Vec::new();
    for (i, segment) in path.iter().enumerate() {
        let mut child = at.clone();
        child.push(segment.clone());
        if modules.contains_key(&child) {
            at = child;
            continue;
        }
        let module = &modules[&at];
        if module.defines.contains(segment) {
            return Some(at);
        }
        if let Some(target) = module.imports.get(segment) {
            let mut full = target.clone();
            full.extend(path[i + 1..].iter().cloned());
            return resolve(&full, modules, depth + 1);
        }
        for glob in &module.globs {
            let mut full = glob.clone();
            full.extend(path[i..].iter().cloned());
            if let Some(found) = resolve(&full, modules, depth + 1)
                && found != *glob
            {
                return Some(found);
            }
        }
        return Some(at);
    }
    Some(at)
}

/// The paths a module's code writes: `syn::Path`s, and `crate::`/`super::`/`self::` sequences in
/// macro invocations' tokens.
#[derive(Default)]
struct Paths {
    out: Vec<ModPath>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            self.out
                .push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        tokens(m.tokens.clone(), &mut self.out);
        syn::visit::visit_macro(self, m);
    }
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            _ => return syn::visit::visit_item(self, i),
        };
        if !is_test(attrs) {
            syn::visit::visit_item(self, i);
        }
    }
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}
}

fn tokens(stream: TokenStream, out: &mut Vec<ModPath>) {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        if let TokenTree::Group(g) = &trees[i] {
            tokens(g.stream(), out);
        }
        let after_dollar =
            i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
        if let TokenTree::Ident(id) = &trees[i]
            && ["crate", "super", "self"].contains(&id.to_string().as_str())
            && !after_dollar
        {
            let mut path = vec![id.to_string()];
            let mut j = i + 1;
            while j + 2 < trees.len()
                && matches!(&trees[j], TokenTree::Punct(p) if p.as_char() == ':')
                && matches!(&trees[j + 1], TokenTree::Punct(p) if p.as_char() == ':')
            {
                match &trees[j + 2] {
                    TokenTree::Ident(next) => path.push(next.to_string()),
                    _ => break,
                }
                j += 3;
            }
            if path.len() > 1 {
                out.push(path);
            }
            i = j;
            continue;
        }
        i += 1;
    }
}

/// Each module's uses: the modules defining what it names.
fn uses(modules: &BTreeMap<ModPath, Module>) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let mut graph = BTreeMap::new();
    for (here, module) in modules {
        let mut targets = BTreeSet::new();
        for path in module.imports.values().chain(&module.globs) {
            targets.extend(resolve(path, modules, 0));
        }
        let mut paths = Paths::default();
        paths.visit_file(&module.file);
        for written in paths.out {
            let abs = match absolute(&written, here) {
                Some(abs) => Some(abs),
                // A name taken through a glob, unless the module has its own of that name.
                None => {
                    let first = &written[0];
                    let own = module.imports.contains_key(first)
                        || module.defines.contains(first)
                        || modules.contains_key(&[here.clone(), vec![first.clone()]].concat());
                    module
                        .globs
                        .iter()
                        .filter(|g| !own && has_name(g, first, modules, 0))
                        .map(|g| [g.clone(), written.clone()].concat())
                        .next()
                }
            };
            if let Some(abs) = abs {
                let found = resolve(&abs, modules, 0);
                // A lone name that is a module is a local of that name (`entry`), not a use.
                if written.len() == 1 && found.as_ref() == Some(&abs) {
                    continue;
                }
                targets.extend(found);
            }
        }
        targets.remove(here);
        graph.insert(here.clone(), targets);
    }
    graph
}

/// Whether module `at` has `name`: defines it, imports it, has a child of that name, or takes
/// it by a glob.
fn has_name(at: &ModPath, name: &str, modules: &BTreeMap<ModPath, Module>, depth: usize) -> bool {
    let key = (at.clone(), name.to_string());
    if let Some(known) = NAMED.with(|n| n.borrow().get(&key).copied()) {
        return known;
    }
    NAMED.with(|n| n.borrow_mut().insert(key.clone(), false));
    let Some(module) = modules.get(at) else {
        return false;
    };
    let found = depth < 16
        && (module.defines.contains(name)
            || module.imports.contains_key(name)
            || modules.contains_key(&[at.clone(), vec![name.to_string()]].concat())
            || module
                .globs
                .iter()
                .any(|g| has_name(g, name, modules, depth + 1)));
    NAMED.with(|n| n.borrow_mut().insert(key, found));
    found
}

/// The circles between rooms: for every module, the strongly connected components (of more than
/// one room) of its child rooms, each as the room names with the uses that close it.
fn circles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<String> {
    // Room edges, by the parent they are under.
    let mut levels: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut why: BTreeMap<(ModPath, String, String), BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in graph {
        for to in targets {
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                continue; // a module and its ancestor: one room
            }
            let parent = from[..common].to_vec();
            let (a, b) = (from[common].clone(), to[common].clone());
            levels
                .entry(parent.clone())
                .or_default()
                .entry(a.clone())
                .or_default()
                .insert(b.clone());
            why.entry((parent, a, b)).or_default().insert(format!(
                "{} -> {}",
                from.join("::"),
                to.join("::")
            ));
        }
    }
    let mut out = Vec::new();
    for (parent, edges) in &levels {
        for component in components(edges) {
            let mut uses = Vec::new();
            for a in &component {
                for b in &component {
                    if let Some(w) = why.get(&(parent.clone(), a.clone(), b.clone())) {
                        uses.extend(w.iter().cloned());
                    }
                }
            }
            let under = if parent.is_empty() {
                "the crate".to_string()
            } else {
                parent.join("::")
            };
            out.push(format!(
                "under {under}: {} ({})",
                component.join(", "),
                uses.join("; ")
            ));
        }
    }
    out
}

/// The strongly connected components of more than one node (Tarjan).
fn components(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
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
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
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

fn circles_of(src: &Path) -> Vec<String> {
    RESOLVED.with(|r| r.borrow_mut().clear());
    NAMED.with(|n| n.borrow_mut().clear());
    circles(&uses(&modules(src)))
}

#[test]
fn no_library_crate_has_a_circle_of_rooms() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in CRATES {
        for circle in circles_of(&root.join(krate).join("src")) {
            found.push(format!("{krate}: {circle}"));
        }
    }
    assert!(found.is_empty(), "circles of rooms:\n{}", found.join("\n"));
}

/// A crate written from `files` (path, text) in a folder of its own.
fn fixture(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("cuda-kernel-layers-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// Each way one room reaches another is seen, and what is one room or not code is not.
#[test]
fn each_kind_of_circle_is_found() {
    // (name, the crate's files, the circles found)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: &[Case<'_>] = &[
        (
            "paths",
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                ("a.rs", "pub fn f() { crate::b::g() }\n"),
                ("b.rs", "pub fn g() { crate::a::f() }\n"),
            ],
            &["under the crate: a, b"],
        ),
        (
            "reexport",
            &[
                ("lib.rs", "mod a;\nmod b;\npub use b::inner::Thing;\n"),
                ("a.rs", "use crate::Thing;\npub fn f() {}\n"),
                ("b/mod.rs", "pub mod inner;\n"),
                (
                    "b/inner.rs",
                    "pub struct Thing;\nfn g() { crate::a::f(); }\n",
                ),
            ],
            &["under the crate: a, b"],
        ),
        (
            "children",
            // The rooms' children close the circle: a::x uses b, b::y uses a.
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                ("a/mod.rs", "mod x;\npub struct A;\n"),
                ("a/x.rs", "fn f() -> crate::b::B { todo!() }\n"),
                ("b/mod.rs", "mod y;\npub struct B;\n"),
                ("b/y.rs", "use crate::a::A;\n"),
            ],
            &["under the crate: a, b"],
        ),
        (
            "parent-reexport",
            // Siblings through their parent's re-export, written with `super::`.
            &[
                ("lib.rs", "mod p;\n"),
                ("p/mod.rs", "mod x;\nmod y;\npub use x::X;\npub use y::Y;\n"),
                ("p/x.rs", "pub struct X(super::Y);\n"),
                ("p/y.rs", "pub struct Y;\nfn f(_: super::X) {}\n"),
            ],
            &["under p: x, y"],
        ),
        (
            "glob",
            // Siblings through `use super::*`: the parent imports a sibling's item.
            &[
                ("lib.rs", "mod p;\n"),
                (
                    "p/mod.rs",
                    "mod x;\nmod y;\nuse x::helper;\nuse y::Other;\n",
                ),
                (
                    "p/x.rs",
                    "use super::*;\npub fn helper() -> Other { Other }\n",
                ),
                (
                    "p/y.rs",
                    "use super::*;\npub struct Other;\nfn f() { helper(); }\n",
                ),
            ],
            &["under p: x, y"],
        ),
        (
            "macro",
            // A path inside a macro invocation.
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                ("a.rs", "pub fn f() { println!(\"{}\", crate::b::g()) }\n"),
                ("b.rs", "pub fn g() -> u8 { crate::a::f(); 0 }\n"),
            ],
            &["under the crate: a, b"],
        ),
        (
            "locals",
            // A local named as a sibling module (`let y`) is not a use of it; `h`, taken through
            // the parent's glob, is.
            &[
                ("lib.rs", "mod p;\n"),
                ("p/mod.rs", "mod x;\nmod y;\nuse x::*;\n"),
                (
                    "p/x.rs",
                    "use super::*;\npub fn h() {}\nfn f() { let y = 2; let _ = y; }\n",
                ),
                ("p/y.rs", "use super::*;\nfn g() { h(); }\n"),
            ],
            &[],
        ),
        (
            "not-circles",
            // A parent and its child using each other; `crate::` in a string, a comment, a
            // test; a glob whose names the module defines itself.
            &[
                ("lib.rs", "mod a;\nmod b;\n"),
                (
                    "a/mod.rs",
                    "mod c;\npub struct A;\nfn f() -> c::C { c::C }\n",
                ),
                (
                    "a/c.rs",
                    "pub struct C(super::A);\nfn g() { crate::b::h() }\n",
                ),
                (
                    "b.rs",
                    "pub fn h() { let _ = \"crate::a::A\"; } // crate::a::f\n\
                     #[cfg(test)]\nmod tests { fn t() { crate::a::f(); } }\n",
                ),
            ],
            &[],
        ),
    ];
    for (name, files, expected) in cases {
        let dir = fixture(name, files);
        let found = circles_of(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        let found: Vec<&str> = found
            .iter()
            .map(|c| c.split(" (").next().unwrap())
            .collect();
        assert_eq!(&found, expected, "case {name}");
    }
}

/// Functions longer than [`LONGEST_FUNCTION`] lines, as `file:line name (lines)`.
fn long_functions(src: &Path) -> Vec<String> {
    struct Lengths<'a> {
        file: &'a str,
        out: Vec<String>,
    }
    impl Lengths<'_> {
        fn check(&mut self, name: &syn::Ident, span: proc_macro2::Span) {
            let lines = span.end().line - span.start().line + 1;
            if lines > LONGEST_FUNCTION {
                self.out.push(format!(
                    "{}:{} {name} ({lines} lines)",
                    self.file,
                    span.start().line
                ));
            }
        }
    }
    impl<'ast> Visit<'ast> for Lengths<'_> {
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            if !is_test(&m.attrs) {
                syn::visit::visit_item_mod(self, m);
            }
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            if !is_test(&f.attrs) {
                use syn::spanned::Spanned;
                self.check(&f.sig.ident, f.span());
                syn::visit::visit_item_fn(self, f);
            }
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            use syn::spanned::Spanned;
            self.check(&f.sig.ident, f.span());
            syn::visit::visit_impl_item_fn(self, f);
        }
        fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
            use syn::spanned::Spanned;
            self.check(&f.sig.ident, f.span());
            syn::visit::visit_trait_item_fn(self, f);
        }
    }
    let modules = modules(src);
    let mut out = Vec::new();
    for (path, module) in &modules {
        let mut lengths = Lengths {
            file: &path.join("::"),
            out: Vec::new(),
        };
        lengths.visit_file(&module.file);
        out.extend(lengths.out);
    }
    out
}

#[test]
fn no_library_function_is_longer_than_the_floor_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in CRATES {
        for f in long_functions(&root.join(krate).join("src")) {
            found.push(format!("{krate}: {f}"));
        }
    }
    assert!(
        found.is_empty(),
        "functions longer than {LONGEST_FUNCTION} lines:\n{}",
        found.join("\n")
    );
}

/// The measure sees a long function and passes a short one; test code is not measured.
#[test]
fn a_long_function_is_found() {
    let body = "    let _ = 1;\n".repeat(LONGEST_FUNCTION);
    let dir = fixture(
        "long",
        &[(
            "lib.rs",
            &format!(
                "fn long() {{\n{body}}}\nfn short() {{}}\n\
                 #[cfg(test)]\nmod tests {{ fn also_long() {{\n{body}}} }}\n"
            ),
        )],
    );
    let found = long_functions(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        found,
        vec![format!(":1 long ({} lines)", LONGEST_FUNCTION + 2)]
    );
}

/// Each `#[inline(always)]` of the files under `src` not under `cfg_attr` (an optimized
/// build's alone), as `file:line`; read as text, so that macro bodies are read too.
fn always_inline_in_debug(src: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for (i, line) in text.lines().enumerate() {
                    if line.trim_start().starts_with("#[inline(always)]") {
                        let name = path.file_name().unwrap_or_default().to_string_lossy();
                        out.push(format!("{name}:{}", i + 1));
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(src, &mut out);
    out
}

/// The runtime's functions are `#[inline(always)]` in an optimized build only: in a debug build
/// each would be a copy per codegen unit of the crate that launches (src/lib.rs says why).
#[test]
fn the_runtime_inlines_always_only_when_optimized() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda-kernel/src");
    assert!(
        src.join("launch/mod.rs").is_file(),
        "{} not found",
        src.display()
    );
    let found = always_inline_in_debug(&src);
    assert!(
        found.is_empty(),
        "#[inline(always)] in a debug build too (write \
         #[cfg_attr(debug_assertions, inline)] #[cfg_attr(not(debug_assertions), inline(always))]):\n{}",
        found.join("\n")
    );
}

/// The check sees a bare `#[inline(always)]` and passes one under `cfg_attr`.
#[test]
fn an_always_inline_in_a_debug_build_is_found() {
    let dir = fixture(
        "inline",
        &[(
            "lib.rs",
            "#[inline(always)]\nfn a() {}\n\
             #[cfg_attr(debug_assertions, inline)]\n\
             #[cfg_attr(not(debug_assertions), inline(always))]\nfn b() {}\n\
             #[inline]\nfn c() {}\n",
        )],
    );
    let found = always_inline_in_debug(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(found, vec!["lib.rs:1".to_string()]);
}
