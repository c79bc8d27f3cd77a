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
        ("structs", "compute_75"),
        ("echo", "compute_75"),
        ("cxx_fixtures", "compute_75"),
        ("low_precision", "compute_75"),
        ("multi_gpu", "compute_75"),
    ] {
        let source = dir.join(format!("{stem}.cu"));
        let text = preprocess(&source, arch);
        let name = format!("{stem}.cu");
        let here = |file: &str| Path::new(file).file_name().is_some_and(|f| *f == *name);
        let ptx = repo().join(format!("kernels/ptx/{stem}.ptx"));
        let mut cx = Errors::default();
        let lit = syn::LitStr::new(ptx.to_str().unwrap(), proc_macro2::Span::call_site());
        let ptx_file = ptx_check::read_ptx(&mut cx, &lit, None).expect("the PTX reads");
        let entries: Vec<String> = ptx_file.entries.iter().map(|e| e.name.clone()).collect();
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
                ..Default::default()
            },
        );
        // Parsed and checked as #[kernel] does.
        if !generated.rust.is_empty() {
            let file: syn::File = syn::parse_str(&generated.rust).unwrap_or_else(|e| {
                panic!("{stem}: {e}\n{}", generated.rust);
            });
            let mut block = file
                .items
                .into_iter()
                .find_map(|item| match item {
                    syn::Item::ForeignMod(block) => Some(block),
                    _ => None,
                })
                .expect("one block");
            // The macro sees the block without its own attribute.
            block.attrs.clear();
            let mut parsed = parse::parse_block(&mut cx, block, &[]);
            ptx_check::check_against_ptx(&mut cx, &mut parsed, &ptx_file);
        }
        assert!(
            cx.is_empty(),
            "{stem}: {:?}\n{}",
            cx.messages(),
            generated.rust
        );
        // Every entry is declared or named in a warning.
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
                .any(|k| entry.name == k || entry.name.starts_with(&format!("_Z{}{k}", k.len())));
            assert!(
                covered,
                "{stem}: `{}` neither declared nor named",
                entry.name
            );
        }
        let families = generated.rust.matches("#[kernel(name = ").count();
        let templates = generated.rust.matches("#[kernel(cpp)]").count();
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
