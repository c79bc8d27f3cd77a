//! Reading a crate's `#[kernel]` blocks and `#[derive(KernelParam)]` structs with the macro's own
//! front end, and writing the header nvcc checks each `.cu` file against.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cuda_kernel_syntax::ast::{Block, ParamStruct};
use cuda_kernel_syntax::c_struct::{self, ConstText};
use cuda_kernel_syntax::layout::Cursor;
use cuda_kernel_syntax::report::Errors;
use cuda_kernel_syntax::{attr, cuda, parse, types};
use syn::{Item, Type};

/// A `#[kernel]` block found in a Rust source.
pub struct FoundBlock {
    /// The Rust file.
    pub file: PathBuf,
    /// The stem of its `ptx = "..."` file (`vector_add` for `"$OUT_DIR/vector_add.ptx"`): the
    /// `.cu` file it declares kernels of.
    pub ptx_stem: Option<String>,
    /// The block, parsed.
    pub block: Block,
}

/// Everything the declarations say.
#[derive(Default)]
pub struct Declarations {
    /// The kernel blocks.
    pub blocks: Vec<FoundBlock>,
    /// `#[derive(KernelParam)]` structs: their C declarations, in source order.
    pub structs: Vec<(String, String)>,
    /// `#[derive(KernelParam)]` structs: Rust name and CUDA name (`("Pair", "geo::Pair")`).
    pub cuda_names: Vec<(String, String)>,
    /// Whether the header declares the structs (else it only names them, `struct P;`, for the
    /// prototypes, and the `.cu` defines them).
    pub declare_structs: bool,
}

/// Reads every Rust file (and its inline modules); a file that does not parse is an error, a
/// declaration the macro will refuse is left to the macro.
pub fn read(files: &[PathBuf]) -> Result<Declarations, String> {
    let mut sources = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        sources.push((file.clone(), text));
    }
    scan_sources(&sources)
}

/// [`read`] of sources already read: each file's path and text.
pub fn scan_sources(sources: &[(PathBuf, String)]) -> Result<Declarations, String> {
    let mut found = Declarations {
        declare_structs: true,
        ..Declarations::default()
    };
    let mut derived = Vec::new();
    let mut consts = HashMap::new();
    let mut parsed = Vec::new();
    for (file, text) in sources {
        let ast =
            syn::parse_file(text).map_err(|e| format!("cannot parse {}: {e}", file.display()))?;
        parsed.push((file.clone(), ast.items));
    }
    for (file, items) in &parsed {
        walk(file, items, &mut found, &mut derived, &mut consts);
    }
    found.cuda_names = derived
        .iter()
        .filter_map(|s| {
            let input = syn::DeriveInput::from((*s).clone());
            let parsed = parse::parse_param_struct(&mut Errors::default(), &input)?;
            Some((s.ident.to_string(), parsed.cuda_name))
        })
        .collect();
    found.structs = struct_declarations(&derived, &consts, &found.cuda_names);
    // A C++ kernel taking structs of a namespace: its symbol names them by their CUDA names,
    // as the macro's check and the launcher's load find it.
    let rename = |name: &str| {
        found
            .cuda_names
            .iter()
            .find(|(rust, cuda)| rust == name && rust != cuda)
            .map(|(_, cuda)| cuda.clone())
    };
    for found_block in &mut found.blocks {
        for k in &mut found_block.block.kernels {
            if k.cpp.is_none() || k.name_arg.is_some() || k.is_generic() {
                continue;
            }
            let name = k.cpp_name();
            if let Ok(symbol) = cuda_kernel_syntax::mangle::mangle_with_class_names(
                &name,
                k.params.iter().map(|p| &p.ty),
                &rename,
            ) {
                k.symbol = symbol;
            }
        }
    }
    Ok(found)
}

