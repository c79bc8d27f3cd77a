//! One build, step by step ([`Build::try_compile`](crate::Build::try_compile)): each file's PTX
//! from nvcc (kept where its inputs are those of the last build) or, without nvcc, from the
//! committed folder, compared with the committed copy under the committed-file policy
//! ([`crate::committed`]); then cubins and fatbins, static libraries, generated declarations
//! ([`crate::declarations`]), and the warnings that keep declarations from escaping the checks.

use std::path::{Path, PathBuf};

use crate::committed::{self, Recorded, compare_committed, use_committed};
use crate::{
    Build, Compiled, Error, HASH_MARKER, declarations, library, nvcc, scan, target,
    write_if_changed, write_requested,
};

/// What every step of one build reads.
pub(crate) struct Run<'a> {
    pub(crate) build: &'a Build,
    pub(crate) manifest_dir: &'a Path,
    pub(crate) out_dir: &'a Path,
    /// The include folders, in the crate.
    pub(crate) includes: &'a [PathBuf],
    pub(crate) declarations: &'a scan::Declarations,
    pub(crate) target: &'a target::Target,
    /// The committed folder, in the crate.
    pub(crate) committed: Option<&'a Path>,
    pub(crate) strict: bool,
    pub(crate) jobs: &'a [nvcc::Job],
}

