//! Declarations generated from real, vendored `.cu` files (candle's fill.cu and reduce.cu,
//! llm.c's kernels, cuda-samples' vectorAdd and transposes, in kernels/cuda/), preprocessed by
//! nvcc for the architecture their PTX was built for, then put through the same front end as
//! hand-written blocks: parsed as `#[kernel]` parses them and checked against the committed PTX.
//! Every entry of each PTX is declared or named in a warning.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuda_kernel_syntax::report::Errors;
use cuda_kernel_syntax::{parse, ptx_check};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn preprocess(file: &Path, arch: &str) -> String {
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let out = Command::new(nvcc)
        .args(["-E", &format!("-arch={arch}"), "-I"])
        .arg(file.parent().unwrap())
        .arg(file)
        .output()
        .expect("nvcc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The compiler's facts of `file`: its PTX compiled with `-G` for `arch`, as the build step
/// compiles it, read.
fn facts(file: &Path, arch: &str) -> cuda_kernel_build::Facts {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let out = std::env::temp_dir().join(format!(
        "cuda-kernel-facts-{}-{}.ptx",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let result = Command::new(nvcc)
        .args(["-ptx", "-G", &format!("-arch={arch}"), "-I"])
        .arg(file.parent().unwrap())
        .arg("-o")
        .arg(&out)
        .arg(file)
        .output()
        .expect("nvcc runs");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let ptx = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    cuda_kernel_build::Facts::read(&ptx).unwrap()
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn every_kernel_of_real_files_is_declared_or_named_and_the_declarations_pass_the_ptx_check() {
    let dir = repo().join("kernels/cuda");
    let mut total = (0, 0, 0);
    for (stem, arch) in [
        ("candle_fill", "compute_80"),
        ("candle_reduce", "compute_80"),
        ("llmc", "compute_75"),
        ("cuda_samples", "compute_75"),
        ("vector_add", "compute_75"),
        ("templates", "compute_75"),
        ("class_templates", "compute_75"),
        ("namespaces", "compute_90a"),
        ("structs", "compute_75"),
        ("echo", "compute_75"),
        ("cxx_fixtures", "compute_75"),
        ("low_precision", "compute_75"),
        ("multi_gpu", "compute_75"),
        ("device_fns", "compute_75"),
    ] {
        let source = dir.join(format!("{stem}.cu"));
        let text = preprocess(&source, arch);
        let facts = facts(&source, arch);
        let name = format!("{stem}.cu");
        let here = |file: &str| Path::new(file).file_name().is_some_and(|f| *f == *name);
        let ptx = repo().join(format!("kernels/ptx/{stem}.ptx"));
        let (mut cx, ptx_file, entries) = read_ptx(&ptx);
        // structs.cu takes the structs the kernels crate defines in Rust (params.cuh is their
        // CUDA declaration): bound, as Build::bind_struct does.
        let bound = [
            (
                "Particle".to_string(),
                "kernels::params::Particle".to_string(),
            ),
            (
                "BigParams".to_string(),
                "kernels::params::BigParams".to_string(),
            ),
        ];
        let generated = cuda_kernel_build::generate(
            &format!("cuda/{stem}.cu"),
            &text,
            &here,
            &cuda_kernel_build::Options {
                ptx: ptx.to_str().unwrap(),
                module: "Kernels",
                entries: &entries,
                structs: if stem == "structs" { &bound } else { &[] },
                facts: Some(&facts),
                ..Default::default()
            },
        );
        check(stem, &generated, &ptx_file, &mut cx, &[]);
        if stem == "namespaces" {
            // `other::plain` beside `ns::plain`: a block of its own, renamed.
            assert!(
                generated.rust.contains(
                    "#[kernel(cpp, namespace = \"other\", rename = OtherPlain)]\n    \
                     #[allow(non_snake_case)]\n    pub fn plain(x: *mut f32);"
                ),
                "{}",
                generated.rust
            );
            assert_eq!(generated.warnings, Vec::<String>::new());
        }
        let families = generated.rust.matches("#[kernel(name = ").count();
        let templates = generated.rust.matches("#[kernel(cpp").count();
        println!(
            "{stem}.cu ({arch}): {} entries in the PTX, {} kernels declared ({families} \
             families, {templates} C++ declarations), {} named in warnings",
            ptx_file.entries.len(),
            generated.declared.len(),
            generated.warnings.len()
        );
        for warning in &generated.warnings {
            println!("  {warning}");
        }
        total.0 += ptx_file.entries.len();
        total.1 += generated.declared.len();
        total.2 += generated.warnings.len();
    }
    println!(
        "all: {} entries, {} declared, {} named in warnings",
        total.0, total.1, total.2
    );
    assert!(total.1 >= 100, "{total:?}");
}

/// Parses and checks a generated block as `#[kernel]` does, against its PTX, and asserts that
/// every entry is declared or named in a warning.
fn check(
    stem: &str,
    generated: &cuda_kernel_build::Generated,
    ptx_file: &ptx_check::PtxFile,
    cx: &mut Errors,
    elsewhere: &[String],
) {
    // Parsed and checked as #[kernel] does.
    if !generated.rust.is_empty() {
        let file: syn::File = syn::parse_str(&generated.rust).unwrap_or_else(|e| {
            panic!("{stem}: {e}\n{}", generated.rust);
        });
        // The main block, and one per twin (a kernel named as one of the main block, in
        // another namespace).
        let blocks: Vec<syn::ItemForeignMod> = file
            .items
            .into_iter()
            .filter_map(|item| match item {
                syn::Item::ForeignMod(block) => Some(block),
                _ => None,
            })
            .collect();
        assert!(!blocks.is_empty(), "{stem}: no block");
        for mut block in blocks {
            // The macro sees the block without its own attribute.
            block.attrs.clear();
            let mut parsed = parse::parse_block(cx, block, &Default::default());
            ptx_check::check_against_ptx(cx, &mut parsed, ptx_file);
        }
    }
    assert!(
        cx.is_empty(),
        "{stem}: {:?}\n{}",
        cx.messages(),
        generated.rust
    );
    // Every entry is declared or named in a warning, and the generator says so.
    assert!(
        generated.accounting.complete() && generated.accounting.entries == ptx_file.entries.len(),
        "{stem}: {}",
        generated.accounting
    );
    let warned: Vec<&str> = generated
        .warnings
        .iter()
        .filter_map(|w| w.split('`').nth(1))
        .collect();
    for entry in &ptx_file.entries {
        let covered = generated
            .declared
            .iter()
            .map(String::as_str)
            .chain(warned.iter().copied())
            .chain(elsewhere.iter().map(String::as_str))
            .any(|k| cuda_kernel_build::entry_function(&entry.name) == k);
        assert!(
            covered,
            "{stem}: `{}` neither declared nor named",
            entry.name
        );
    }
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn arch_specific_targets_build_read_and_check() {
    // namespaces.cu (a cluster-shaped kernel among its namespaced ones) for Hopper's and
    // Blackwell's arch-specific targets: the PTX says `.target sm_90a` / `sm_100a`, reads, and
    // the declarations generated from the source pass the PTX check against it.
    let source = repo().join("kernels/cuda/namespaces.cu");
    let out = std::env::temp_dir().join(format!("cuda-kernel-arch-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    for (arch, target) in [("compute_90a", "sm_90a"), ("compute_100a", "sm_100a")] {
        let ptx = out.join(format!("namespaces-{arch}.ptx"));
        let status = Command::new(&nvcc)
            .args(["-ptx", &format!("-arch={arch}"), "-o"])
            .arg(&ptx)
            .arg(&source)
            .status()
            .expect("nvcc runs");
        assert!(status.success(), "nvcc -arch={arch}");
        let text = std::fs::read_to_string(&ptx).unwrap();
        assert!(text.contains(&format!(".target {target}")), "{arch}");
        assert!(text.contains(".reqnctapercluster 2, 1, 1"), "{arch}");
        let (mut cx, ptx_file, entries) = read_ptx(&ptx);
        assert_eq!(ptx_file.entries.len(), 9, "{arch}");
        let preprocessed = preprocess(&source, arch);
        let facts = facts(&source, arch);
        let here = |file: &str| file.ends_with("namespaces.cu");
        let generated = cuda_kernel_build::generate(
            "namespaces.cu",
            &preprocessed,
            &here,
            &cuda_kernel_build::Options {
                ptx: ptx.to_str().unwrap(),
                module: "Kernels",
                entries: &entries,
                facts: Some(&facts),
                ..Default::default()
            },
        );
        check(arch, &generated, &ptx_file, &mut cx, &[]);
        assert_eq!(
            generated.accounting.declared, 9,
            "{arch}: {}",
            generated.rust
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A PTX file read as `#[kernel(ptx = ...)]` reads it, with its entries' names.
fn read_ptx(ptx: &Path) -> (Errors, ptx_check::PtxFile, Vec<String>) {
    let mut cx = Errors::default();
    let lit = syn::LitStr::new(ptx.to_str().unwrap(), proc_macro2::Span::call_site());
    let ptx_file = ptx_check::read_ptx(&mut cx, &lit, None).expect("the PTX reads");
    let entries = ptx_file.entries.iter().map(|e| e.name.clone()).collect();
    (cx, ptx_file, entries)
}

/// Generates and checks `dir/<stem>.cu` against `ptx_dir/<stem>.ptx`.
fn generate_checked(
    dir: &Path,
    ptx_dir: &Path,
    stem: &str,
    arch: &str,
    families: &[cuda_kernel_build::NamedFamily],
    hand_written: &[String],
) -> cuda_kernel_build::Generated {
    let text = preprocess(&dir.join(format!("{stem}.cu")), arch);
    let facts = facts(&dir.join(format!("{stem}.cu")), arch);
    let name = format!("{stem}.cu");
    let here = |file: &str| Path::new(file).file_name().is_some_and(|f| *f == *name);
    let ptx = ptx_dir.join(format!("{stem}.ptx"));
    let (mut cx, ptx_file, entries) = read_ptx(&ptx);
    let generated = cuda_kernel_build::generate(
        &name,
        &text,
        &here,
        &cuda_kernel_build::Options {
            ptx: ptx.to_str().unwrap(),
            module: "Kernels",
            entries: &entries,
            families,
            hand_written,
            facts: Some(&facts),
            ..Default::default()
        },
    );
    if hand_written.is_empty() {
        check(stem, &generated, &ptx_file, &mut cx, &[]);
    }
    generated
}

fn family(pattern: &str, name: &str) -> cuda_kernel_build::NamedFamily {
    cuda_kernel_build::NamedFamily {
        pattern: pattern.to_string(),
        name: name.to_string(),
    }
}

/// The declaration of `name` in generated text: its `#[kernel(name = ...)]` pattern and its
/// signature's line.
fn declaration<'a>(rust: &'a str, name: &str) -> Option<(&'a str, &'a str)> {
    let lines: Vec<&str> = rust.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("pub fn {name}<")))?;
    let pattern = lines[..at]
        .iter()
        .rev()
        .find_map(|l| l.trim().strip_prefix("#[kernel(name = \""))?
        .trim_end_matches("\")]");
    Some((pattern, lines[at].trim()))
}

/// The strided-tensor backend's files (examples/tensor/cuda, candle's layout): with the
/// families its build script names, one declaration per op group chosen at run time, the
/// casts found as a two-type family, every entry a member, every block passing the PTX check
/// with the members the hand-written declarations had.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn run_time_named_and_two_type_families_cover_the_strided_backends_kernels() {
    let dir = repo().join("examples/tensor/cuda");
    let ptx = repo().join("examples/tensor/ptx");
    // As examples/tensor/build.rs names them, each for its file.
    let named = |stem: &str| -> Vec<cuda_kernel_build::NamedFamily> {
        match stem {
            "unary" => vec![family("u{op}_{T}", "unary"), family("upowf_{T}", "powf")],
            "binary" => vec![family("b{op}_{T}", "binary"), family("{op}_{T}", "cmp")],
            "reduce" => vec![family("fast_{op}_{T}", "reduce")],
            "where_index" => vec![
                family("where_{I}_{T}", "where_cond"),
                family("is_{I}_{T}", "index_select"),
            ],
            _ => Vec::new(),
        }
    };
    let mut total = 0;
    for (stem, expected) in [
        (
            "unary",
            &[("unary", "u{op}_{T}"), ("powf", "upowf_{T}")][..],
        ),
        ("binary", &[("binary", "b{op}_{T}"), ("cmp", "{op}_{T}")]),
        ("cast", &[("cast", "cast_{T}_{U}")]),
        ("reduce", &[("reduce", "fast_{op}_{T}")]),
        (
            "where_index",
            &[
                ("where_cond", "where_{I}_{T}"),
                ("index_select", "is_{I}_{T}"),
            ],
        ),
    ] {
        let generated = generate_checked(&dir, &ptx, stem, "compute_80", &named(stem), &[]);
        assert!(generated.warnings.is_empty(), "{:?}", generated.warnings);
        let declarations = generated.rust.matches("pub fn ").count();
        assert_eq!(declarations, expected.len(), "{}", generated.rust);
        for (name, pattern) in expected {
            let (found, _) = declaration(&generated.rust, name).unwrap_or_else(|| {
                panic!("{stem}: no `{name}`\n{}", generated.rust);
            });
            assert_eq!(found, *pattern);
        }
        println!(
            "{stem}.cu: {} kernels in {} declarations ({})",
            generated.declared.len(),
            declarations,
            expected
                .iter()
                .map(|(n, p)| format!("{n} = {p}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        total += generated.declared.len();
    }
    // Every entry of the five files: 43 + 4 unary, 42 + 42 binary and compare, 49 casts, 12
    // reductions, 21 + 21 selects (tensor-backend's unit test checks the same members).
    assert_eq!(total, 234, "{total}");

    // The cmp shape: `out` is `u8` whatever `T` is (in `eq_u8` it could be read as `T`).
    let binary = generate_checked(&dir, &ptx, "binary", "compute_80", &named("binary"), &[]);
    let (_, cmp) = declaration(&binary.rust, "cmp").unwrap();
    assert!(cmp.ends_with("out: *mut u8);"), "{cmp}");

    // Unnamed, each op is a family of its own (`uexp_{T}`), the casts still one.
    let unary = generate_checked(&dir, &ptx, "unary", "compute_80", &[], &[]);
    assert_eq!(
        declaration(&unary.rust, "uexp").map(|d| d.0),
        Some("uexp_{T}")
    );
    assert!(unary.rust.matches("pub fn ").count() >= 10);

    // A hand-written family pattern takes every kernel it matches out of generation.
    let hand = ["u{op}_{T}".to_string()];
    let rest = generate_checked(&dir, &ptx, "unary", "compute_80", &named("unary"), &hand);
    assert!(rest.declared.is_empty(), "{:?}", rest.declared);

    // A named family that cannot be declared says why (here, a pattern with two parts chosen
    // at run time; the unit tests have the others).
    let bad = [family("u{op}_{dtype}", "ops")];
    let warned = generate_checked(&dir, &ptx, "unary", "compute_80", &bad, &[]);
    assert!(
        warned.warnings.iter().any(|w| w.contains(
            "`u{op}_{dtype}` (ops) is not generated: a family pattern has at most one part \
             chosen at run time"
        )),
        "{:?}",
        warned.warnings
    );
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn kernels_of_an_included_header_are_declared_once_by_the_first_file_including_it() {
    // k.cu includes k.cuh (an extern "C" kernel, a C++ one and a template instance) and
    // defines its own; k2.cu includes the same header. Every entry of both PTX files is
    // accounted for, the header's kernels declared by k.cu's block alone.
    let dir = std::env::temp_dir().join(format!("cuda-kernel-headers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("k.cuh"),
        "#pragma once\n\
         extern \"C\" __global__ void c_in_header(float *x) { x[0] = 1; }\n\
         __global__ void in_header(int *x, unsigned n) { x[0] = n; }\n\
         template <class T> __global__ void t_in_header(T *x) { x[0] = T(3); }\n\
         template __global__ void t_in_header<float>(float *);\n\
         template __global__ void t_in_header<__nv_bfloat16>(__nv_bfloat16 *);\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("k.cu"),
        "#include <cuda_bf16.h>\n#include \"k.cuh\"\n__global__ void in_file(float *x) { x[0] = 4; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("k2.cu"),
        "#include <cuda_bf16.h>\n#include \"k.cuh\"\nextern \"C\" __global__ void own(float *x) { x[0] = 5; }\n",
    )
    .unwrap();
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let mut claimed: Vec<String> = Vec::new();
    let mut results = Vec::new();
    for stem in ["k", "k2"] {
        let source = dir.join(format!("{stem}.cu"));
        let ptx = dir.join(format!("{stem}.ptx"));
        let out = Command::new(&nvcc)
            .args(["-ptx", "-arch=compute_80", "-o"])
            .arg(&ptx)
            .arg(&source)
            .output()
            .expect("nvcc runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = preprocess(&source, "compute_80");
        let facts = facts(&source, "compute_80");
        // The file and its folder's headers, as the build step tells them.
        let local = dir.canonicalize().unwrap();
        let here = |file: &str| {
            Path::new(file)
                .canonicalize()
                .is_ok_and(|p| p.starts_with(&local))
        };
        let (mut cx, ptx_file, entries) = read_ptx(&ptx);
        let generated = cuda_kernel_build::generate(
            &format!("{stem}.cu"),
            &text,
            &here,
            &cuda_kernel_build::Options {
                ptx: ptx.to_str().unwrap(),
                module: "Kernels",
                entries: &entries,
                elsewhere: &claimed,
                facts: Some(&facts),
                ..Default::default()
            },
        );
        check(stem, &generated, &ptx_file, &mut cx, &claimed);
        claimed.extend(generated.from_headers.iter().cloned());
        results.push(generated);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let (k, k2) = (&results[0], &results[1]);
    assert_eq!(
        k.declared,
        ["c_in_header", "in_header", "t_in_header", "in_file"],
        "{}",
        k.rust
    );
    assert!(
        k.rust.contains("pub fn t_in_header<T>(x: *mut T);"),
        "{}",
        k.rust
    );
    assert_eq!(k.accounting.entries, 5, "{}", k.accounting);
    assert_eq!(k.accounting.declared, 5, "{}", k.accounting);
    assert!(k.warnings.is_empty(), "{:?}", k.warnings);
    assert_eq!(k2.declared, ["own"], "{}", k2.rust);
    assert_eq!(
        (
            k2.accounting.entries,
            k2.accounting.declared,
            k2.accounting.elsewhere
        ),
        (5, 1, 4),
        "{}",
        k2.accounting
    );
    assert!(k2.accounting.complete());
    assert!(
        k.rust.contains("// 5 entries in the PTX: 5 declared here, 0 by hand, 0 in another file's block, 0 named in warnings."),
        "{}",
        k.rust
    );
}