fn walk<'a>(
    file: &Path,
    items: &'a [Item],
    found: &mut Declarations,
    derived: &mut Vec<&'a syn::ItemStruct>,
    consts: &mut HashMap<String, usize>,
) {
    for item in items {
        match item {
            Item::ForeignMod(block) => {
                let Some(kernel_attr) = block.attrs.iter().find(|a| is_kernel_attr(a)) else {
                    continue;
                };
                let mut cx = Errors::default();
                let args = match &kernel_attr.meta {
                    syn::Meta::List(list) => list.tokens.clone(),
                    _ => Default::default(),
                };
                let args = attr::parse_block_args(&mut cx, args);
                let mut block = block.clone();
                block.attrs.retain(|a| !is_kernel_attr(a));
                let block = parse::parse_block(&mut cx, block, &args.defaults);
                let ptx_stem = args.ptx.map(|lit| {
                    let value = lit.value();
                    let name = value.rsplit('/').next().unwrap_or(&value).to_string();
                    name.strip_suffix(".ptx").unwrap_or(&name).to_string()
                });
                found.blocks.push(FoundBlock {
                    file: file.to_path_buf(),
                    ptx_stem,
                    block,
                });
            }
            Item::Struct(s) if derives_kernel_param(&s.attrs) => derived.push(s),
            // Array lengths of struct fields, when spelled as a constant.
            Item::Const(c) => {
                if let Some(n) = literal_usize(&c.expr, consts) {
                    consts.insert(c.ident.to_string(), n);
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    walk(file, items, found, derived, consts);
                }
            }
            _ => {}
        }
    }
}

fn is_kernel_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "kernel")
}

fn derives_kernel_param(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            let mut yes = false;
            let _ = a.parse_nested_meta(|meta| {
                yes |= meta
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "KernelParam");
                Ok(())
            });
            yes
        })
}

/// Size, alignment and C spelling of a field type, where the declarations tell.
struct FieldType {
    cuda: String,
    size: usize,
    align: usize,
}

/// C declarations of the derived structs, with `static_assert`s on the layout the runtime
/// computes (the same rules: each field at its offset rounded up to its alignment, the struct
/// aligned as its most aligned field or its `repr(align)`), nested structs first. A struct with
/// a field whose layout the sources do not tell is declared without the assertions.
fn struct_declarations(
    structs: &[&syn::ItemStruct],
    consts: &HashMap<String, usize>,
    cuda_names: &[(String, String)],
) -> Vec<(String, String)> {
    let mut layouts: HashMap<String, Option<(usize, usize)>> = HashMap::new();
    let mut out = Vec::new();
    // Nested structs are declared before the structs holding them: repeat until all are done.
    let mut pending: Vec<&syn::ItemStruct> = structs.to_vec();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|s| {
            let input = syn::DeriveInput::from((*s).clone());
            let mut cx = Errors::default();
            let Some(parsed) = parse::parse_param_struct(&mut cx, &input) else {
                return false;
            };
            let waits = parsed.fields.iter().any(|f| {
                named_struct(f.ty).is_some_and(|n| {
                    !layouts.contains_key(&n) && structs.iter().any(|s| s.ident == n)
                })
            });
            if waits {
                return true;
            }
            let name = parsed.input.ident.to_string();
            match declare(&parsed, &layouts, consts, cuda_names) {
                Some((text, layout)) => {
                    layouts.insert(name.clone(), layout);
                    out.push((name, text));
                }
                // An array length the sources do not spell: leave the struct to the user's
                // own header (`cuda_kernel::write_cuda_header`).
                None => {
                    layouts.insert(name, None);
                }
            }
            false
        });
        if pending.len() == before {
            break; // a cycle, which C cannot have either; the compiler reports it
        }
    }
    out
}

fn named_struct(ty: &Type) -> Option<String> {
    let mut ty = ty;
    while let Type::Array(a) = ty {
        ty = &a.elem;
    }
    match ty {
        Type::Path(p) => {
            let name = p.path.segments.last()?.ident.to_string();
            types::by_name(&name).is_none().then_some(name)
        }
        _ => None,
    }
}