impl Run<'_> {
    /// The PTX, binaries, libraries and declarations, or every problem found.
    pub(crate) fn run(&self, nvcc: Option<&Path>) -> Result<Compiled, Error> {
        let mut compiled = Compiled {
            compiled_by_nvcc: nvcc.is_some(),
            headers: self.jobs.iter().map(|j| j.header_path.clone()).collect(),
            ..Compiled::default()
        };
        let mut problems = Vec::new();
        // Stems whose committed files this build does not compare (made for another target).
        let not_compared = match nvcc {
            Some(nvcc) => self.with_nvcc(nvcc, &mut compiled, &mut problems)?,
            None => {
                self.committed_ptx(&mut compiled, &mut problems);
                Vec::new()
            }
        };
        if problems.is_empty() && !self.build.libraries.is_empty() {
            self.libraries(nvcc, &mut compiled, &mut problems);
        }
        if problems.is_empty() {
            self.declarations(nvcc, &not_compared, &mut compiled, &mut problems);
        }
        match problems.is_empty() {
            true => Ok(compiled),
            false => Err(Error { problems }),
        }
    }

    /// Each file's PTX from nvcc, compared with its committed copy; the cubins and fatbins.
    /// Returns the stems whose committed files were made for another target (not compared).
    fn with_nvcc(
        &self,
        nvcc: &Path,
        compiled: &mut Compiled,
        problems: &mut Vec<String>,
    ) -> Result<Vec<String>, Error> {
        let (jobs, includes, out_dir) = (self.jobs, self.includes, self.out_dir);
        // A file whose inputs are those of the last build (a crate's edit that changes no
        // declaration of it: the build step reruns on every edit of a file it scans) keeps its
        // PTX; nvcc compiles the others.
        let out_of = |job: &nvcc::Job| out_dir.join(format!("{}.ptx", job.stem));
        let keys: Vec<String> = jobs
            .iter()
            .map(|job| nvcc::cache_key(nvcc, job, includes))
            .collect();
        let reused: Vec<Option<String>> = jobs
            .iter()
            .zip(&keys)
            .map(|(job, key)| nvcc::cached(&out_of(job), key))
            .collect();
        let stale: Vec<nvcc::Job> = jobs
            .iter()
            .zip(&reused)
            .filter(|(_, reused)| reused.is_none())
            .map(|(job, _)| job.clone())
            .collect();
        let mut fresh = self.compile_stale(nvcc, &stale).into_iter();
        // Committed files another architecture or nvcc made: not compared.
        let mut made_otherwise: Vec<(String, target::MadeBy)> = Vec::new();
        let mut made_now = None;
        for ((job, key), reused) in jobs.iter().zip(&keys).zip(reused) {
            // A reused PTX gets this version's record too (an earlier one's cache may lack the
            // sources' own hash).
            let result = match reused {
                Some(text) => Ok(Recorded::read(&text).body.to_string()),
                None => fresh
                    .next()
                    .unwrap_or_else(|| Err("nvcc gave no result".to_string())),
            }
            .map(|ptx| format!("{HASH_MARKER}{} {}\n{ptx}", job.hash, job.sources_hash));
            let text = match result {
                Ok(text) => text,
                Err(p) => {
                    problems.push(p);
                    continue;
                }
            };
            let out = out_of(job);
            write_if_changed(&out, text.as_bytes())?;
            nvcc::remember(&out, key, &text);
            compiled.ptx.push(out);
            let made = target::MadeBy::read(Recorded::read(&text).body);
            let otherwise = self
                .committed
                .and_then(|dir| committed::made_otherwise(dir, &job.stem, &made))
                .filter(|_| !write_requested());
            made_now.get_or_insert(made);
            if let Some(old) = otherwise {
                made_otherwise.push((job.stem.clone(), old));
            } else if let Some(dir) = self.committed {
                match compare_committed(dir, &job.stem, &text, self.strict) {
                    Ok(warning) => compiled.warn(warning),
                    Err(p) => problems.push(p),
                }
            }
        }
        if let (Some(dir), Some(made_now)) = (self.committed, &made_now) {
            let origin = self.target.origin();
            match committed::not_compared(dir, &made_otherwise, made_now, &origin, self.strict) {
                Ok(warning) => compiled.warn(warning),
                Err(p) => problems.push(p),
            }
        }
        if problems.is_empty() {
            let build = self.build;
            compiled.binaries = nvcc::binaries(
                nvcc,
                jobs,
                includes,
                &build.flags,
                &build.cubin_archs,
                &build.fatbin_archs,
                out_dir,
            )?;
        }
        Ok(made_otherwise.into_iter().map(|(stem, _)| stem).collect())
    }

    /// The stale files' PTX, in their order. The compiler's facts the declaration generator
    /// reads (the file compiled with `-G`) and the preprocessed text it reads templates'
    /// parameter names from are made beside the PTX compile, not after it (each kept with its
    /// key, where [`declarations::generate_all`] finds it).
    fn compile_stale(&self, nvcc: &Path, stale: &[nvcc::Job]) -> Vec<Result<String, String>> {
        let (includes, out_dir) = (self.includes, self.out_dir);
        std::thread::scope(|scope| {
            if self.build.generate {
                for job in stale {
                    scope.spawn(move || {
                        let _ = nvcc::facts_ptx(nvcc, job, includes, out_dir);
                    });
                    scope.spawn(move || {
                        let _ = nvcc::preprocess_cached(nvcc, job, includes, out_dir);
                    });
                }
            }
            nvcc::compile_all(nvcc, stale, includes, self.declarations)
        })
    }

    /// Without nvcc: each file's committed PTX, said where a GPU of the target cannot load it;
    /// cubins and fatbins cannot be made.
    fn committed_ptx(&self, compiled: &mut Compiled, problems: &mut Vec<String>) {
        let target = self.target;
        let mut unloadable: Vec<(String, target::MadeBy)> = Vec::new();
        for job in self.jobs {
            match use_committed(self.committed, job, self.out_dir, self.strict) {
                Ok((out, warning)) => {
                    let text = std::fs::read_to_string(&out).unwrap_or_default();
                    let made = target::MadeBy::read(Recorded::read(&text).body);
                    if target.source != target::Source::Set && !made.loads_on(target) {
                        unloadable.push((job.stem.clone(), made));
                    }
                    compiled.ptx.push(out);
                    compiled.warn(warning);
                }
                Err(p) => problems.push(p),
            }
        }
        if let Some((_, made)) = unloadable.first() {
            let names: Vec<String> = unloadable.iter().map(|(s, _)| format!("{s}.ptx")).collect();
            compiled.warn(Some(format!(
                "the committed PTX ({}) is for {}, which a GPU of {} cannot load, and nvcc was \
                 not found to compile for it: install nvcc (cuda-kernel's README, \"Getting \
                 nvcc\"), or build for the committed architecture",
                names.join(", "),
                made.describe(),
                target.origin()
            )));
        }
        let build = self.build;
        if problems.is_empty() && !(build.cubin_archs.is_empty() && build.fatbin_archs.is_empty()) {
            problems.push(
                "cubins and fatbins need nvcc, which was not found (set NVCC or install the CUDA \
                 toolkit)"
                    .to_string(),
            );
        }
    }

    /// The static libraries ([`Build::static_library`]): nvcc's, none under docs.rs.
    fn libraries(&self, nvcc: Option<&Path>, compiled: &mut Compiled, problems: &mut Vec<String>) {
        let libraries = &self.build.libraries;
        match (nvcc, std::env::var_os("DOCS_RS")) {
            (_, Some(_)) => {}
            (None, None) => problems.push(format!(
                "the static library `{}` needs nvcc, which was not found ($NVCC, \
                 $CUDA_HOME/bin, $CUDA_PATH/bin or PATH): committed PTX cannot stand in for \
                 host code",
                libraries[0].name
            )),
            (Some(nvcc), None) => {
                let inputs = library::Inputs {
                    nvcc,
                    manifest_dir: self.manifest_dir,
                    includes: self.includes,
                    flags: &self.build.flags,
                    target: self.target,
                    out_dir: self.out_dir,
                };
                for lib in libraries {
                    match library::build(lib, &inputs) {
                        Ok(archive) => compiled.libraries.push(archive),
                        Err(mut p) => problems.append(&mut p),
                    }
                }
            }
        }
    }

    /// Generated declarations ([`Build::generate_declarations`]), or in their place a file
    /// saying which builder call makes them.
    fn declarations(
        &self,
        nvcc: Option<&Path>,
        not_compared: &[String],
        compiled: &mut Compiled,
        problems: &mut Vec<String>,
    ) {
        let build = self.build;
        if !build.generate {
            // Without generation, no earlier build's declarations stay behind to be included
            // unawares: `$OUT_DIR/cuda-kernel/<stem>.rs` says, where it is included, which
            // builder call makes it.
            for job in self.jobs {
                let path = self
                    .out_dir
                    .join("cuda-kernel")
                    .join(format!("{}.rs", job.stem));
                let text = declarations::not_generated(&job.stem);
                if let Err(e) = write_if_changed(&path, text.as_bytes()) {
                    problems.extend(e.problems);
                }
            }
            return;
        }
        let alongside: Vec<PathBuf> = build
            .alongside
            .iter()
            .map(|p| self.manifest_dir.join(p))
            .collect();
        let written = declarations::generate_all(
            nvcc,
            &build.bound_structs,
            &build.families,
            &alongside,
            self.jobs,
            self.includes,
            self.declarations,
            self.committed,
            not_compared,
            self.out_dir,
            self.strict,
        );
        match written {
            Ok((paths, warnings)) => {
                compiled.generated = paths;
                for warning in &warnings {
                    println!("cargo::warning={warning}");
                }
                compiled.warnings.extend(warnings);
            }
            Err(mut p) => problems.append(&mut p),
        }
    }

    /// The build's last words: warnings of declarations outside the checks, and where the PTX
    /// is for crates depending on this one.
    pub(crate) fn finish(
        &self,
        mut compiled: Compiled,
        tree: &[PathBuf],
        declaration_files: &[PathBuf],
    ) -> Compiled {
        let build = self.build;
        let unlisted_files: Vec<PathBuf> = match build.declarations.is_empty() {
            false => tree
                .iter()
                .filter(|f| !declaration_files.contains(f))
                .cloned()
                .collect(),
            true => Vec::new(),
        };
        let unlisted = scan::scan_sources(&scan::parsable(&unlisted_files)).unwrap_or_default();
        // Generated declarations cover a file's kernels, or name those they cannot.
        let allowed: Vec<PathBuf> = match build.generate {
            true => build.files.iter().map(|(file, _)| file.clone()).collect(),
            false => build.allow_undeclared.clone(),
        };
        let gaps = gap_warnings(
            self.jobs,
            &compiled.ptx,
            self.declarations,
            &unlisted,
            &allowed,
        );
        for warning in &gaps {
            println!("cargo::warning={warning}");
        }
        compiled.warnings.extend(gaps);
        // A kernels crate with `links = "name"` tells the crates depending on it where its PTX
        // is: their build scripts read `DEP_<NAME>_PTX_DIR` ([`crate::dependency_ptx`]).
        if std::env::var_os("CARGO_MANIFEST_LINKS").is_some() && build.out_dir.is_none() {
            println!("cargo::metadata=PTX_DIR={}", self.out_dir.display());
        }
        compiled
    }
}

