//! Running nvcc: finding it, compiling in parallel, and saying what its errors mean for the
//! Rust declarations.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::scan::Declarations;

/// One `.cu` file to compile.
#[derive(Clone)]
pub struct Job {
    pub stem: String,
    pub source: PathBuf,
    pub header_path: PathBuf,
    /// nvcc's arguments before the include folders and files.
    pub args: Vec<String>,
    pub hash: String,
    /// The hash of the same inputs but the Rust declarations (the source, its local headers
    /// and the flags): recorded beside [`hash`](Job::hash), so that a build without nvcc can
    /// tell committed PTX whose `.cu` is current and only declarations changed (which the
    /// `#[kernel]` checks against that PTX cover) from PTX of another `.cu`.
    pub sources_hash: String,
}

impl Job {
    /// The job of the crate's `file` (its outputs named `stem`, else after the file): its PTX
    /// architecture (the file's `// ptx-arch:` line, else `arch`), its header of the crate's
    /// declarations written to `$OUT_DIR/cuda-kernel/`, nvcc's arguments and the hashes of its
    /// inputs. Tells Cargo to rerun on the file and its local headers.
    pub fn new(
        (file, stem): (&Path, Option<&str>),
        manifest_dir: &Path,
        out_dir: &Path,
        includes: &[PathBuf],
        declarations: &Declarations,
        arch: &str,
        flags: &[String],
    ) -> Result<Job, crate::Error> {
        use sha2::{Digest, Sha256};
        let source = manifest_dir.join(file);
        let stem = match stem {
            Some(stem) => stem.to_string(),
            None => {
                output_stem(file).ok_or_else(|| format!("{} has no file name", file.display()))?
            }
        };
        let text =
            std::fs::read(&source).map_err(|e| format!("cannot read {}: {e}", source.display()))?;
        let arch = String::from_utf8_lossy(&text)
            .lines()
            .find_map(|l| {
                // The architecture is the first word; a comment may follow it.
                let rest = l.trim().strip_prefix("// ptx-arch:")?;
                rest.split_whitespace().next().map(str::to_string)
            })
            .unwrap_or_else(|| arch.to_string());
        let header = crate::scan::header(&stem, declarations);
        let header_path = out_dir.join("cuda-kernel").join(format!("{stem}.h"));
        crate::write_if_changed(&header_path, header.as_bytes())?;
        let local_headers = local_includes(&source, includes);
        println!("cargo::rerun-if-changed={}", source.display());
        for h in &local_headers {
            println!("cargo::rerun-if-changed={}", h.display());
        }
        let mut args = vec!["-ptx".to_string(), format!("-arch={arch}")];
        args.extend(flags.iter().cloned());
        let headers: Vec<Vec<u8>> = local_headers
            .iter()
            .map(|h| std::fs::read(h).unwrap_or_default())
            .collect();
        let digest = |declarations: Option<&str>| {
            let mut hasher = Sha256::new();
            hasher.update(&text);
            for h in &headers {
                hasher.update(h);
            }
            if let Some(header) = declarations {
                hasher.update(header.as_bytes());
            }
            hasher.update(args.join(" ").as_bytes());
            hex(&hasher.finalize())
        };
        let (hash, sources_hash) = (digest(Some(&header)), digest(None));
        Ok(Job {
            stem,
            source,
            header_path,
            args,
            hash,
            sources_hash,
        })
    }
}

/// The name of a file's outputs when none is given: its file name without the extension
/// (`all.thrust` for `all.thrust.cu`).
fn output_stem(file: &Path) -> Option<String> {
    file.file_stem().map(|s| s.to_string_lossy().into_owned())
}

