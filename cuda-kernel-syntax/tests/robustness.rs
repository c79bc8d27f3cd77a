//! Nothing a user writes may panic the front end: mutated real inputs (the repository's PTX,
//! its declarations, the mangled names in its PTX, symbol patterns) through each entry point
//! of the shared front end, `CUDA_KERNEL_MUTATIONS` (20,000 by default) per entry point.

use std::path::{Path, PathBuf};

use cuda_kernel_syntax::mutate;
use cuda_kernel_syntax::ptx_check::PtxFile;
use cuda_kernel_syntax::report::Errors;
use cuda_kernel_syntax::{check, demangle, foreign, parse, pattern, ptx, ptx_check};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The repository's PTX files: the kernels crate's (small, every feature of the reader).
fn ptx_corpus() -> Vec<String> {
    let mut files: Vec<_> = std::fs::read_dir(repo().join("kernels/ptx"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// The `.rs` files of a folder of the repository, sorted.
fn rs_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

/// Every `extern "C"` block of the repository's declaration tests and of the kernels crate.
fn declaration_corpus() -> Vec<String> {
    let mut sources = vec![repo().join("kernels/src/lib.rs")];
    for dir in [
        "tests/pass",
        "tests/ui/ptx",
        "tests/ui/generic",
        "tests/ui/types",
        "tests/ui/parse",
        "tests/ui/tma",
    ] {
        sources.extend(rs_files(dir));
    }
    let blocks: Vec<String> = sources
        .iter()
        .flat_map(|source| mutate::extern_blocks(&std::fs::read_to_string(source).unwrap()))
        .collect();
    assert!(blocks.len() > 20, "{} blocks", blocks.len());
    blocks
}

#[test]
fn the_ptx_reader_never_panics() {
    mutate::run("ptx reader", 11, &ptx_corpus(), |text| {
        let _ = ptx::entries(text);
        let _ = ptx::globals(text);
    });
}

#[test]
fn the_demangler_never_panics() {
    let mut names: Vec<String> = ptx_corpus()
        .iter()
        .flat_map(|text| ptx::entries(text).unwrap())
        .map(|e| e.name)
        .filter(|n| n.starts_with("_Z"))
        .collect();
    // Separate compilation's prefixed names (`-rdc=true`), as nvcc writes them.
    names.push("__nv_static_32__a7ac0bb9_5_st_cu_26cfd759_13155__Z3barIfEvPT_".to_string());
    names.sort();
    names.dedup();
    assert!(names.len() >= 5, "{names:?}");
    mutate::run("demangler", 12, &names, |name| {
        let _ = demangle::demangle(name);
        let _ = demangle::shown(name);
        let _ = demangle::param_types(name);
        let _ = demangle::template_args(name);
        let _ = demangle::written(name);
        let _ = cuda_kernel_syntax::itanium::without_internal_parts(name);
        if let Some(instance) = demangle::instance_name(name) {
            // What a C++ name is matched against: itself, and the mutated text as one.
            let _ = demangle::names_entry(&instance, name);
            let _ = demangle::names_entry(name, name);
        }
    });
}

#[test]
fn symbol_patterns_never_panic() {
    let corpus: Vec<String> = [
        "u{op}_{T}|uexp_f32",
        "affine_{T}|affine_f8_e4m3",
        "cast_{T}_{U}|cast_bf16_f32",
        "{op}_{I}_{T}|sa_u32_f16",
        "fast_arg{op}_{T}|fast_argmax_u8",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let types: Vec<String> = ["f32", "f16", "bf16", "u8", "u32", "f8_e4m3"]
        .map(String::from)
        .to_vec();
    mutate::run("patterns", 13, &corpus, |input| {
        let (pattern, symbol) = input.split_once('|').unwrap_or((input, input));
        let choices = |hole: &str| matches!(hole, "T" | "U" | "I").then_some(&types[..]);
        let _ = pattern::fill(pattern, symbol, &choices);
        let _ = pattern::holes(pattern);
        let _ = pattern::substitute(pattern, &[("T", "f32"), ("op", symbol)]);
    });
}

#[test]
fn declarations_are_parsed_and_checked_against_ptx_without_panicking() {
    let files: Vec<PtxFile> = ptx_corpus()
        .iter()
        .map(|text| PtxFile {
            path: "corpus.ptx".into(),
            shown: "corpus.ptx".into(),
            entries: ptx::entries(text).unwrap(),
            globals: ptx::globals(text).unwrap(),
        })
        .collect();
    let mut which = 0;
    mutate::run("declarations", 14, &declaration_corpus(), |text| {
        which += 1;
        // The macro's reading of a block is syn's, to the same tree, or fails where syn's does.
        let ours = text
            .parse::<proc_macro2::TokenStream>()
            .map_err(|e| e.to_string())
            .and_then(|tokens| foreign::parse(tokens).map_err(|e| e.to_string()));
        let Ok(item) = syn::parse_str::<syn::ItemForeignMod>(text) else {
            assert!(ours.is_err(), "read where syn fails:\n{text}");
            return; // not a block any more: rustc reports that, not the macro
        };
        let ours =
            ours.unwrap_or_else(|e| panic!("syn reads what the macro does not ({e}):\n{text}"));
        assert!(ours == item, "read otherwise than syn:\n{text}");
        assert_eq!(
            quote::quote!(#ours).to_string(),
            quote::quote!(#item).to_string()
        );
        let mut cx = Errors::default();
        let mut block = parse::parse_block(&mut cx, item, &Default::default());
        check::check_block(&mut cx, &block);
        ptx_check::check_against_ptx(&mut cx, &mut block, &files[which % files.len()]);
        let _ = cx.to_compile_errors();
    });
}

/// Every real block of the repository (the kernels crate's, the passing declaration tests', the
/// generated ones committed for the downstream crate and the strided-tensor backend), unmutated,
/// parses and passes every check against the PTX its `ptx = "..."` names: the corpora the
/// mutations start from are declarations the front end accepts.
#[test]
fn real_blocks_are_accepted_unmutated() {
    let mut sources: Vec<(PathBuf, PathBuf)> = Vec::new();
    let ptx_of = |dir: &str| repo().join(dir);
    for file in ["kernels/src/lib.rs", "kernels/src/checked.rs"] {
        sources.push((repo().join(file), ptx_of("kernels/ptx")));
    }
    for (dir, ptx) in [
        ("tests/pass", "kernels/ptx"),
        (
            "tests/downstream/generated/ptx",
            "tests/downstream/generated/ptx",
        ),
        ("examples/tensor/ptx", "examples/tensor/ptx"),
    ] {
        sources.extend(rs_files(dir).into_iter().map(|f| (f, ptx_of(ptx))));
    }
    let mut checked = 0;
    for (source, ptx_dir) in &sources {
        let text = std::fs::read_to_string(source).unwrap();
        for block in mutate::extern_blocks(&text) {
            // The block's own `ptx = "..."`, from the attribute before it.
            let head = text.split(&block[7..]).next().unwrap_or_default();
            let Some(written) = head
                .rsplit_once("#[")
                .and_then(|(_, attr)| attr.split_once("ptx = \""))
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(path, _)| path.to_string())
            else {
                continue; // no PTX named: nothing to check against
            };
            // A path in the repository (`$CUDA_KERNEL_REPO/tests/ui/ptx/fixtures/...`) as
            // written, any other by its file name in the folder of the source's PTX.
            let ptx = written.rsplit('/').next().unwrap_or(&written).to_string();
            let ptx_path = match written.strip_prefix("$CUDA_KERNEL_REPO/") {
                Some(rest) => repo().join(rest),
                None => ptx_dir.join(&ptx),
            };
            let ptx_text = std::fs::read_to_string(&ptx_path).unwrap_or_else(|e| {
                panic!("{}: {ptx}: {e}", source.display());
            });
            let file = PtxFile {
                path: ptx_path.clone(),
                shown: ptx.clone(),
                entries: ptx::entries(&ptx_text).unwrap(),
                globals: ptx::globals(&ptx_text).unwrap(),
            };
            let item = syn::parse_str::<syn::ItemForeignMod>(&block)
                .unwrap_or_else(|e| panic!("{}: {e}\n{block}", source.display()));
            let mut cx = Errors::default();
            // The block's arguments (`cpp`, `namespace`, `names(...)`), as the macro reads them.
            let args = head
                .rsplit_once("#[")
                .and_then(|(_, attr)| attr.split_once('('))
                .and_then(|(_, rest)| rest.rsplit_once(")]"))
                .map(|(args, _)| args.parse::<proc_macro2::TokenStream>().unwrap())
                .unwrap_or_default();
            let args = cuda_kernel_syntax::attr::parse_block_args(&mut cx, args);
            let mut parsed = parse::parse_block(&mut cx, item, &args.defaults);
            check::check_block(&mut cx, &parsed);
            ptx_check::check_against_ptx(&mut cx, &mut parsed, &file);
            assert!(
                cx.is_empty(),
                "{} (against {ptx}): {:?}",
                source.display(),
                cx.messages()
            );
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked} blocks");
    eprintln!("robustness: {checked} real blocks accepted unmutated");
}
