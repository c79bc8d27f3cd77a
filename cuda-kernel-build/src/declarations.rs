//! Generated declarations, file by file ([`Build::generate_declarations`](crate::Build)): each
//! file's block made by the generator ([`crate::generate`]) from the compiler's facts nvcc wrote
//! beside its PTX, kept with its inputs' key, compared with the committed copy and written to
//! `$OUT_DIR/cuda-kernel/<stem>.rs`; without nvcc, the committed copy.

use std::path::{Path, PathBuf};

use crate::committed::{self, Recorded};
use crate::{WRITE_PTX_ENV, generate, nvcc, scan, target, write_if_changed};

/// [`Build::generate_declarations`]: each file's kernels (those the crate declares by hand left
/// out) declared from the compiler's facts (its `-G` PTX) and its preprocessed text, the Rust
/// written to `$OUT_DIR/cuda-kernel/<stem>.rs` and, on request, committed beside the PTX;
/// without nvcc, the committed copy. Returns the files written and the warnings.
#[allow(clippy::too_many_arguments)]
pub(crate) fn generate_all(
    nvcc: Option<&Path>,
    bound_structs: &[(String, String)],
    families: &[(PathBuf, generate::NamedFamily)],
    alongside: &[PathBuf],
    jobs: &[nvcc::Job],
    includes: &[PathBuf],
    declarations: &scan::Declarations,
    committed: Option<&Path>,
    not_compared: &[String],
    out_dir: &Path,
    strict: bool,
) -> Result<(Vec<PathBuf>, Vec<String>), Vec<String>> {
    // The kernels declared by hand for a file: by blocks naming its PTX, or naming none (which
    // could be any file's); a block naming another file's PTX leaves a kernel of the same name
    // here alone (llm.c's fp32 and bf16 units both define `residual_forward_kernel`).
    let hand_written = |stem: &str| -> Vec<String> {
        declarations
            .blocks
            .iter()
            .filter(|b| !alongside.iter().any(|a| b.file.ends_with(a)))
            .filter(|b| b.ptx_stem.as_deref().is_none_or(|s| s == stem))
            .flat_map(|b| &b.block.kernels)
            .flat_map(|k| {
                // A C++ kernel in a namespace by its qualified name (`ns::plain`).
                let ident = k.cpp_name();
                let named = k.name_arg.as_ref().map(syn::LitStr::value);
                std::iter::once(ident).chain(named)
            })
            .collect()
    };
    let (mut paths, mut warnings, mut problems) = (Vec::new(), Vec::new(), Vec::new());
    let of_job = |job: &nvcc::Job| -> Vec<generate::NamedFamily> {
        families
            .iter()
            .filter(|(file, _)| job.source.ends_with(file))
            .map(|(_, f)| f.clone())
            .collect()
    };
    for (file, family) in families {
        if !jobs.iter().any(|j| j.source.ends_with(file)) {
            problems.push(format!(
                "the family `{}` ({}) names {}, which is not among the files given to \
                 .file()/.files()",
                family.pattern,
                family.name,
                file.display()
            ));
        }
    }
    // Kernels of headers, declared by the first file whose block has them.
    let mut claimed: Vec<String> = Vec::new();
    // Templates a file's PTX has no instance of, with the files: said once, after every file,
    // unless a file declares them.
    let mut no_instance: Vec<(String, Vec<String>)> = Vec::new();
    // What is not the crate's: the CUDA toolkit's headers (CUB's kernels, which the file's
    // host code launches), by where the toolkit is installed, and the build step's output (its
    // force-included header). Any other header is read as the file's own, wherever it is
    // (llm.c's `#include "../vendor/llm.c/llmc/gelu.cuh"`).
    let toolkit_root = nvcc.and_then(nvcc::toolkit_root);
    let out_canonical = out_dir.canonicalize().ok();
    for job in jobs {
        let out = out_dir.join("cuda-kernel").join(format!("{}.rs", job.stem));
        let committed_path = committed.map(|d| d.join(format!("{}.rs", job.stem)));
        let rust = match nvcc {
            Some(nvcc) => {
                let shown = job
                    .source
                    .file_name()
                    .map_or_else(|| job.stem.clone(), |n| n.to_string_lossy().into_owned());
                let named = of_job(job);
                let hand_written = hand_written(&job.stem);
                let file = FileGeneration {
                    nvcc,
                    job,
                    includes,
                    out_dir,
                    shown: &shown,
                    hand_written: &hand_written,
                    bound_structs,
                    families: &named,
                    elsewhere: &claimed,
                    here: &|file: &str| {
                        from_here(job, file, out_canonical.as_deref(), toolkit_root.as_deref())
                    },
                };
                let generated = match file.generated() {
                    Ok(generated) => generated,
                    Err(p) => {
                        problems.push(p);
                        continue;
                    }
                };
                warnings.extend(generated.warnings);
                claimed.extend(generated.from_headers);
                for template in generated.no_instance {
                    match no_instance.iter_mut().find(|(t, _)| *t == template) {
                        Some((_, files)) => files.push(shown.clone()),
                        None => no_instance.push((template, vec![shown.clone()])),
                    }
                }
                let rust = generated.rust;
                let compared = committed_path
                    .as_ref()
                    .filter(|_| !not_compared.contains(&job.stem));
                if let Some(path) = compared {
                    match committed::compare_declarations(path, &rust, &shown, strict) {
                        Ok(warning) => warnings.extend(warning),
                        Err(p) => problems.push(p),
                    }
                }
                rust
            }
            None => match committed_path.as_ref().map(std::fs::read_to_string) {
                Some(Ok(rust)) => rust,
                _ => {
                    problems.push(format!(
                        "generated declarations of {}.cu need nvcc, or a committed {}.rs beside \
                         the committed PTX (Build::committed_ptx, written with {WRITE_PTX_ENV}=1)",
                        job.stem, job.stem
                    ));
                    continue;
                }
            },
        };
        if let Err(e) = write_if_changed(&out, rust.as_bytes()) {
            problems.extend(e.problems);
            continue;
        }
        paths.push(out);
    }
    for (template, files) in no_instance {
        if !claimed.contains(&template) {
            warnings.push(generate::no_instance(&template, &files));
        }
    }
    if problems.is_empty() {
        Ok((paths, warnings))
    } else {
        Err(problems)
    }
}