/// What is wrong with the names the files' outputs would have: a name given that is not a file
/// name, or two files whose outputs would have one name (the second would overwrite the first's
/// PTX and declarations), each with the fix.
pub fn output_name_problems(files: &[(PathBuf, Option<String>)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut named: Vec<(String, &Path, bool)> = Vec::new();
    for (file, given) in files {
        if let Some(stem) = given {
            let bad =
                stem.is_empty() || stem == "." || stem == ".." || stem.contains(['/', '\\', '\0']);
            if bad {
                problems.push(format!(
                    "Build::file_as({:?}, {stem:?}): the name of a file's outputs is a file \
                     name (`{}` makes `$OUT_DIR/<name>.ptx`), without a folder",
                    file.display().to_string(),
                    file.display()
                ));
                continue;
            }
        }
        let Some(stem) = given.clone().or_else(|| output_stem(file)) else {
            continue;
        };
        match named.iter().find(|(s, _, _)| *s == stem) {
            Some((_, first, _)) if *first == file.as_path() => problems.push(format!(
                "{} is given to the build twice: once is enough",
                file.display()
            )),
            Some((_, first, first_given)) => {
                // The fix names the file whose name was not given, after its folder.
                let (other, other_given) = match given {
                    Some(_) if !first_given => (*first, false),
                    _ => (file.as_path(), given.is_some()),
                };
                let folder = other
                    .parent()
                    .and_then(Path::file_name)
                    .map(|f| format!("{}_", f.to_string_lossy()))
                    .unwrap_or_default();
                let fix = match other_given {
                    true => "give one of them another name with `Build::file_as`".to_string(),
                    false => format!(
                        "name one's outputs otherwise, `.file_as({:?}, \"{folder}{stem}\")` \
                         in place of `.file({:?})`",
                        other.display().to_string(),
                        other.display().to_string()
                    ),
                };
                problems.push(format!(
                    "{} and {} would both write $OUT_DIR/{stem}.ptx and \
                     $OUT_DIR/cuda-kernel/{stem}.rs: {fix}",
                    first.display(),
                    file.display()
                ));
            }
            None => named.push((stem, file, given.is_some())),
        }
    }
    problems
}

/// `$NVCC`, `$CUDA_HOME/bin/nvcc`, `$CUDA_PATH/bin/nvcc`, or `nvcc` on `PATH`: the first that runs.
pub fn find() -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(nvcc) = std::env::var_os("NVCC") {
        candidates.push(PathBuf::from(nvcc));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(dir) = std::env::var_os(var) {
            candidates.push(PathBuf::from(dir).join("bin").join("nvcc"));
        }
    }
    candidates.push(PathBuf::from("nvcc"));
    candidates.into_iter().find(|nvcc| {
        Command::new(nvcc)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// The folder the CUDA toolkit of `nvcc` is installed in (`/usr/local/cuda-13.0`, or the
/// PyPI wheels' `nvidia/cu13`): `nvcc` found on `PATH` where it is a bare name, its links
/// resolved, two folders up from `bin/nvcc`. Headers under it (CUB's, Thrust's, libcu++'s,
/// cooperative groups') are the toolkit's, whatever includes them.
pub fn toolkit_root(nvcc: &Path) -> Option<PathBuf> {
    let path = if nvcc.components().count() == 1 {
        std::env::split_paths(&std::env::var_os("PATH")?)
            .map(|dir| dir.join(nvcc))
            .find(|p| p.is_file())?
    } else {
        nvcc.to_path_buf()
    };
    let path = path.canonicalize().ok()?;
    Some(path.parent()?.parent()?.to_path_buf())
}

/// The local headers `source` includes (`#include "x.cuh"`), found beside the file that
/// includes them or in `includes`, recursively, sorted; system headers (`<...>`) are not ours.
pub fn local_includes(source: &Path, includes: &[PathBuf]) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    let mut todo = vec![source.to_path_buf()];
    while let Some(file) = todo.pop() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("include") else {
                continue;
            };
            let Some(name) = rest
                .trim()
                .strip_prefix('"')
                .and_then(|r| r.split('"').next())
            else {
                continue;
            };
            let candidate = std::iter::once(&dir)
                .chain(includes)
                .map(|d| d.join(name))
                .find(|p| p.is_file());
            if let Some(path) = candidate {
                if !found.contains(&path) {
                    found.push(path.clone());
                    todo.push(path);
                }
            }
        }
    }
    found.sort();
    found
}

/// Runs `f` (an nvcc run) once fewer than the build step's limit of nvcc runs are going:
/// cargo's `NUM_JOBS` for a build script (its `-j`), else the machine's parallelism. The build
/// step starts a thread per compile (a file's PTX, its facts, its preprocessed text, its
/// cubins), and a code base of dozens of files would otherwise run them all at once.
pub(crate) fn limited<T>(f: impl FnOnce() -> T) -> T {
    use std::sync::{Condvar, Mutex, OnceLock};
    static SLOTS: OnceLock<(Mutex<usize>, Condvar)> = OnceLock::new();
    let (free, freed) = SLOTS.get_or_init(|| {
        let jobs = std::env::var("NUM_JOBS")
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(2)
            .max(1);
        (Mutex::new(jobs), Condvar::new())
    });
    {
        let mut n = free.lock().unwrap_or_else(|e| e.into_inner());
        while *n == 0 {
            n = freed.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        *n -= 1;
    }
    // Given back however `f` ends (a panic included).
    struct Slot<'a>(&'a Mutex<usize>, &'a Condvar);
    impl Drop for Slot<'_> {
        fn drop(&mut self) {
            *self.0.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            self.1.notify_one();
        }
    }
    let _slot = Slot(free, freed);
    f()
}

