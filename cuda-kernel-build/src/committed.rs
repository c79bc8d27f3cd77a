//! The committed files: each `.cu` file's PTX and generated declarations kept in the crate
//! (`Build::committed_ptx`), from which machines without nvcc build. One policy for both kinds:
//! with nvcc, a committed file should be what this build made (written on request or on a
//! crate's first build, an error in strict mode, a warning otherwise); without nvcc, the
//! committed file is used, and one not made from the current sources is an error in strict mode.
//! A file made for another architecture or by another nvcc than this build's is not compared
//! (they cannot agree): said once for the build, an error in strict mode.

use std::path::{Path, PathBuf};

use crate::target::MadeBy;
use crate::{CHECK_PTX_ENV, HASH_MARKER, WRITE_PTX_ENV, nvcc, write_if_changed};

/// The record of a PTX file's inputs ([`HASH_MARKER`]'s line), and the rest of the file.
pub(crate) struct Recorded<'a> {
    /// The hash of every input.
    inputs: Option<&'a str>,
    /// The hash of the inputs but the Rust declarations.
    sources: Option<&'a str>,
    pub(crate) body: &'a str,
}

impl<'a> Recorded<'a> {
    pub(crate) fn read(ptx: &'a str) -> Recorded<'a> {
        let Some((line, body)) = ptx
            .strip_prefix(HASH_MARKER)
            .map(|rest| rest.split_once('\n').unwrap_or((rest, "")))
        else {
            return Recorded {
                inputs: None,
                sources: None,
                body: ptx,
            };
        };
        let mut words = line.split_whitespace();
        Recorded {
            inputs: words.next(),
            sources: words.next(),
            body,
        }
    }
}

/// PTX with the hashes nvcc derives from the source file's path made equal: names of
/// internal-linkage objects (`_INTERNAL_85b4dd50_7_llmc_cu_6022c32d...`, and the anonymous
/// namespace `_GLOBAL__N__85b4dd50_...` inside them, which `<cooperative_groups/reduce.h>` and
/// `cuda::std` headers bring) differ between two checkouts of the same sources, and only there.
fn without_path_hashes(ptx: &str) -> std::borrow::Cow<'_, str> {
    const MARK: &str = "_INTERNAL_";
    let mut hashes: Vec<&str> = Vec::new();
    for (at, _) in ptx.match_indices(MARK) {
        let hash = ptx[at + MARK.len()..].get(..8);
        if let Some(hash) = hash.filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit())) {
            if !hashes.contains(&hash) {
                hashes.push(hash);
            }
        }
    }
    if hashes.is_empty() {
        return std::borrow::Cow::Borrowed(ptx);
    }
    let mut out = ptx.to_string();
    for hash in hashes {
        out = out.replace(hash, "00000000");
    }
    std::borrow::Cow::Owned(out)
}

/// PTX as the committed-PTX comparison sees it: the parts of internal names that change from
/// run to run masked (`_INTERNAL_..._7412`, whose counter differs on every nvcc run of a file
/// with no external symbol), then the path hashes and the asserts' source paths.
fn comparable(ptx: &str) -> String {
    let masked = cuda_kernel_syntax::itanium::without_internal_parts(ptx);
    without_source_paths(&without_path_hashes(&masked))
}