fn field_type(
    ty: &Type,
    layouts: &HashMap<String, Option<(usize, usize)>>,
    cuda_names: &[(String, String)],
) -> Option<FieldType> {
    let cuda = cuda::c_type_in(ty, cuda_names)?;
    if let Type::Ptr(_) = ty {
        return Some(FieldType {
            cuda,
            size: 8,
            align: 8,
        });
    }
    let name = match ty {
        Type::Path(p) => p.path.segments.last()?.ident.to_string(),
        _ => return None,
    };
    let (size, align) = match types::by_name(&name) {
        Some(t) => (t.size, t.align),
        None => (*layouts.get(&name)?)?,
    };
    Some(FieldType { cuda, size, align })
}

fn declare(
    s: &ParamStruct<'_>,
    layouts: &HashMap<String, Option<(usize, usize)>>,
    consts: &HashMap<String, usize>,
    cuda_names: &[(String, String)],
) -> Option<(String, Option<(usize, usize)>)> {
    // The C++ name (`geo::Pair` for `#[kernel_param(cuda_name = "geo::Pair")]`), declared in
    // its namespace; the guard is the one `cuda_kernel::cuda_header` writes.
    let name = s.cuda_name.clone();
    let (namespace, local) = s.cuda_scope();
    let guard = cuda_kernel_syntax::cpp::struct_guard(&name);
    let repr_align = s.repr_align;
    let mut text = format!("#ifndef {guard}\n#define {guard}\n");
    text.push_str(&piece(c_struct::open(
        ConstText::new(),
        namespace,
        local,
        repr_align,
    ))?);
    let mut cursor = Cursor::START;
    let mut asserts = Vec::new();
    let mut known = true;
    for f in &s.fields {
        let dims: Vec<usize> = f
            .dims
            .iter()
            .map(|d| literal_usize(d, consts))
            .collect::<Option<_>>()?;
        let elem = element_type(f.ty);
        let field = field_type(elem, layouts, cuda_names);
        let c_type = field
            .as_ref()
            .map(|t| t.cuda.clone())
            .or_else(|| cuda::c_type(elem))
            .unwrap_or_else(|| "/* unknown */ char".to_string());
        text.push_str(&piece(c_struct::field(
            ConstText::new(),
            &c_type,
            0,
            &f.c_name,
            &dims,
        ))?);
        match field {
            Some(t) => {
                let count: usize = dims.iter().product();
                let (offset, next) = cursor.place(t.size * count, t.align);
                asserts.push(piece(c_struct::offset_assert(
                    ConstText::new(),
                    &name,
                    &f.c_name,
                    offset,
                ))?);
                cursor = next;
            }
            None => known = false,
        }
    }
    text.push_str(&piece(c_struct::close(ConstText::new(), namespace))?);
    let layout = known.then(|| {
        (
            cursor.struct_size(repr_align),
            cursor.struct_align(repr_align),
        )
    });
    if let Some((size, align)) = layout {
        text.push_str(&piece(c_struct::layout_asserts(
            ConstText::new(),
            &name,
            size,
            align,
        ))?);
        for a in asserts {
            text.push_str(&a);
        }
    }
    text.push_str("#endif\n");
    Some((text, layout))
}

/// Bytes for one piece of a struct's C text (a line, or the two layout assertions).
const PIECE: usize = 4096;

/// A piece of a struct's C text, written by the front end's writer (the one the runtime's
/// `CUDA_DECLARATION` uses); `None` for names too long for [`PIECE`] bytes, whose struct is then
/// left to the user's own header.
fn piece(text: ConstText<PIECE>) -> Option<String> {
    (!text.overflowed()).then(|| text.as_str().to_string())
}

fn element_type(ty: &Type) -> &Type {
    match ty {
        Type::Array(a) => element_type(&a.elem),
        _ => ty,
    }
}

fn literal_usize(expr: &syn::Expr, consts: &HashMap<String, usize>) -> Option<usize> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Path(p) => consts
            .get(&p.path.segments.last()?.ident.to_string())
            .copied(),
        _ => None,
    }
}