/// One file's generation for [`generate_all`]: what it reads and what it is given.
struct FileGeneration<'a> {
    nvcc: &'a Path,
    job: &'a nvcc::Job,
    includes: &'a [PathBuf],
    out_dir: &'a Path,
    /// The source's file name, as messages and doc lines show it.
    shown: &'a str,
    hand_written: &'a [String],
    bound_structs: &'a [(String, String)],
    families: &'a [generate::NamedFamily],
    /// Kernels of headers that files generated before declare.
    elsewhere: &'a [String],
    /// [`from_here`] for the job.
    here: &'a dyn Fn(&str) -> bool,
}

/// A file's generated declarations, as [`generate_all`] uses them.
struct FileDeclarations {
    /// The file's Rust (its block, or a comment saying where each entry went).
    rust: String,
    warnings: Vec<String>,
    /// Kernels of headers its block declares.
    from_headers: Vec<String>,
    /// Kernel templates its PTX has no instance of ([`generate::Generated::no_instance`]).
    no_instance: Vec<String>,
}

impl FileGeneration<'_> {
    /// The file's declarations: reused from `$OUT_DIR/cuda-kernel/<stem>.generated` while
    /// the file's inputs (its sources, header and flags, nvcc), what it is given and the build
    /// step itself are those of the build that wrote it, else generated from the compiler's
    /// facts (compiled beside the PTX, or by an earlier build with the same inputs) and kept.
    fn generated(&self) -> Result<FileDeclarations, String> {
        let (nvcc, job, includes, out_dir) = (self.nvcc, self.job, self.includes, self.out_dir);
        let cache = out_dir
            .join("cuda-kernel")
            .join(format!("{}.generated", job.stem));
        // The build step's own build: a new generator generates again.
        let generator = std::env::current_exe()
            .map(|exe| nvcc::stamp(&exe))
            .unwrap_or_default();
        let key = format!(
            "{}\n{generator}\n{:?}",
            nvcc::cache_key(nvcc, job, includes),
            (
                self.hand_written,
                self.bound_structs,
                self.families,
                self.elsewhere
            )
        );
        if let Some(kept) = nvcc::cached(&cache, &key).and_then(|t| FileDeclarations::read(&t)) {
            return Ok(kept);
        }
        let text = nvcc::preprocess_cached(nvcc, job, includes, out_dir)?;
        let ptx_text =
            std::fs::read_to_string(out_dir.join(format!("{}.ptx", job.stem))).unwrap_or_default();
        // The PTX's entries: a template is declared where it has instances.
        let entries: Vec<String> = cuda_kernel_syntax::ptx::entries(&ptx_text)
            .map(|entries| entries.into_iter().map(|e| e.name).collect())
            .unwrap_or_default();
        // What made the PTX the declarations are made from: a committed file says.
        let made_by = target::MadeBy::read(Recorded::read(&ptx_text).body).describe();
        let ptx = format!("$OUT_DIR/{}.ptx", job.stem);
        let facts = nvcc::facts_cached(nvcc, job, includes, out_dir);
        let header = job.header_path.to_string_lossy();
        let options = generate::Options {
            ptx: &ptx,
            module: "Kernels",
            hand_written: self.hand_written,
            entries: &entries,
            structs: self.bound_structs,
            families: self.families,
            elsewhere: self.elsewhere,
            facts: facts.as_ref().ok(),
            header: Some(&header),
            made_by: Some(&made_by),
        };
        let shown = self.shown;
        let generated = generate::generate(shown, &text, self.here, &options);
        let mut warnings = generated.warnings;
        if let Err(why) = &facts {
            warnings.push(format!(
                "{shown}: no kernel of the file is declared without the compiler's facts: {why}"
            ));
        }
        let rust = match generated.rust.is_empty() {
            // Still says where each entry went: a file whose kernels are all named in warnings
            // is not one the crate declares by hand.
            true => format!(
                "// {shown}: no kernel to declare that the crate does not declare by hand or a \
                 warning names.\n// {}.\n{}",
                generated.accounting,
                generate::made_by_line(Some(&made_by)),
            ),
            false => generated.rust,
        };
        let made = FileDeclarations {
            rust,
            warnings,
            from_headers: generated.from_headers,
            no_instance: generated.no_instance,
        };
        if facts.is_ok() && std::fs::write(&cache, made.written()).is_ok() {
            nvcc::remember(&cache, &key, &made.written());
        }
        Ok(made)
    }
}