/// PTX with the source paths device `assert`s carry (`__FILE__`, a string constant
/// `$str$N[len] = {47, 119, ...}` holding the absolute path nvcc found the file under) cut to
/// their file names: llm.c's headers assert, and their PTX differs between two checkouts only
/// there.
fn without_source_paths(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        let path = line
            .contains(".b8 $str")
            .then(|| line.split_once("= {")?.1.split_once('}'))
            .flatten()
            .and_then(|(bytes, _)| {
                let bytes: Vec<u8> = bytes
                    .split(',')
                    .map(|b| b.trim().parse::<u8>().ok())
                    .collect::<Option<_>>()?;
                let text = String::from_utf8(bytes).ok()?;
                let text = text.trim_end_matches('\0');
                (text.starts_with('/') && !text.contains(char::is_whitespace))
                    .then(|| text.rsplit('/').next().unwrap_or(text).to_string())
            });
        match (path, line.split_once("$str")) {
            (Some(name), Some((head, rest))) => {
                let id = rest.split('[').next().unwrap_or_default();
                out.push_str(&format!("{head}$str{id} = \"{name}\"\n"));
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// A file this run wrote for the user to commit is news once: cargo replays a build script's
/// warnings on every build until the script runs again, so the file written is made an input
/// of the run. Written after the run started, it is newer than the run, and the next build
/// runs the script once more (its nvcc work cached in `$OUT_DIR`), which finds the file as
/// written and says nothing.
fn announce_written(path: &Path) {
    println!("cargo::rerun-if-changed={}", path.display());
}

/// With nvcc: the committed PTX should be what nvcc made; rewritten on request, an error when
/// `strict`, a warning otherwise (the build goes on with nvcc's PTX). The same PTX under another
/// record of its inputs (a Rust declaration, a comment or a flag changed, not the PTX) is
/// rewritten outside `strict`, and said once.
pub(crate) fn compare_committed(
    dir: &Path,
    stem: &str,
    text: &str,
    strict: bool,
) -> Result<Option<String>, String> {
    let path = dir.join(format!("{stem}.ptx"));
    let old = std::fs::read_to_string(&path).ok();
    let new = Recorded::read(text);
    let same_ptx = |old: &Recorded| comparable(old.body) == comparable(new.body);
    // A record from before the sources' own hash was kept is current on the hash of all inputs.
    let current = |old: &Recorded| {
        old.inputs == new.inputs && old.sources.is_none_or(|s| Some(s) == new.sources)
    };
    if let Some(old) = old.as_deref().map(Recorded::read)
        && current(&old)
        && same_ptx(&old)
    {
        return Ok(None);
    }
    let write = std::env::var_os(WRITE_PTX_ENV).is_some_and(|v| v == "1");
    if old.is_none() && !write && strict {
        // Checked, not written: the source tree stays as it is in CI.
        return Err(missing(&path));
    }
    let same_body = old
        .as_deref()
        .map(Recorded::read)
        .is_some_and(|o| same_ptx(&o));
    if write || (!strict && (old.is_none() || same_body)) {
        // Asked for; a crate's first build with nvcc, which writes what machines without it
        // build from; or the same PTX under a new record of its inputs.
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if !write {
            announce_written(&path);
            let what = match old {
                None => format!("wrote {}, nvcc's PTX of {stem}.cu", path.display()),
                Some(_) => format!(
                    "updated the first line of {} (the record of its inputs: a Rust \
                     declaration, a comment of {stem}.cu or a flag changed, not the PTX)",
                    path.display()
                ),
            };
            return Ok(Some(format!(
                "{what}: commit it, and machines without nvcc (docs.rs, CI) build from it"
            )));
        }
        return Ok(None);
    }
    let message = match same_body {
        true => format!(
            "{} is the PTX nvcc makes of {stem}.cu now, but records other inputs (the .cu, its \
             headers, the Rust declarations of its kernels or nvcc's flags changed, not the PTX), \
             so machines without nvcc would not take it: rebuild with {WRITE_PTX_ENV}=1 to \
             write it, then commit it",
            path.display()
        ),
        false => format!(
            "{} differs from the PTX nvcc makes of {stem}.cu now: rebuild with \
             {WRITE_PTX_ENV}=1 to write it, then commit it",
            path.display()
        ),
    };
    if strict {
        return Err(message);
    }
    Ok(Some(format!(
        "{message} (this build uses nvcc's PTX; {CHECK_PTX_ENV}=1 or CI makes this an error)"
    )))
}

/// A committed file that a strict build (CI) finds missing: the build does not write into the
/// source tree there.
fn missing(path: &Path) -> String {
    format!(
        "{} does not exist yet: rebuild with {WRITE_PTX_ENV}=1 to write it and commit it, so that \
         machines without nvcc can build",
        path.display()
    )
}

/// With nvcc: the committed declarations generated from `shown` (`unary.cu`) should be `rust`,
/// what this build generated; as for the PTX, written on request or on a crate's first build,
/// an error when `strict`, a warning otherwise.
pub(crate) fn compare_declarations(
    path: &Path,
    rust: &str,
    shown: &str,
    strict: bool,
) -> Result<Option<String>, String> {
    let old = std::fs::read_to_string(path).ok();
    let write = std::env::var_os(WRITE_PTX_ENV).is_some_and(|v| v == "1");
    if old.as_deref() == Some(rust) && !write {
        return Ok(None);
    }
    if old.is_none() && !write && strict {
        return Err(missing(path));
    }
    if write || old.is_none() {
        // Asked for, or a crate's first build with nvcc: written, to commit.
        std::fs::write(path, rust).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if write {
            return Ok(None);
        }
        announce_written(path);
        return Ok(Some(format!(
            "wrote {}, the declarations generated from {shown}: commit it, and machines without \
             nvcc (docs.rs, CI) build from it",
            path.display()
        )));
    }
    let message = format!(
        "{} differs from the declarations generated from {shown} now: rebuild with \
         {WRITE_PTX_ENV}=1 to write it, then commit it",
        path.display()
    );
    match strict {
        true => Err(message),
        false => Ok(Some(message)),
    }
}

/// The committed PTX of `stem` where another architecture or another nvcc made it than
/// `made_now` (this build's): the two cannot be compared.
pub(crate) fn made_otherwise(dir: &Path, stem: &str, made_now: &MadeBy) -> Option<MadeBy> {
    let text = std::fs::read_to_string(dir.join(format!("{stem}.ptx"))).ok()?;
    let made = MadeBy::read(Recorded::read(&text).body);
    (made != *made_now).then_some(made)
}

/// The one message for a build's committed files made otherwise than its own (`stems`, each
/// with what made it): not compared, an error when `strict`.
pub(crate) fn not_compared(
    dir: &Path,
    stems: &[(String, MadeBy)],
    made_now: &MadeBy,
    target: &str,
    strict: bool,
) -> Result<Option<String>, String> {
    let Some((_, first)) = stems.first() else {
        return Ok(None);
    };
    let names: Vec<String> = stems.iter().map(|(s, _)| format!("{s}.ptx")).collect();
    let message = format!(
        "the committed files in {} ({}) were made for {}, and this build makes {} \
         (for {target}): built from the sources, the committed files neither compared nor \
         rewritten; to check them, build for their architecture with their nvcc, or write them \
         anew with {WRITE_PTX_ENV}=1",
        dir.display(),
        names.join(", "),
        first.describe(),
        made_now.describe()
    );
    match strict {
        true => Err(message),
        false => Ok(Some(message)),
    }
}

/// Without nvcc: the committed PTX; one not made from these sources is an error when `strict`,
/// used with a warning otherwise.
pub(crate) fn use_committed(
    dir: Option<&Path>,
    job: &nvcc::Job,
    out_dir: &Path,
    strict: bool,
) -> Result<(PathBuf, Option<String>), String> {
    let not_found = "nvcc was not found ($NVCC, $CUDA_HOME/bin, $CUDA_PATH/bin or PATH)";
    let get_nvcc = "install the CUDA toolkit, or NVIDIA's nvcc from PyPI (cuda-kernel's \
                    README, \"Getting nvcc\"), or set NVCC to an nvcc";
    let todo = format!(
        "on a machine with nvcc, rebuild with {WRITE_PTX_ENV}=1 and commit the PTX ({get_nvcc})"
    );
    let Some(dir) = dir else {
        return Err(format!(
            "cannot compile {source}: {not_found}\n  \
             {get_nvcc}; to build without nvcc, keep nvcc's PTX in the crate with \
             Build::committed_ptx(\"ptx\")",
            source = job.source.display()
        ));
    };
    let path = dir.join(format!("{}.ptx", job.stem));
    println!("cargo::rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "cannot compile {source}: {not_found}, and there is no committed PTX to build from \
             ({path} does not exist yet)\n  \
             a crate's first build needs nvcc: {get_nvcc}\n  \
             that build writes {path}: commit it, and machines without nvcc (docs.rs, CI) \
             build from it",
            source = job.source.display(),
            path = path.display()
        ),
        _ => format!(
            "cannot compile {source}: {not_found}, and {path} cannot be read ({e})\n  {todo}",
            source = job.source.display(),
            path = path.display()
        ),
    })?;
    let recorded = Recorded::read(&text);
    let mut warning = None;
    if recorded.inputs != Some(job.hash.as_str()) {
        // The `.cu`, its headers and flags as recorded, only Rust declarations changed: the
        // `#[kernel]` checks against this PTX say whether they fit, and nothing is news.
        let declarations_only = recorded.sources == Some(job.sources_hash.as_str());
        let message = match declarations_only {
            true => format!(
                "{} records other Rust declarations of {}.cu's kernels, and {not_found} to \
                 check the new ones against {}.cu: {todo}",
                path.display(),
                job.stem,
                job.stem
            ),
            false => format!(
                "{} was not made from the current {}.cu, its headers and flags{}, and nvcc was \
                 not found to make it again: on a machine with nvcc, rebuild with \
                 {WRITE_PTX_ENV}=1 and commit the PTX",
                path.display(),
                job.stem,
                // A record without the sources' own hash cannot tell them from declarations.
                match recorded.sources {
                    Some(_) => "",
                    None => " (or the Rust declarations of its kernels)",
                }
            ),
        };
        if strict {
            return Err(message);
        }
        if !declarations_only {
            warning = Some(format!(
                "{message} (this build uses it as it is; {CHECK_PTX_ENV}=1 or CI makes this an \
                 error)"
            ));
        }
    }
    let out = out_dir.join(format!("{}.ptx", job.stem));
    write_if_changed(&out, text.as_bytes()).map_err(|e| e.to_string())?;
    Ok((out, warning))
}

/// Whether committed PTX that is not current is an error: asked for (`check`), else
/// `CUDA_KERNEL_CHECK_PTX`, else in CI for a crate of its own checkout.
pub(crate) fn strict(check: Option<bool>, manifest_dir: &Path) -> bool {
    if let Some(check) = check {
        return check;
    }
    match std::env::var(CHECK_PTX_ENV).ok().as_deref().map(str::trim) {
        Some("1" | "true") => return true,
        Some("0" | "false") => return false,
        _ => {}
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    in_ci && !is_dependency(manifest_dir)
}

/// Whether the crate is a dependency fetched by cargo (from a registry or a git checkout),
/// rather than one of the workspace being developed.
fn is_dependency(manifest_dir: &Path) -> bool {
    let text = manifest_dir.to_string_lossy().replace('\\', "/");
    text.contains("/registry/src/") || text.contains("/git/checkouts/")
}

#[cfg(test)]
mod path_hash_tests {
    use super::{comparable, without_path_hashes, without_source_paths};

    #[test]
    fn assert_file_names_at_two_checkouts_compare_equal() {
        // `/work/main/kernels/cuda/llmc/matmul.cuh` and `/tmp/ci/kernels/cuda/llmc/matmul.cuh`.
        let bytes = |path: &str| -> String {
            let mut b: Vec<String> = path.bytes().map(|b| b.to_string()).collect();
            b.push("0".into());
            format!(
                ".global .align 1 .b8 $str$3[{}] = {{{}}};\n",
                b.len(),
                b.join(", ")
            )
        };
        let here = bytes("/work/main/kernels/cuda/llmc/matmul.cuh");
        let there = bytes("/tmp/ci/kernels/cuda/llmc/matmul.cuh");
        assert_ne!(here, there);
        assert_eq!(without_source_paths(&here), without_source_paths(&there));
        // Another file, or a message that is no path, still differs.
        assert_ne!(
            without_source_paths(&here),
            without_source_paths(&bytes("/tmp/ci/kernels/cuda/llmc/gelu.cuh"))
        );
        let message = bytes("n % x128::size == 0");
        assert_eq!(without_source_paths(&message), message);
        assert_eq!(without_source_paths(".entry k()\n"), ".entry k()\n");
    }

    #[test]
    fn ptx_of_the_same_source_at_two_paths_compares_equal() {
        let here = ".global .align 1 .b8 _ZN37_INTERNAL_85b4dd50_7_llmc_cu_6022c32d4cuda3std3__439_GLOBAL__N__85b4dd50_7_llmc_cu_6022c32d6ignoreE[1];\n";
        let there = ".global .align 1 .b8 _ZN37_INTERNAL_f19b07df_7_llmc_cu_6022c32d4cuda3std3__439_GLOBAL__N__f19b07df_7_llmc_cu_6022c32d6ignoreE[1];\n";
        assert_ne!(here, there);
        assert_eq!(without_path_hashes(here), without_path_hashes(there));
        // Another source (another file name in the symbol) still differs.
        let other = here.replace("llmc_cu", "main_cu");
        assert_ne!(without_path_hashes(here), without_path_hashes(&other));
        // PTX without such names is compared as it is.
        assert!(matches!(
            without_path_hashes(".entry k()\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn ptx_of_two_nvcc_runs_with_internal_counters_compares_equal() {
        // u4.cu (a template over a `static __device__` function, nothing external) compiled
        // twice by nvcc 13.0 with one command: the counter after the hash differs, and its
        // digits change the length prefix.
        let run = |name: &str| {
            format!(
                ".entry _Z15unary_op_kernelIXadL_ZN{name}7op_geluEfEEfEvPKT0_PS1_i(\n\
                 .global .align 4 .b8 _ZN{name}5tableE[4];\n"
            )
        };
        let one = run("40_INTERNAL_9276699c_5_u4_cu_f863f173_3580");
        let two = run("41_INTERNAL_9276699c_5_u4_cu_f863f173_13591");
        assert_ne!(without_path_hashes(&one), without_path_hashes(&two));
        assert_eq!(comparable(&one), comparable(&two));
        // Another function in the same place still differs.
        assert_ne!(
            comparable(&one),
            comparable(&one.replace("7op_gelu", "7op_relu"))
        );
    }
}