/// The header for the `.cu` file `stem`: every derived struct, then the prototypes of the
/// kernels that blocks naming `stem.ptx` declare.
pub fn header(stem: &str, declarations: &Declarations) -> String {
    header_of(Some(stem), declarations)
}

/// The header of every block of the crate, for `.cu` files another tool compiles (a
/// prototype of a kernel another file defines is a harmless declaration).
pub fn header_all(declarations: &Declarations) -> String {
    header_of(None, declarations)
}

fn header_of(stem: Option<&str>, declarations: &Declarations) -> String {
    let mut body = String::new();
    for (name, declaration) in &declarations.structs {
        body.push('\n');
        if declarations.declare_structs {
            body.push_str(declaration);
        } else {
            // Named in its namespace (`namespace geo { struct Pair; }`).
            let cuda = declarations
                .cuda_names
                .iter()
                .find(|(rust, _)| rust == name)
                .map_or(name.as_str(), |(_, cuda)| cuda.as_str());
            let (scope, local) = cuda.rsplit_once("::").unwrap_or(("", cuda));
            match scope {
                "" => body.push_str(&format!("struct {local};\n")),
                scope => body.push_str(&format!("namespace {scope} {{ struct {local}; }}\n")),
            }
        }
    }
    body.push('\n');
    for found in declarations
        .blocks
        .iter()
        .filter(|b| stem.is_none() || b.ptx_stem.as_deref() == stem)
    {
        for kernel in &found.block.kernels {
            let prototypes = cuda::prototype(kernel, &declarations.cuda_names)
                .into_iter()
                .chain(cuda::family_prototypes(kernel));
            for prototype in prototypes {
                body.push_str(&prototype);
                body.push('\n');
            }
        }
    }
    let of = match stem {
        Some(stem) => format!("{stem}.ptx"),
        None => "the crate".to_string(),
    };
    let mut text = format!(
        "// Generated by cuda-kernel-build from the #[kernel] declarations of {of}: do not edit.\n\
         #pragma once\n#include <cstddef>\n#include <cstdint>\n"
    );
    // CUDA's headers only where the prototypes use their types: a `.cu` may define names of
    // its own that theirs would clash with (Blender Cycles' `typedef unsigned short half;`,
    // and `__float2half` beside it, where no `cuda_fp16.h` is included). FP6 and FP4 need CUDA
    // 12.8.
    for (prefix, header) in [
        ("__half", "cuda_fp16.h"),
        ("__nv_bfloat16", "cuda_bf16.h"),
        ("CUtensorMap", "cuda.h"),
        ("__nv_fp8", "cuda_fp8.h"),
        ("__nv_fp6", "cuda_fp6.h"),
        ("__nv_fp4", "cuda_fp4.h"),
    ] {
        if body.contains(prefix) {
            text.push_str(&format!("#include <{header}>\n"));
        }
    }
    text.push_str(&body);
    text
}

/// The crate's Rust files, as rustc finds them: from each root (`src/lib.rs`, `src/main.rs`,
/// `src/bin/*.rs`) through every `mod x;` (`x.rs`, `x/mod.rs`, or `#[path = "..."]`), inline
/// modules included. A file that does not parse ends its branch (rustc reports it).
pub fn module_tree(manifest_dir: &Path) -> Vec<PathBuf> {
    let src = manifest_dir.join("src");
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .filter(|p| p.is_file())
        .collect();
    if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<PathBuf> = bins
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        bins.sort();
        roots.extend(bins);
    }
    let mut files = Vec::new();
    for root in roots {
        let dir = root.parent().unwrap_or(&src).to_path_buf();
        visit_file(&root, &dir, &mut files);
    }
    files
}

