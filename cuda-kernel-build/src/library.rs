//! Static libraries of host code that launches its own kernels (`<<<...>>>`, CUTLASS-style
//! templates instantiated per file, candle's MoE and MMQ code): each `.cu` compiled by nvcc to an
//! object for the build's architectures, archived as `$OUT_DIR/lib<name>.a` and linked into the
//! crate with the CUDA runtime. The objects are kept with the key of their inputs, so a rebuild
//! compiles only the files whose source, local headers, flags or nvcc changed.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::nvcc;
use crate::target::Target;

/// One static library a build makes.
#[derive(Clone, Debug)]
pub(crate) struct Library {
    /// `moe`: `$OUT_DIR/libmoe.a`, linked as `static=moe`.
    pub name: String,
    /// Its `.cu` files, relative to `Cargo.toml`.
    pub files: Vec<PathBuf>,
    /// nvcc flags for this library's files alone (`-DNO_BF16_KERNEL`, `--default-stream
    /// per-thread`), after the build's own.
    pub flags: Vec<String>,
}

/// nvcc's `-gencode` arguments for a library's objects: machine code for every architecture
/// asked for, and PTX of the lowest, which the driver compiles for a newer GPU.
pub(crate) fn gencode(target: &Target) -> Vec<String> {
    let mut args: Vec<String> = target
        .caps
        .iter()
        .map(|cap| format!("-gencode=arch=compute_{cap},code=sm_{cap}"))
        .collect();
    let lowest = target.lowest();
    args.push(format!(
        "-gencode=arch=compute_{lowest},code=compute_{lowest}"
    ));
    args
}

/// What a build needs to make its libraries.
pub(crate) struct Inputs<'a> {
    pub nvcc: &'a Path,
    pub manifest_dir: &'a Path,
    pub includes: &'a [PathBuf],
    /// The build's flags (`-O3`, `-std=c++17`, ...).
    pub flags: &'a [String],
    pub target: &'a Target,
    pub out_dir: &'a Path,
}

/// Makes `library`, printing cargo's link lines; returns the archive's path.
pub(crate) fn build(library: &Library, inputs: &Inputs<'_>) -> Result<PathBuf, Vec<String>> {
    let Inputs {
        nvcc,
        manifest_dir,
        includes,
        flags,
        target,
        out_dir,
    } = *inputs;
    let objects_dir = out_dir
        .join("cuda-kernel")
        .join("objects")
        .join(&library.name);
    std::fs::create_dir_all(&objects_dir)
        .map_err(|e| vec![format!("cannot create {}: {e}", objects_dir.display())])?;
    let msvc = std::env::var("TARGET").is_ok_and(|t| t.contains("msvc"));
    let mut args: Vec<String> = vec!["-c".into()];
    args.extend(gencode(target));
    args.extend(flags.iter().cloned());
    args.extend(library.flags.iter().cloned());
    if !msvc {
        // Linked into a Rust crate, which may be a shared library or a PIE executable.
        args.extend(["-Xcompiler".to_string(), "-fPIC".to_string()]);
    }
    args.extend(includes.iter().map(|d| format!("-I{}", d.display())));
    let stamp = nvcc::stamp(nvcc);
    // Each object named by the hash of what it is made of: an object that exists is current.
    let mut runs: Vec<(PathBuf, PathBuf, bool)> = Vec::new();
    for file in &library.files {
        let source = manifest_dir.join(file);
        println!("cargo::rerun-if-changed={}", source.display());
        let mut hasher = Sha256::new();
        let text = std::fs::read(&source)
            .map_err(|e| vec![format!("cannot read {}: {e}", source.display())])?;
        hasher.update(&text);
        for header in nvcc::local_includes(&source, includes) {
            println!("cargo::rerun-if-changed={}", header.display());
            hasher.update(header.to_string_lossy().as_bytes());
            hasher.update(std::fs::read(&header).unwrap_or_default());
        }
        hasher.update(args.join("\n").as_bytes());
        hasher.update(format!("{} {stamp}", nvcc.display()).as_bytes());
        let digest = nvcc::hex(&hasher.finalize()[..8]);
        let stem = file
            .file_stem()
            .map_or_else(|| "object".into(), |s| s.to_string_lossy().into_owned());
        let object = objects_dir.join(format!("{stem}-{digest}.o"));
        let current = object.is_file();
        runs.push((source, object, current));
    }
    let problems: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .filter(|(_, _, current)| !current)
            .map(|(source, object, _)| {
                let args = &args;
                scope.spawn(move || compile(nvcc, args, source, object))
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("nvcc's thread panicked".to_string()))
                    .err()
            })
            .collect()
    });
    if !problems.is_empty() {
        return Err(problems);
    }
    let archive = out_dir.join(format!("lib{}.a", library.name));
    let _ = std::fs::remove_file(&archive);
    let output = Command::new(nvcc)
        .arg("--lib")
        .arg("-o")
        .arg(&archive)
        .args(runs.iter().map(|(_, object, _)| object))
        .output()
        .map_err(|e| vec![format!("cannot run {}: {e}", nvcc.display())])?;
    if !output.status.success() {
        return Err(vec![format!(
            "nvcc could not archive {}:\n{}",
            archive.display(),
            String::from_utf8_lossy(&output.stderr).trim_end()
        )]);
    }
    link_lines(
        &library.name,
        out_dir,
        nvcc::toolkit_root(nvcc).as_deref(),
        msvc,
    );
    Ok(archive)
}

/// One object: `nvcc -c` of `source`, written beside its key so that a failed or interrupted
/// run leaves no object a later build would take as current.
fn compile(nvcc: &Path, args: &[String], source: &Path, object: &Path) -> Result<(), String> {
    let partial = object.with_extension("o.partial");
    let output = nvcc::limited(|| {
        Command::new(nvcc)
            .args(args)
            .arg("-o")
            .arg(&partial)
            .arg(source)
            .output()
    })
    .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    if !output.status.success() {
        return Err(format!(
            "nvcc failed compiling {} for the static library:\n{}",
            source.display(),
            String::from_utf8_lossy(&output.stderr).trim_end()
        ));
    }
    std::fs::rename(&partial, object).map_err(|e| format!("cannot write {}: {e}", object.display()))
}

/// Cargo's lines linking the archive, the CUDA runtime its host code calls, and the C++ runtime
/// nvcc's host compiler expects (not on MSVC, which links its own).
fn link_lines(name: &str, out_dir: &Path, toolkit: Option<&Path>, msvc: bool) {
    println!("cargo::rustc-link-search=native={}", out_dir.display());
    println!("cargo::rustc-link-lib=static={name}");
    if let Some(root) = toolkit {
        for lib in ["lib64", "lib", "lib/x64"] {
            let dir = root.join(lib);
            if dir
                .join(if msvc { "cudart.lib" } else { "libcudart.so" })
                .exists()
            {
                println!("cargo::rustc-link-search=native={}", dir.display());
            }
        }
    }
    println!("cargo::rustc-link-lib=dylib=cudart");
    if !msvc {
        println!("cargo::rustc-link-lib=dylib=stdc++");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{Cap, Target};

    #[test]
    fn objects_carry_machine_code_for_each_architecture_and_ptx_of_the_lowest() {
        let cap = |t| Cap::parse(t).unwrap();
        let target = Target::choose(Some("90,75"), None, cap("80")).unwrap();
        assert_eq!(
            gencode(&target),
            [
                "-gencode=arch=compute_75,code=sm_75",
                "-gencode=arch=compute_90,code=sm_90",
                "-gencode=arch=compute_75,code=compute_75",
            ]
        );
    }
}