/// The warnings that keep declarations from escaping the checks without a word: blocks outside
/// the listed files that name this build's PTX, and kernels of a `.cu` no block declares.
fn gap_warnings(
    jobs: &[nvcc::Job],
    ptx: &[PathBuf],
    declarations: &scan::Declarations,
    unlisted: &scan::Declarations,
    allowed: &[PathBuf],
) -> Vec<String> {
    let mut warnings = Vec::new();
    let stems: Vec<&str> = jobs.iter().map(|j| j.stem.as_str()).collect();
    for found in &unlisted.blocks {
        if let Some(stem) = found.ptx_stem.as_deref().filter(|s| stems.contains(s)) {
            warnings.push(format!(
                "{} has a #[kernel] block for {stem}.ptx but is not among the files given to \
                 .declarations(): nvcc does not check those kernels' C types; list it, or drop \
                 .declarations() to read the whole crate",
                found.file.display()
            ));
        }
    }
    for (job, path) in jobs.iter().zip(ptx) {
        let blocks: Vec<&scan::FoundBlock> = declarations
            .blocks
            .iter()
            .filter(|b| b.ptx_stem.as_deref() == Some(job.stem.as_str()))
            .collect();
        if blocks.is_empty() || allowed.iter().any(|a| job.source.ends_with(a)) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(entries) = cuda_kernel_syntax::ptx::entries(&text) else {
            continue;
        };
        let undeclared: Vec<String> = entries
            .iter()
            .filter(|e| !blocks.iter().any(|b| scan::declares(&b.block, &e.name)))
            .map(|e| cuda_kernel_syntax::demangle::shown(&e.name))
            .collect();
        if !undeclared.is_empty() {
            warnings.push(format!(
                "{} defines kernels no #[kernel] block declares: {} (declare them, or silence \
                 this with .allow_undeclared(\"{}\"))",
                job.source.display(),
                undeclared.join(", "),
                job.source
                    .file_name()
                    .map(|f| f.to_string_lossy())
                    .unwrap_or_default()
            ));
        }
    }
    warnings
}