/// Compiles every job to PTX text, in parallel, one result per job; a failure is explained
/// against the declarations.
pub fn compile_all(
    nvcc: &Path,
    jobs: &[Job],
    includes: &[PathBuf],
    declarations: &Declarations,
) -> Vec<Result<String, String>> {
    let results: Vec<Result<String, Failure>> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|job| scope.spawn(move || compile(nvcc, job, includes)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Failure::Other("nvcc's thread panicked".to_string())))
            })
            .collect()
    });
    results
        .into_iter()
        .zip(jobs)
        .map(|(result, job)| {
            result.map_err(|failure| match failure {
                Failure::Nvcc(stderr) => explain_job(nvcc, job, includes, &stderr, declarations),
                Failure::Other(message) => message,
            })
        })
        .collect()
}

/// Why one compilation failed: nvcc's own messages, or not running at all.
enum Failure {
    Nvcc(String),
    Other(String),
}

fn compile(nvcc: &Path, job: &Job, includes: &[PathBuf]) -> Result<String, Failure> {
    let out = job.header_path.with_extension("ptx");
    let output = limited(|| {
        Command::new(nvcc)
            .args(&job.args)
            .args(includes.iter().map(|d| format!("-I{}", d.display())))
            .arg("-include")
            .arg(&job.header_path)
            .arg("-o")
            .arg(&out)
            .arg(&job.source)
            .output()
    })
    .map_err(|e| Failure::Other(format!("cannot run {}: {e}", nvcc.display())))?;
    if !output.status.success() {
        return Err(Failure::Nvcc(
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ));
    }
    std::fs::read_to_string(&out)
        .map_err(|e| Failure::Other(format!("cannot read {}: {e}", out.display())))
}

/// A file's stamp in cache keys: its size and modification time (empty where it cannot be
/// read). nvcc's, for the outputs it made; the build step's own, for generated declarations.
pub fn stamp(path: &Path) -> String {
    std::fs::metadata(path)
        .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
        .unwrap_or_default()
}

/// Bytes (a digest) as lowercase hex, as the build step's records write them.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a job's output depends on beyond its sources' [`hash`](Job::hash): the compiler (its
/// path, size and modification time) and the include folders. A rebuild whose key equals the
/// last one's reuses that build's output instead of running nvcc again.
pub fn cache_key(nvcc: &Path, job: &Job, includes: &[PathBuf]) -> String {
    let stamp = stamp(nvcc);
    let includes: Vec<String> = includes.iter().map(|d| d.display().to_string()).collect();
    format!(
        "{} {} {stamp} {}",
        job.hash,
        nvcc.display(),
        includes.join(" ")
    )
}

/// `output` made for `key` on an earlier run of the build step: the file beside its key file
/// (`<file>.key`), where that key is `key` and the file is still what was made (not since
/// rewritten, by a build that took the committed PTX, say).
pub fn cached(output: &Path, key: &str) -> Option<String> {
    let stamp = std::fs::read_to_string(key_path(output)).ok()?;
    let text = std::fs::read_to_string(output).ok()?;
    (stamp == stamped(key, &text)).then_some(text)
}

/// Records that `output`, holding `text`, was made for `key`.
pub fn remember(output: &Path, key: &str, text: &str) {
    let _ = std::fs::write(key_path(output), stamped(key, text));
}

/// The key, and a digest of what was made for it.
fn stamped(key: &str, text: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = hex(&Sha256::digest(text.as_bytes()));
    format!("{key}\n{digest}")
}

fn key_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_os_string();
    name.push(".key");
    PathBuf::from(name)
}