impl FileDeclarations {
    /// As kept: the counts of headers' kernels, of templates without an instance and of
    /// warnings, a line each (a warning's line breaks as U+0001), then the Rust.
    fn written(&self) -> String {
        let mut text = String::new();
        for names in [&self.from_headers, &self.no_instance] {
            text.push_str(&format!("{}\n", names.len()));
            for name in names {
                text.push_str(&format!("{name}\n"));
            }
        }
        text.push_str(&format!("{}\n", self.warnings.len()));
        for warning in &self.warnings {
            text.push_str(&format!("{}\n", warning.replace('\n', "\u{1}")));
        }
        text + &self.rust
    }

    /// [`FileDeclarations::written`] read back; `None` for a text it did not write.
    fn read(text: &str) -> Option<FileDeclarations> {
        let mut rest = text;
        let mut line = || -> Option<&str> {
            let (line, after) = rest.split_once('\n')?;
            rest = after;
            Some(line)
        };
        let mut names = || {
            (0..line()?.parse::<usize>().ok()?)
                .map(|_| line().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        };
        let (from_headers, no_instance) = (names()?, names()?);
        let warnings = (0..line()?.parse::<usize>().ok()?)
            .map(|_| line().map(|w| w.replace('\u{1}', "\n")))
            .collect::<Option<Vec<_>>>()?;
        Some(FileDeclarations {
            rust: rest.to_string(),
            warnings,
            from_headers,
            no_instance,
        })
    }
}

/// Whether `file` (as the facts' `.file` directives and the preprocessed text's line markers
/// name it) is the job's own: the file itself, and every header that is neither the toolkit's nor the build step's
/// output (its force-included header), wherever it is (llm.c's `#include
/// "../vendor/llm.c/llmc/gelu.cuh"`).
fn from_here(
    job: &nvcc::Job,
    file: &str,
    out_canonical: Option<&Path>,
    toolkit_root: Option<&Path>,
) -> bool {
    if Path::new(file).file_name() == job.source.file_name() {
        return true;
    }
    let Ok(path) = Path::new(file).canonicalize() else {
        return false;
    };
    !out_canonical.is_some_and(|o| path.starts_with(o))
        && !toolkit_root.is_some_and(|t| path.starts_with(t))
        && !path.starts_with("/usr/include")
}

/// What `$OUT_DIR/cuda-kernel/<stem>.rs` holds when the build script does not ask for
/// generated declarations: an error, where the file is included, naming the builder call (an
/// earlier build's declarations would otherwise compile, stale, and a clean build say only
/// that the file cannot be read).
pub(crate) fn not_generated(stem: &str) -> String {
    let message = format!(
        "cuda-kernel: {stem}.rs holds the declarations generated from {stem}.cu only when \
         build.rs calls `.generate_declarations(true)` on its cuda_kernel_build::Build; add it, \
         or declare the kernels by hand"
    );
    format!(
        "// Not generated: the build script does not ask for declarations.\n\
         ::core::compile_error!({message:?});\n"
    )
}

#[cfg(test)]
mod tests {
    use super::FileDeclarations;

    /// What a file's generation keeps reads back as it was, multi-line warnings included.
    #[test]
    fn kept_declarations_read_back_whole() {
        let made = FileDeclarations {
            rust: "#[kernel]\nunsafe extern \"C\" {}\n".into(),
            warnings: vec!["a.cu: one\nand two lines".into(), "b".into()],
            from_headers: vec!["ns::k".into()],
            no_instance: vec!["t".into(), "ns::u".into()],
        };
        let read = FileDeclarations::read(&made.written()).unwrap();
        assert_eq!(
            (
                read.rust,
                read.warnings,
                read.from_headers,
                read.no_instance
            ),
            (
                made.rust,
                made.warnings,
                made.from_headers,
                made.no_instance
            )
        );
        assert!(FileDeclarations::read("2\nonly one\n").is_none());
    }
}