/// Adds `file` and the files of its `mod x;` items; `dir` is where its child modules live.
fn visit_file(file: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    if files.iter().any(|f| f == file) || files.len() > 10_000 {
        return;
    }
    files.push(file.to_path_buf());
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    let Ok(ast) = syn::parse_file(&text) else {
        return;
    };
    let file_dir = file.parent().unwrap_or(dir);
    visit_items(&ast.items, dir, file_dir, files);
}

fn visit_items(items: &[Item], dir: &Path, file_dir: &Path, files: &mut Vec<PathBuf>) {
    for item in items {
        let Item::Mod(m) = item else { continue };
        let name = m.ident.to_string();
        let path_attr = m.attrs.iter().find_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        });
        match (&m.content, path_attr) {
            (Some((_, inner)), _) => visit_items(inner, &dir.join(&name), file_dir, files),
            (None, Some(path)) => {
                let child = file_dir.join(path);
                let child_dir = child.parent().unwrap_or(file_dir).to_path_buf();
                visit_file(&child, &child_dir, files);
            }
            (None, None) => {
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                if flat.is_file() {
                    visit_file(&flat, &dir.join(&name), files);
                } else if nested.is_file() {
                    visit_file(&nested, &dir.join(&name), files);
                }
            }
        }
    }
}

/// Whether `entry` (a PTX `.entry` name) is a kernel `block` declares: by its symbol, as a
/// member of a family or run-time pattern, or as an instance of a C++ template.
pub fn declares(block: &Block, entry: &str) -> bool {
    // A `static` kernel under `-rdc=true` by its C++ symbol.
    let symbol = cuda_kernel_syntax::itanium::without_nv_static_prefix(entry);
    block.kernels.iter().any(|k| {
        if k.cpp.is_some() && k.is_generic() {
            return symbol.starts_with(&cuda_kernel_syntax::itanium::template_instance_prefix(
                &k.symbol,
            ));
        }
        if k.name_arg.is_some() && k.symbol.contains('{') {
            return cuda_kernel_syntax::pattern::fill(&k.symbol, entry, &|_| None).is_some();
        }
        // A kernel bound by its C++ name (`name = "k<op, float>"`).
        if k.name_arg.is_some() && cuda_kernel_syntax::demangle::names_entry(&k.symbol, entry) {
            return true;
        }
        k.symbol == entry || k.symbol == symbol
    })
}

/// The files that can be read and parsed, with their text.
pub fn parsable(files: &[PathBuf]) -> Vec<(PathBuf, String)> {
    files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            syn::parse_file(&text).ok()?;
            Some((f.clone(), text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpp_kernel_taking_a_struct_of_a_namespace_has_its_symbol_by_the_cuda_name() {
        let source = r#"
            #[derive(Clone, Copy, KernelParam)]
            #[kernel_param(cuda_name = "ns::shapes::Interval")]
            #[repr(C)]
            struct Interval { lo: f32, hi: f32, n: u32 }

            #[kernel(ptx = "$OUT_DIR/namespaces.ptx", cpp, namespace = "ns")]
            unsafe extern "C" {
                fn spread(iv: Interval, offset: *const Interval, out: *mut f32);
            }
        "#;
        let found = scan_sources(&[(PathBuf::from("src/lib.rs"), source.to_string())]).unwrap();
        let kernel = &found.blocks[0].block.kernels[0];
        // nvcc 13.0's symbol (kernels/ptx/namespaces.ptx).
        assert_eq!(kernel.symbol, "_ZN2ns6spreadENS_6shapes8IntervalEPKS1_Pf");
        assert!(declares(
            &found.blocks[0].block,
            "_ZN2ns6spreadENS_6shapes8IntervalEPKS1_Pf"
        ));
        // The header's prototype names the struct by its CUDA name, and declares it in its
        // namespace.
        let header = header("namespaces", &found);
        assert!(
            header.contains(
                "namespace ns { __global__ void spread(::ns::shapes::Interval iv, \
                 const ::ns::shapes::Interval* offset, float* out); }"
            ),
            "{header}"
        );
        assert!(header.contains("namespace ns::shapes {"), "{header}");
    }
}