/// [`preprocess`], reusing the text of an earlier run of the build step with the same inputs
/// (kept in `$OUT_DIR/cuda-kernel/<stem>.i`).
pub fn preprocess_cached(
    nvcc: &Path,
    job: &Job,
    includes: &[PathBuf],
    out_dir: &Path,
) -> Result<String, String> {
    let path = out_dir.join("cuda-kernel").join(format!("{}.i", job.stem));
    let key = cache_key(nvcc, job, includes);
    if let Some(text) = cached(&path, &key) {
        return Ok(text);
    }
    let text = preprocess(nvcc, job, includes)?;
    if std::fs::write(&path, &text).is_ok() {
        remember(&path, &key, &text);
    }
    Ok(text)
}

/// The compiler's facts of the job's source ([`crate::facts`]), read from [`facts_ptx`].
pub fn facts_cached(
    nvcc: &Path,
    job: &Job,
    includes: &[PathBuf],
    out_dir: &Path,
) -> Result<crate::facts::Facts, String> {
    let ptx = facts_ptx(nvcc, job, includes, out_dir)?;
    read_facts(&ptx, job, out_dir)
}

fn read_facts(ptx: &str, job: &Job, out_dir: &Path) -> Result<crate::facts::Facts, String> {
    crate::facts::Facts::read(ptx)
        .map_err(|e| format!("{}: {e}", facts_path(job, out_dir).display()))
}

/// Where [`facts_ptx`] keeps the job's `-G` PTX.
fn facts_path(job: &Job, out_dir: &Path) -> PathBuf {
    out_dir
        .join("cuda-kernel")
        .join(format!("{}.facts.ptx", job.stem))
}

/// The job's source compiled with its architecture, flags and header and `-G`, which carries
/// the device code's debug information: kept in `$OUT_DIR/cuda-kernel/<stem>.facts.ptx` and reused
/// while the job's inputs are unchanged.
pub fn facts_ptx(
    nvcc: &Path,
    job: &Job,
    includes: &[PathBuf],
    out_dir: &Path,
) -> Result<String, String> {
    let path = facts_path(job, out_dir);
    let key = cache_key(nvcc, job, includes);
    if let Some(ptx) = cached(&path, &key) {
        return Ok(ptx);
    }
    // With the build step's header, as the PTX is compiled: the file may use the crate's
    // structs it defines.
    let out = [
        OsStr::new("-G"),
        OsStr::new("-include"),
        job.header_path.as_os_str(),
        OsStr::new("-o"),
        path.as_os_str(),
    ];
    run(nvcc, job, includes, "-ptx", &out).map_err(|e| {
        format!(
            "nvcc could not compile {} with -G for its facts:\n{e}",
            job.source.display()
        )
    })?;
    let ptx = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    remember(&path, &key, &ptx);
    Ok(ptx)
}

/// The job's source preprocessed (`nvcc -E` with its architecture, flags and include paths):
/// the text the declaration generator reads.
pub fn preprocess(nvcc: &Path, job: &Job, includes: &[PathBuf]) -> Result<String, String> {
    let stdout = run(nvcc, job, includes, "-E", &[])
        .map_err(|e| format!("nvcc could not preprocess {}:\n{e}", job.source.display()))?;
    String::from_utf8(stdout)
        .map_err(|_| format!("nvcc's preprocessed {} is not UTF-8", job.source.display()))
}

/// nvcc run on the job's source as for its PTX (its architecture and flags, the include
/// folders), `mode` in place of `-ptx` (`-E`; `-ptx` itself for the facts), `extra` after:
/// its standard output, or its standard error.
fn run(
    nvcc: &Path,
    job: &Job,
    includes: &[PathBuf],
    mode: &str,
    extra: &[&OsStr],
) -> Result<Vec<u8>, String> {
    let args = job
        .args
        .iter()
        .map(|a| if a == "-ptx" { mode } else { a.as_str() });
    let output = limited(|| {
        Command::new(nvcc)
            .args(args)
            .args(extra)
            .args(includes.iter().map(|d| format!("-I{}", d.display())))
            .arg(&job.source)
            .output()
    })
    .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    match output.status.success() {
        true => Ok(output.stdout),
        false => Err(String::from_utf8_lossy(&output.stderr)
            .trim_end()
            .to_string()),
    }
}

