//! Fails the build when a CUDA source changed after its PTX was generated.
//!
//! scripts/regen-ptx.sh writes `// cuda-kernel-source-sha256: <hash>` as the first line of each
//! PTX file, hashing the `.cu` followed by every `cuda/*.cuh` (which any `.cu` may include); the
//! PTX is committed so that building needs no CUDA toolkit.

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::Path;

const MARKER: &str = "// cuda-kernel-source-sha256: ";

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    println!("cargo::rerun-if-changed=cuda");
    println!("cargo::rerun-if-changed=ptx");
    let mut problems = Vec::new();
    let mut sources: Vec<_> = match std::fs::read_dir(dir.join("cuda")) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => fail(&[format!("cannot read kernels/cuda: {e}")]),
    };
    sources.sort();
    let mut headers = Vec::new();
    for header in sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cuh"))
    {
        println!("cargo::rerun-if-changed={}", header.display());
        match std::fs::read(header) {
            Ok(bytes) => headers.extend(bytes),
            Err(e) => problems.push(format!("cannot read {}: {e}", header.display())),
        }
    }
    for cu in sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
    {
        let name = cu
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let ptx = dir.join("ptx").join(format!("{name}.ptx"));
        println!("cargo::rerun-if-changed={}", cu.display());
        println!("cargo::rerun-if-changed={}", ptx.display());
        let source = match std::fs::read(cu) {
            Ok(bytes) => bytes,
            Err(e) => {
                problems.push(format!("cannot read kernels/cuda/{name}.cu: {e}"));
                continue;
            }
        };
        let recorded = match std::fs::read_to_string(&ptx) {
            Ok(text) => text
                .lines()
                .next()
                .and_then(|line| line.strip_prefix(MARKER))
                .map(str::to_owned),
            Err(_) => {
                problems.push(format!("kernels/ptx/{name}.ptx is missing"));
                continue;
            }
        };
        let mut hasher = Sha256::new();
        hasher.update(&source);
        hasher.update(&headers);
        let actual = hasher.finalize().iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
        match recorded {
            Some(hash) if hash.trim() == actual => {}
            Some(_) => problems.push(format!(
                "kernels/cuda/{name}.cu changed after kernels/ptx/{name}.ptx was generated"
            )),
            None => problems.push(format!(
                "kernels/ptx/{name}.ptx does not record its source's hash (was it written by hand?)"
            )),
        }
    }
    if !problems.is_empty() {
        fail(&problems);
    }
}

fn fail(problems: &[String]) -> ! {
    for problem in problems {
        eprintln!("error: {problem}");
    }
    eprintln!(
        "error: regenerate the PTX with scripts/regen-ptx.sh on a machine with the CUDA toolkit \
         (the project's GPU machine has one), then commit kernels/ptx/"
    );
    std::process::exit(1);
}