/// Why nvcc failed on `job`. Where it failed because kernels' definitions differ from their
/// Rust declarations (nvcc's words: an overloaded function with "C" linkage, in the build
/// step's own header) and the definitions can be read from the compiler's facts of the file
/// (compiled with `-G` and the crate's structs alone), that alone, at each parameter that
/// differs, with the Rust type to write; else [`explain`].
fn explain_job(
    nvcc: &Path,
    job: &Job,
    includes: &[PathBuf],
    stderr: &str,
    declarations: &Declarations,
) -> String {
    // One per symbol, of a declaration whose parameters are its own (not a family's).
    let mut conflicts: Vec<Conflict> = Vec::new();
    for c in c_linkage_conflicts(stderr, declarations) {
        if c.kernel.generics.is_empty() && !conflicts.iter().any(|d| d.name == c.name) {
            conflicts.push(c);
        }
    }
    let read = || {
        // The file's own facts: compiled with `-G` and a header of the crate's structs alone
        // (which the file may use), without the kernels' prototypes nvcc refused.
        let structs_only = Declarations {
            blocks: Vec::new(),
            structs: declarations.structs.clone(),
            cuda_names: declarations.cuda_names.clone(),
            declare_structs: declarations.declare_structs,
        };
        let header = job.header_path.with_extension("explain.h");
        let path = job.header_path.with_extension("explain.facts.ptx");
        std::fs::write(&header, crate::scan::header_all(&structs_only)).ok()?;
        let out = [
            OsStr::new("-G"),
            OsStr::new("-include"),
            header.as_os_str(),
            OsStr::new("-o"),
            path.as_os_str(),
        ];
        let compiled = run(nvcc, job, includes, "-ptx", &out);
        let ptx = std::fs::read_to_string(&path);
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&header);
        compiled.ok()?;
        let ptx = ptx.ok()?;
        let facts = crate::facts::Facts::read(&ptx).ok()?;
        // The crate's `#[derive(KernelParam)]` structs, which the header defines for the file.
        let structs: Vec<(String, String)> = declarations
            .structs
            .iter()
            .map(|(name, _)| (name.clone(), name.clone()))
            .collect();
        let mut notes = Vec::new();
        for c in &conflicts {
            let definition = crate::generate::definition_of(&facts, &c.name, &structs)?;
            notes.extend(differences(&c.name, c.file, c.kernel, &definition)?);
        }
        Some(notes)
    };
    match (conflicts.is_empty(), read()) {
        (false, Some(notes)) if !notes.is_empty() => notes.join("\n"),
        _ => explain(&job.source, stderr, declarations),
    }
}

/// A kernel nvcc's error says is defined with other parameter types than the build step's
/// header declares (nvcc's words: `more than one instance of overloaded function "k" has "C"
/// linkage`): its symbol, the Rust file and declaration, and the prototype the header gives it.
pub(crate) struct Conflict<'a> {
    pub(crate) name: String,
    pub(crate) file: &'a Path,
    pub(crate) kernel: &'a cuda_kernel_syntax::ast::Kernel,
    pub(crate) prototype: String,
}

/// Every [`Conflict`] of nvcc's error, each declaration that declares the symbol (a family's
/// member too).
pub(crate) fn c_linkage_conflicts<'a>(
    stderr: &str,
    declarations: &'a Declarations,
) -> Vec<Conflict<'a>> {
    let mut found = Vec::new();
    for line in stderr.lines() {
        let Some(name) = line
            .split("more than one instance of overloaded function \"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
        else {
            continue;
        };
        for block in &declarations.blocks {
            for kernel in &block.block.kernels {
                if let Some(prototype) = c_prototype_of(kernel, name) {
                    found.push(Conflict {
                        name: name.to_string(),
                        file: block.file.as_path(),
                        kernel,
                        prototype,
                    });
                }
            }
        }
    }
    found
}

/// Where a declaration differs from the kernel's definition: one line per parameter whose type
/// differs, at it, naming the type to write, or one at the kernel's name where the counts
/// differ. `None` where no difference shows in Rust types (`long` against `long long`): the
/// caller says it in nvcc's words.
fn differences(
    name: &str,
    file: &Path,
    kernel: &cuda_kernel_syntax::ast::Kernel,
    definition: &crate::generate::Definition,
) -> Option<Vec<String>> {
    let at = |span: proc_macro2::Span| {
        let start = span.start();
        format!("{}:{}:{}", file.display(), start.line, start.column + 1)
    };
    let there = &definition.file;
    if kernel.params.len() != definition.params.len() {
        let c: Vec<&str> = definition.params.iter().map(|(c, _)| c.as_str()).collect();
        let write = definition
            .rust_params
            .as_ref()
            .map(|p| {
                format!(
                    ": declare it `fn {}({})`",
                    kernel.ident,
                    p.replace("::cuda_kernel", "cuda_kernel")
                )
            })
            .unwrap_or_default();
        return Some(vec![format!(
            "{}: the kernel `{name}` is declared with {} parameters, and defined with {} \
             (`{}`) in {there}{write}",
            at(kernel.ident.span()),
            kernel.params.len(),
            definition.params.len(),
            c.join(", "),
        )]);
    }
    let mut notes = Vec::new();
    for (param, (c, rust)) in kernel.params.iter().zip(&definition.params) {
        let Some(rust) = rust else {
            continue;
        };
        let declared = cuda_kernel_syntax::text::type_text(&param.ty);
        let rust = rust.trim_start_matches("::");
        // The same C++ type (`usize` and `size_t`, `i64` and `c_long` are), or where either
        // has none the model knows (a struct), the same name.
        let cpp = |ty: &syn::Type| cuda_kernel_syntax::mangle::cpp_type(ty, &[]);
        let same = match (
            cpp(&param.ty),
            syn::parse_str(rust).ok().and_then(|t| cpp(&t)),
        ) {
            (Some(a), Some(b)) => a.demangled() == b.demangled(),
            _ => unqualified(&declared) == unqualified(rust),
        };
        if same {
            continue;
        }
        notes.push(format!(
            "{}: `{}: {declared}` of the kernel `{name}` is `{c}` in {there}: declare it `{}: \
             {rust}`",
            at(param.ident.span()),
            param.ident,
            param.ident,
        ));
    }
    (!notes.is_empty()).then_some(notes)
}

/// A Rust type's text without its paths' leading segments (`cuda_kernel::Float2` as `Float2`)
/// or spaces.
fn unqualified(ty: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let mut chars = ty.chars().filter(|c| !c.is_whitespace()).peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            word.clear();
        } else {
            out.push_str(&word);
            word.clear();
            out.push(c);
        }
    }
    out + &word
}

/// nvcc's error, with each kernel whose definition differs from its Rust declaration named
/// where it is declared. nvcc reports the difference as an overload: `more than one instance
/// of overloaded function "k" has "C" linkage` (or, for C++ kernels, none at all: they
/// overload, and the PTX check or `load` finds the unbound symbol).
pub fn explain(source: &Path, stderr: &str, declarations: &Declarations) -> String {
    let mut notes = Vec::new();
    for Conflict {
        name,
        file,
        kernel,
        prototype,
    } in c_linkage_conflicts(stderr, declarations)
    {
        let start = kernel.ident.span().start();
        notes.push(format!(
            "{}: the kernel `{name}` is defined with other parameter types than its Rust \
             declaration at {}:{}:{}, which nvcc sees as `{prototype}`: make the definition's \
             parameter types (element types, const, signedness) match the declaration, or the \
             declaration match the definition",
            source.display(),
            file.display(),
            start.line,
            start.column + 1
        ));
    }
    for line in stderr.lines() {
        let Some(rest) = line.split("class \"").nth(1) else {
            continue;
        };
        let Some((name, after)) = rest.split_once('"') else {
            continue;
        };
        if after.contains("has already been defined")
            && declarations.structs.iter().any(|(s, _)| s == name)
        {
            notes.push(format!(
                "{}: the struct `{name}` is defined there and in the header cuda-kernel-build \
                 writes from its #[derive(KernelParam)] definition (force-included first): use the \
                 header's declaration and remove the .cu's, guard the .cu's with \
                 `#ifndef CUDA_KERNEL_STRUCT_{name}`, or turn the header's off with \
                 Build::struct_declarations(false)",
                source.display()
            ));
        }
    }
    // nvcc's lines as the source spells what its front end expanded.
    let stderr = stderr
        .trim_end()
        .replace("__attribute__((global))", "__global__")
        .replace("__attribute__((grid_constant))", "__grid_constant__");
    let mut message = format!("nvcc failed on {}:\n{stderr}", source.display());
    for note in notes {
        message.push('\n');
        message.push_str(&note);
    }
    message
}

/// The C-linkage prototype the header declares for the kernel symbol `name` of this
/// declaration: its own, or a family member's. `None` where it declares none of that name
/// (a C++ kernel or template: those overload, and nvcc's C-linkage error is not about them).
fn c_prototype_of(kernel: &cuda_kernel_syntax::ast::Kernel, name: &str) -> Option<String> {
    let named = format!(" void {name}(");
    cuda_kernel_syntax::cuda::prototype(kernel, &[])
        .into_iter()
        .filter(|_| kernel.cpp.is_none())
        .chain(cuda_kernel_syntax::cuda::family_prototypes(kernel))
        .find(|p| p.contains(&named))
}

/// The cubins and fatbins asked for.
pub fn binaries(
    nvcc: &Path,
    jobs: &[Job],
    includes: &[PathBuf],
    flags: &[String],
    cubin_archs: &[String],
    fatbin_archs: &[String],
    out_dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    let mut runs: Vec<(PathBuf, Vec<String>, &Job)> = Vec::new();
    for job in jobs {
        for arch in cubin_archs {
            let out = out_dir.join(format!("{}.{arch}.cubin", job.stem));
            runs.push((out, vec!["-cubin".into(), format!("-arch={arch}")], job));
        }
        if !fatbin_archs.is_empty() {
            let out = out_dir.join(format!("{}.fatbin", job.stem));
            let mut args = vec!["-fatbin".to_string()];
            for arch in fatbin_archs {
                let number = arch
                    .trim_start_matches("sm_")
                    .trim_start_matches("compute_");
                args.push(format!(
                    "-gencode=arch=compute_{number},code=[sm_{number},compute_{number}]"
                ));
            }
            runs.push((out, args, job));
        }
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .map(|(out, args, job)| {
                scope.spawn(move || {
                    let output = limited(|| {
                        Command::new(nvcc)
                            .args(args)
                            .args(flags)
                            .args(includes.iter().map(|d| format!("-I{}", d.display())))
                            .arg("-include")
                            .arg(&job.header_path)
                            .arg("-o")
                            .arg(out)
                            .arg(&job.source)
                            .output()
                    })
                    .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
                    if output.status.success() {
                        Ok(out.clone())
                    } else {
                        Err(format!(
                            "nvcc failed making {}:\n{}",
                            out.display(),
                            String::from_utf8_lossy(&output.stderr).trim_end()
                        ))
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("nvcc's thread panicked".to_string()))
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declarations(source: &str) -> Declarations {
        crate::scan::scan_sources(&[(PathBuf::from("src/lib.rs"), source.to_string())]).unwrap()
    }

    fn conflict(name: &str) -> String {
        format!(
            "cuda/k.cu(3): error: more than one instance of overloaded function \"{name}\" has \
             \"C\" linkage\n"
        )
    }

    #[test]
    fn a_c_kernel_beside_a_template_of_its_name_is_explained_once() {
        let found = declarations(
            r#"
            #[kernel(ptx = "k.ptx")]
            unsafe extern "C" {
                fn scale(x: *mut f32, a: f32, n: usize);
            }
            #[kernel(ptx = "k.ptx")]
            unsafe extern "C" {
                #[kernel(cpp, rename = ScaleT)]
                fn scale<T>(x: *mut T, a: T, n: usize);
            }
            "#,
        );
        let message = explain(Path::new("cuda/k.cu"), &conflict("scale"), &found);
        let notes: Vec<&str> = message
            .lines()
            .filter(|l| l.contains("its Rust declaration"))
            .collect();
        assert_eq!(notes.len(), 1, "{message}");
        assert!(
            notes[0].contains("at src/lib.rs:4:20")
                && notes[0].contains(
                    "nvcc sees as `extern \"C\" __global__ void scale(float* x, float a, size_t n);`"
                ),
            "{message}"
        );
        assert!(!message.contains("``"), "{message}");
    }

    #[test]
    fn a_family_member_is_explained_with_its_own_prototype() {
        let found = declarations(
            r#"
            #[kernel(ptx = "k.ptx")]
            unsafe extern "C" {
                #[kernel(name = "affine_{T}")]
                fn affine<T>(x: *mut T, n: usize);
            }
            "#,
        );
        let message = explain(Path::new("cuda/k.cu"), &conflict("affine_i64"), &found);
        assert!(
            message.contains(
                "the kernel `affine_i64` is defined with other parameter types than its Rust \
                 declaration at src/lib.rs:5:20, which nvcc sees as `extern \"C\" __global__ void \
                 affine_i64(int64_t* x, size_t n);`"
            ),
            "{message}"
        );
    }
}
