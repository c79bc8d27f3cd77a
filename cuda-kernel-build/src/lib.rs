//! The build step of [cuda-kernel](https://docs.rs/cuda-kernel), in the style of cxx-build:
//! compiles a crate's `.cu` files with nvcc into `OUT_DIR`, checked by nvcc itself against the
//! crate's `#[kernel]` declarations.
//!
//! ```no_run
//! // build.rs, whose main is:
//! cuda_kernel_build::Build::new()
//!     .file("cuda/softmax.cu")      // -> $OUT_DIR/softmax.ptx
//!     .declarations("src/lib.rs")   // the #[kernel] blocks and #[derive(KernelParam)] structs
//!     .committed_ptx("ptx")         // where the PTX is kept for machines without nvcc
//!     .compile();
//! ```
//!
//! ```ignore
//! // src/lib.rs
//! #[cuda_kernel::kernel(ptx = "$OUT_DIR/softmax.ptx", module = pub MlKernels)]
//! unsafe extern "C" {
//!     pub fn softmax(x: *const f32, y: *mut f32, rows: u32, cols: u32);
//! }
//! ```
//!
//! For each `.cu` file the build step:
//!
//! 1. writes `$OUT_DIR/cuda-kernel/<name>.h`: the C prototypes of the kernels that blocks naming
//!    `<name>.ptx` declare (`extern "C" __global__ void softmax(const float* x, float* y,
//!    unsigned int rows, unsigned int cols);`) and the declarations of the derived structs, with
//!    `static_assert`s on their layout;
//! 2. compiles the file with `nvcc -ptx`, that header force-included (`-include`), so nvcc
//!    rejects a kernel whose definition differs from its Rust declaration in a pointer's element
//!    type, constness or an integer's signedness (what neither the PTX check nor the driver can
//!    see); the error names the Rust declaration;
//! 3. writes `$OUT_DIR/<name>.ptx`, its first line recording a SHA-256 of everything that went
//!    into it (the source, the local headers it includes, the generated header, nvcc's
//!    arguments), and, when asked, cubins and a fatbin for listed architectures;
//! 4. with [`committed_ptx`](Build::committed_ptx), compares the PTX with the committed copy.
//!
//! Cargo reruns the build step whenever a file it scans for declarations changes (the crate's
//! `src/lib.rs`, say). A `.cu` file whose inputs are those of its last build (that hash, nvcc
//! itself and the include folders) keeps the PTX that build made, and the declarations
//! generated from it, without running nvcc again: an edit that changes no declaration of a
//! file costs it no compilation.
//!
//! Where nvcc is missing (a user without the CUDA toolkit, docs.rs), the committed PTX is used;
//! its recorded hash says whether it was made from the current sources. So a published crate
//! carries its PTX and builds anywhere. A crate's first build with nvcc writes the committed
//! PTX (and generated declarations) that do not exist yet, and says so once: commit them.
//! Without nvcc and without them, the build stops with what is missing, how to get nvcc and
//! what the first build writes.
//!
//! A committed PTX that is not current (a `.cu` edited, even a comment; a declaration added)
//! never stops an ordinary build: with nvcc the build uses nvcc's fresh PTX, without it the
//! committed one, and a `cargo:warning` says so and what to run (`CUDA_KERNEL_WRITE_PTX=1`
//! writes the fresh PTX into the committed folder). Where only the record of its inputs changed
//! (its first line: a Rust declaration or a comment edited, the PTX the same), a build with nvcc
//! rewrites that line and says so once; a build without nvcc says nothing when only Rust
//! declarations changed, since the `#[kernel]` checks run against that PTX. So the edit loop is
//! as without the build step, and the compile-time checks of the `#[kernel]` blocks (a
//! misspelled kernel is "no entry ...") come first. It is an error where the check is asked for, as `sqlx prepare
//! --check` or insta's CI mode do: with `CUDA_KERNEL_CHECK_PTX=1`, [`Build::check_committed`],
//! or in CI (`CI` set, as CI services do) for a crate built from its own checkout (not a
//! dependency from a registry or a git checkout, whose PTX its authors checked).
//!
//! nvcc is `$NVCC`, else `$CUDA_HOME/bin/nvcc` (or `$CUDA_PATH`), else `nvcc` on `PATH`. Files
//! are compiled in parallel; `cargo::rerun-if-changed` covers each source, every local header it
//! includes (`#include "..."`, found beside it or in [`include`](Build::include) folders) and the
//! declaration files.

#![warn(missing_docs)]

pub mod facts;
mod generate;
mod naming;
mod nvcc;
mod scan;

pub use facts::Facts;
pub use generate::{Accounting, Generated, NamedFamily, Options, entry_function, generate};

pub use scan::module_tree;

#[cfg(test)]
mod robustness;

use std::fmt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The first line of every PTX file the build step writes, before the hash of its inputs (the
/// `.cu`, its local headers, the Rust declarations of its kernels and nvcc's flags) and the hash
/// of the same without the declarations (absent in files written before it was recorded).
pub const HASH_MARKER: &str = "// cuda-kernel-source-sha256: ";

/// The record of a PTX file's inputs ([`HASH_MARKER`]'s line), and the rest of the file.
struct Recorded<'a> {
    /// The hash of every input.
    inputs: Option<&'a str>,
    /// The hash of the inputs but the Rust declarations.
    sources: Option<&'a str>,
    body: &'a str,
}

impl<'a> Recorded<'a> {
    fn read(ptx: &'a str) -> Recorded<'a> {
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

/// Set to `1` to write the PTX nvcc made into the committed folder.
pub const WRITE_PTX_ENV: &str = "CUDA_KERNEL_WRITE_PTX";

/// Set to `1` to fail the build on committed PTX that is not current (set to `0` to only warn,
/// in CI too).
pub const CHECK_PTX_ENV: &str = "CUDA_KERNEL_CHECK_PTX";

/// A build of `.cu` files: configure it, then [`compile`](Build::compile).
#[derive(Clone, Debug)]
pub struct Build {
    files: Vec<PathBuf>,
    declarations: Vec<PathBuf>,
    includes: Vec<PathBuf>,
    flags: Vec<String>,
    ptx_arch: String,
    cubin_archs: Vec<String>,
    fatbin_archs: Vec<String>,
    committed: Option<PathBuf>,
    manifest_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    nvcc: Option<PathBuf>,
    without_nvcc: bool,
    struct_declarations: bool,
    check_committed: Option<bool>,
    allow_undeclared: Vec<PathBuf>,
    generate: bool,
    bound_structs: Vec<(String, String)>,
    families: Vec<(PathBuf, generate::NamedFamily)>,
    alongside: Vec<PathBuf>,
}

impl Default for Build {
    fn default() -> Self {
        Self::new()
    }
}

/// What a build wrote.
#[derive(Clone, Debug, Default)]
pub struct Compiled {
    /// `$OUT_DIR/<name>.ptx` of each file, in the order given.
    pub ptx: Vec<PathBuf>,
    /// The headers written for nvcc, one per file.
    pub headers: Vec<PathBuf>,
    /// Cubins and fatbins, when asked for.
    pub binaries: Vec<PathBuf>,
    /// Whether nvcc compiled (`false`: committed PTX was used).
    pub compiled_by_nvcc: bool,
    /// What the build printed as `cargo:warning`s: declarations escaping the checks, kernels
    /// the generated declarations leave out, and the committed files (written, or not current).
    pub warnings: Vec<String>,
    /// With [`Build::generate_declarations`]: `$OUT_DIR/cuda-kernel/<stem>.rs` of each file.
    pub generated: Vec<PathBuf>,
}

impl Compiled {
    /// Prints a warning for cargo, and keeps it.
    fn warn(&mut self, warning: Option<String>) {
        if let Some(warning) = warning {
            println!("cargo::warning={warning}");
            self.warnings.push(warning);
        }
    }
}

/// Why a build failed: every problem found, each naming its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// One message per problem.
    pub problems: Vec<String>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(problem)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(problem: String) -> Error {
        Error {
            problems: vec![problem],
        }
    }
}

impl Build {
    /// An empty build: PTX for `compute_75` (the oldest architecture nvcc 13 targets; the
    /// driver compiles it for the GPU it loads on), `-O3`.
    pub fn new() -> Build {
        Build {
            files: Vec::new(),
            declarations: Vec::new(),
            includes: Vec::new(),
            flags: vec!["-O3".to_string()],
            ptx_arch: "compute_75".to_string(),
            cubin_archs: Vec::new(),
            fatbin_archs: Vec::new(),
            committed: None,
            manifest_dir: None,
            out_dir: None,
            nvcc: None,
            without_nvcc: false,
            struct_declarations: true,
            check_committed: None,
            allow_undeclared: Vec::new(),
            generate: false,
            bound_structs: Vec::new(),
            families: Vec::new(),
            alongside: Vec::new(),
        }
    }

    /// A `.cu` file to compile, relative to the crate's `Cargo.toml`. Its PTX is
    /// `$OUT_DIR/<stem>.ptx`. A file whose kernels need a newer architecture names it in a
    /// `// ptx-arch: compute_90` line (the first word after the colon; a comment may follow).
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.files.push(path.as_ref().to_path_buf());
        self
    }

    /// Several `.cu` files.
    pub fn files<P: AsRef<Path>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Build {
        for path in paths {
            self.file(path);
        }
        self
    }

    /// A Rust source holding `#[kernel]` blocks or `#[derive(KernelParam)]` structs (inline
    /// modules included), relative to `Cargo.toml`. Blocks name their PTX with
    /// `ptx = "$OUT_DIR/<stem>.ptx"` (any path ending in `<stem>.ptx` ties a block to `<stem>.cu`).
    ///
    /// Without any, the build step reads the whole crate as rustc does: from `src/lib.rs`,
    /// `src/main.rs` and `src/bin/*.rs` through every `mod`. With a list, a block elsewhere in
    /// the crate that names this build's PTX is a `cargo:warning` (its prototypes would escape
    /// nvcc's check).
    pub fn declarations(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.declarations.push(path.as_ref().to_path_buf());
        self
    }

    /// A folder of headers (`-I`), relative to `Cargo.toml`.
    pub fn include(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.includes.push(dir.as_ref().to_path_buf());
        self
    }

    /// An nvcc flag for every compilation (`-DNAME=1`, `--use_fast_math`). It is part of the
    /// recorded hash.
    pub fn flag(&mut self, flag: impl Into<String>) -> &mut Build {
        self.flags.push(flag.into());
        self
    }

    /// The virtual architecture of the PTX (`compute_90`), for files without a `// ptx-arch:`
    /// line.
    pub fn ptx_arch(&mut self, arch: impl Into<String>) -> &mut Build {
        self.ptx_arch = arch.into();
        self
    }

    /// Also a cubin for this architecture (`sm_90`): `$OUT_DIR/<stem>.sm_90.cubin`. Needs nvcc.
    pub fn cubin(&mut self, arch: impl Into<String>) -> &mut Build {
        self.cubin_archs.push(arch.into());
        self
    }

    /// Also a fatbin holding cubins for these architectures and the PTX:
    /// `$OUT_DIR/<stem>.fatbin`. Needs nvcc.
    pub fn fatbin<S: Into<String>>(&mut self, archs: impl IntoIterator<Item = S>) -> &mut Build {
        self.fatbin_archs.extend(archs.into_iter().map(Into::into));
        self
    }

    /// The folder, relative to `Cargo.toml`, where the PTX is committed: used without nvcc,
    /// compared with nvcc's output otherwise (see the crate docs).
    pub fn committed_ptx(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.committed = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The crate's folder, instead of `$CARGO_MANIFEST_DIR` (for tools and tests).
    pub fn manifest_dir(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.manifest_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Where to write, instead of `$OUT_DIR` (for tools and tests).
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// The nvcc to run, instead of looking for one.
    pub fn nvcc(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.nvcc = Some(path.as_ref().to_path_buf());
        self
    }

    /// Whether the header declares the `#[derive(KernelParam)]` structs (on by default). Turn it
    /// off for `.cu` files that define them themselves (from `cuda_kernel::write_cuda_header`,
    /// say): the header then only names them (`struct Params;`) for the kernel prototypes.
    pub fn struct_declarations(&mut self, on: bool) -> &mut Build {
        self.struct_declarations = on;
        self
    }

    /// Writes the `#[kernel]` declarations of every file's kernels that no hand-written block
    /// of the crate declares, as `$OUT_DIR/cuda-kernel/<stem>.rs` (one block with a module type
    /// `Kernels`), from the compiler's own facts: beside the PTX compile, the build step
    /// compiles the file's device code again with debug information (`nvcc -ptx -G`, the PTX's
    /// architecture, flags and header; kept as `$OUT_DIR/cuda-kernel/<stem>.facts.ptx` while
    /// the inputs are unchanged) and reads, from the DWARF cicc writes into that PTX, each entry
    /// of the PTX: its parameters' names and types as the compiler resolved them (typedefs,
    /// class-template instances, enums and structs of any header, bit-fields), the file that
    /// defines it. Include it in a module of its own:
    ///
    /// ```ignore
    /// pub mod fill {
    ///     include!(concat!(env!("OUT_DIR"), "/cuda-kernel/fill.rs"));
    /// }
    /// ```
    ///
    /// `extern "C"` kernels are declared by name and C++ ones with `#[kernel(cpp)]`, where the
    /// mangler `#[kernel]` uses derives the entry's symbol from the declaration; otherwise
    /// (a kernel of an anonymous namespace, one taking a `volatile` pointer or a class
    /// template's instance) by its C++ name (`#[kernel(name = "(anonymous namespace)::fill")]`,
    /// `#[kernel(name = "k_bin<op_add, float>")]`), which holds still from one nvcc run to the
    /// next. A function template is declared generically where one declaration derives every
    /// instance's symbol (types and integer, enum and device-function arguments; `T *` as
    /// `*mut T`), else instance by instance by C++ name. A dtype family of `extern "C"`
    /// kernels (`fill_u8`, `fill_f32`, ...) is declared once, as `#[kernel(name =
    /// "fill_{T}")]`. The records the kernels take are `#[derive(KernelParam)]` structs laid
    /// out as nvcc laid them out (or the crate's, through [`bind_struct`](Build::bind_struct));
    /// an enum a `#[repr(C)]` struct of its underlying integer with its enumerators as
    /// constants, a union its bytes, bit-fields the integers that hold them. C types go through
    /// the type table (`size_t` as `ffi::size_t`, `int64_t` as `i64`, `const float*` as
    /// `*const f32`). Every name is a Rust identifier, unique in the file, by one rule: a
    /// launcher is the kernel's name in UpperCamelCase, or where another item has it its
    /// qualified C++ name (`gemm::detail::reset` is `GemmDetailReset`), or that with a number.
    /// Kernels of the toolkit's headers (CUB's, which the file's host code launches) are
    /// counted apart in the file's header; kernels of any other header are declared, once, by
    /// the first file whose PTX has them. The preprocessed text (`nvcc -E`, also beside the
    /// PTX compile) is read only for what the debug information does not carry: a template's
    /// parameter names and `__grid_constant__`.
    /// The generated blocks go through every check a hand-written one does
    /// (the PTX check at compile time, the driver at load). A kernel this cannot declare (a
    /// template without instances, a `__grid_constant__` parameter the kernel never reads,
    /// which cicc leaves out of its debug information) is a `cargo:warning` naming it and
    /// why: declare it by hand, and a hand-written declaration of a kernel always wins (the
    /// kernel is left out of the generated block). With [`committed_ptx`](Build::committed_ptx)
    /// the generated file is committed beside the PTX (written by the first build with nvcc,
    /// and after with `CUDA_KERNEL_WRITE_PTX=1`), so that machines without nvcc build from it.
    pub fn generate_declarations(&mut self, on: bool) -> &mut Build {
        self.generate = on;
        self
    }

    /// For [`generate_declarations`](Build::generate_declarations): the C struct `c_name`
    /// is the crate's Rust type at `rust_path` (a `#[derive(KernelParam)]` struct, such as one
    /// whose CUDA declaration the build step writes into the header), so kernels taking it are
    /// declared with that type. Structs the `.cu` file defines itself are generated as
    /// `#[derive(KernelParam)]` structs unless bound.
    pub fn bind_struct(&mut self, c_name: &str, rust_path: &str) -> &mut Build {
        self.bound_structs
            .push((c_name.to_string(), rust_path.to_string()));
        self
    }

    /// For [`generate_declarations`](Build::generate_declarations): the kernels of `file` (a
    /// `.cu` given to [`file`](Build::file)) that `pattern` matches are one declaration named
    /// `name`, as a hand-written `#[kernel(name = "...")]` family would be. In the pattern a
    /// placeholder with a capital first letter is a type parameter, over the element type tags
    /// of the kernels' names (`f32`, `bf16`, `u8`), and one with a small first letter the part
    /// chosen at run time (the launcher's `op`):
    ///
    /// ```no_run
    /// cuda_kernel_build::Build::new()
    ///     .file("cuda/unary.cu")
    ///     .generate_declarations(true)
    ///     // uexp_f32, usqrt_bf16, ...: `kernels.unary::<f32>("exp")`
    ///     .family("cuda/unary.cu", "u{op}_{T}", "unary")
    ///     // upowf_f32 takes one more parameter: a family of its own, named
    ///     .family("cuda/unary.cu", "upowf_{T}", "powf")
    ///     .compile();
    /// ```
    ///
    /// A pattern may have a run-time part alone: `.family("cuda/q.cu", "get_rows_{q}",
    /// "get_rows")` declares `get_rows_q4_0`, `get_rows_q8_0`, ... as one launcher chosen by
    /// name (`kernels.get_rows("q4_0")`). At most one part is chosen at run time.
    ///
    /// The members are the kernels the pattern matches whose parameters are one shape once
    /// their element types are the type parameters; with a run-time part, the others it matches
    /// are declared apart (the macro leaves an entry another declaration binds out of a
    /// run-time family, and gives one that two patterns match to the one with more fixed
    /// text, as here). Without one, every kernel it matches must fit. A pattern that cannot be
    /// declared is a `cargo:warning` saying why; one that matches no kernel of `file` is one
    /// too. Unnamed, families of one or two element types (`fill_{T}`, `cast_{T}_{U}`) are
    /// found by their names' tags.
    pub fn family(&mut self, file: impl AsRef<Path>, pattern: &str, name: &str) -> &mut Build {
        self.families.push((
            file.as_ref().to_path_buf(),
            generate::NamedFamily {
                pattern: pattern.to_string(),
                name: name.to_string(),
            },
        ));
        self
    }

    /// A Rust source whose `#[kernel]` blocks declare kernels beside the generated
    /// declarations rather than instead of them (a twin with a contract, say, where the
    /// generated launcher stays for the launches the contract refuses): nvcc checks its
    /// prototypes as for [`declarations`](Build::declarations), and its kernels are still
    /// generated.
    pub fn declarations_alongside(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.alongside.push(path.as_ref().to_path_buf());
        self
    }

    /// Silences the warning for kernels of `file` (a `.cu` given to [`file`](Build::file)) that
    /// no `#[kernel]` block declares: for a file whose other kernels are launched elsewhere.
    pub fn allow_undeclared(&mut self, file: impl AsRef<Path>) -> &mut Build {
        self.allow_undeclared.push(file.as_ref().to_path_buf());
        self
    }

    /// Whether committed PTX that is not current fails the build (`true`) or only warns
    /// (`false`). Unset, it fails where `CUDA_KERNEL_CHECK_PTX=1`, or in CI (`CI` set) for a
    /// crate built from its own checkout; `CUDA_KERNEL_CHECK_PTX=0` only warns.
    pub fn check_committed(&mut self, check: bool) -> &mut Build {
        self.check_committed = Some(check);
        self
    }

    /// Uses only the committed PTX, even where nvcc exists: builds what a machine without the
    /// toolkit builds (and checks that the committed PTX is current).
    pub fn without_nvcc(&mut self) -> &mut Build {
        self.without_nvcc = true;
        self
    }

    /// For a crate whose `.cu` files another tool compiles (cudaforge, cc, a Makefile): writes
    /// the header of every declaration this build step reads (the listed files, or the whole
    /// crate) to `$OUT_DIR/cuda-kernel/declarations.h` and returns the nvcc arguments that
    /// force-include it, `["-include", "<path>"]`. Given to that tool's nvcc, they make nvcc
    /// refuse a kernel defined with other C types than its Rust declaration, as this build
    /// step's own compilation does; the `#[kernel(ptx = "$OUT_DIR/x.ptx")]` blocks are checked
    /// against the PTX it writes at compile time, as always.
    ///
    /// ```no_run
    /// // build.rs of a crate on cudaforge
    /// let include = cuda_kernel_build::Build::new().nvcc_args().unwrap();
    /// // cudaforge::KernelBuilder::new().source_dir("cuda").args(&include)
    /// //     .watch([&include[1]]).build_ptx()?;
    /// # let _ = include;
    /// ```
    pub fn nvcc_args(&mut self) -> Result<Vec<String>, Error> {
        let (manifest_dir, out_dir) = self.dirs()?;
        let (_, declarations) = self.read_declarations(&manifest_dir, None)?;
        let dir = out_dir.join("cuda-kernel");
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::from(format!("cannot create {}: {e}", dir.display())))?;
        let header = dir.join("declarations.h");
        write_if_changed(&header, scan::header_all(&declarations).as_bytes())?;
        Ok(vec!["-include".to_string(), header.display().to_string()])
    }

    /// Compiles, for a build script: on failure prints every problem and exits, failing the
    /// build with a message instead of a panic's backtrace.
    pub fn compile(&mut self) -> Compiled {
        match self.try_compile() {
            Ok(compiled) => compiled,
            Err(e) => {
                // Cargo shows `cargo::error` lines first and alone, as `error: crate@version:
                // ...`, and fails the build; a problem's lines after its first (the fix, or
                // nvcc's output) each on a line of their own.
                for problem in &e.problems {
                    for line in problem.lines() {
                        println!("cargo::error={line}");
                    }
                }
                std::process::exit(0);
            }
        }
    }

    /// The declaration files (the listed ones, or `tree`, the crate's module tree) and what
    /// they declare. A listed file that cannot be read or parsed is an error; a file of the tree
    /// that does not parse is rustc's to report, not the build step's.
    fn read_declarations(
        &self,
        manifest_dir: &Path,
        tree: Option<&[PathBuf]>,
    ) -> Result<(Vec<PathBuf>, scan::Declarations), Error> {
        let mut declarations = match self.declarations.is_empty() {
            true => {
                let files = match tree {
                    Some(tree) => tree.to_vec(),
                    None => scan::module_tree(manifest_dir),
                };
                let found = scan::scan_sources(&scan::parsable(&files)).map_err(Error::from)?;
                (files, found)
            }
            false => {
                let files: Vec<PathBuf> = self
                    .declarations
                    .iter()
                    .chain(&self.alongside)
                    .map(|f| manifest_dir.join(f))
                    .collect();
                let found = scan::read(&files)?;
                (files, found)
            }
        };
        for file in &declarations.0 {
            println!("cargo::rerun-if-changed={}", file.display());
        }
        declarations.1.declare_structs = self.struct_declarations;
        Ok(declarations)
    }

    /// The crate's folder and the output folder: as set, or from Cargo's environment.
    fn dirs(&self) -> Result<(PathBuf, PathBuf), Error> {
        let manifest_dir = match &self.manifest_dir {
            Some(dir) => dir.clone(),
            None => env_dir("CARGO_MANIFEST_DIR")?,
        };
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => env_dir("OUT_DIR")?,
        };
        Ok((manifest_dir, out_dir))
    }

    /// Compiles, returning what went wrong.
    pub fn try_compile(&mut self) -> Result<Compiled, Error> {
        let (manifest_dir, out_dir) = self.dirs()?;
        let in_crate = |p: &PathBuf| manifest_dir.join(p);
        // The listed files, or the crate's whole module tree.
        let tree = scan::module_tree(&manifest_dir);
        let listed = !self.declarations.is_empty();
        let (declaration_files, declarations) =
            self.read_declarations(&manifest_dir, Some(&tree))?;
        println!("cargo::rerun-if-env-changed={WRITE_PTX_ENV}");
        println!("cargo::rerun-if-env-changed={CHECK_PTX_ENV}");
        println!("cargo::rerun-if-env-changed=CI");
        let strict = strict(self.check_committed, &manifest_dir);
        println!("cargo::rerun-if-env-changed=NVCC");
        let includes: Vec<PathBuf> = self.includes.iter().map(in_crate).collect();
        std::fs::create_dir_all(out_dir.join("cuda-kernel"))
            .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;

        let mut jobs = Vec::new();
        for file in &self.files {
            let source = in_crate(file);
            let stem = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .ok_or_else(|| format!("{} has no file name", file.display()))?;
            let text = std::fs::read(&source)
                .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
            let arch = String::from_utf8_lossy(&text)
                .lines()
                .find_map(|l| {
                    // The architecture is the first word; a comment may follow it.
                    let rest = l.trim().strip_prefix("// ptx-arch:")?;
                    rest.split_whitespace().next().map(str::to_string)
                })
                .unwrap_or_else(|| self.ptx_arch.clone());
            let header = scan::header(&stem, &declarations);
            let header_path = out_dir.join("cuda-kernel").join(format!("{stem}.h"));
            write_if_changed(&header_path, header.as_bytes())?;
            let local_headers = nvcc::local_includes(&source, &includes);
            println!("cargo::rerun-if-changed={}", source.display());
            for h in &local_headers {
                println!("cargo::rerun-if-changed={}", h.display());
            }
            let mut args = vec!["-ptx".to_string(), format!("-arch={arch}")];
            args.extend(self.flags.iter().cloned());
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
                hasher
                    .finalize()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            };
            let (hash, sources_hash) = (digest(Some(&header)), digest(None));
            jobs.push(nvcc::Job {
                stem,
                source,
                header_path,
                args,
                hash,
                sources_hash,
            });
        }

        let nvcc_path = match self.without_nvcc {
            true => None,
            false => self.nvcc.clone().or_else(nvcc::find),
        };
        let mut compiled = Compiled {
            compiled_by_nvcc: nvcc_path.is_some(),
            headers: jobs.iter().map(|j| j.header_path.clone()).collect(),
            ..Compiled::default()
        };
        let committed_dir = self.committed.as_ref().map(in_crate);
        let mut problems = Vec::new();
        match &nvcc_path {
            Some(nvcc) => {
                // A file whose inputs are those of the last build (a crate's edit that changes
                // no declaration of it: the build step reruns on every edit of a file it
                // scans) keeps its PTX; nvcc compiles the others.
                let out_of = |job: &nvcc::Job| out_dir.join(format!("{}.ptx", job.stem));
                let keys: Vec<String> = jobs
                    .iter()
                    .map(|job| nvcc::cache_key(nvcc, job, &includes))
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
                // The compiler's facts the declaration generator reads (the file compiled with
                // `-G`) and the preprocessed text it reads templates' parameter names from are
                // made beside the PTX compile, not after it (each kept with its key, where
                // `generate_all` finds it).
                let compiled_now = std::thread::scope(|scope| {
                    if self.generate {
                        for job in &stale {
                            let (includes, out_dir) = (&includes, &out_dir);
                            scope.spawn(move || {
                                let _ = nvcc::facts_ptx(nvcc, job, includes, out_dir);
                            });
                            scope.spawn(move || {
                                let _ = nvcc::preprocess_cached(nvcc, job, includes, out_dir);
                            });
                        }
                    }
                    nvcc::compile_all(nvcc, &stale, &includes, &declarations)
                });
                let mut fresh = compiled_now.into_iter();
                for ((job, key), reused) in jobs.iter().zip(&keys).zip(reused) {
                    // A reused PTX gets this version's record too (an earlier one's cache may
                    // lack the sources' own hash).
                    let result = match reused {
                        Some(text) => Ok(Recorded::read(&text).body.to_string()),
                        None => fresh
                            .next()
                            .unwrap_or_else(|| Err("nvcc gave no result".to_string())),
                    }
                    .map(|ptx| format!("{HASH_MARKER}{} {}\n{ptx}", job.hash, job.sources_hash));
                    match result {
                        Ok(text) => {
                            let out = out_of(job);
                            write_if_changed(&out, text.as_bytes())?;
                            nvcc::remember(&out, key, &text);
                            compiled.ptx.push(out);
                            if let Some(dir) = &committed_dir {
                                match compare_committed(dir, &job.stem, &text, strict) {
                                    Ok(warning) => compiled.warn(warning),
                                    Err(p) => problems.push(p),
                                }
                            }
                        }
                        Err(p) => problems.push(p),
                    }
                }
                if problems.is_empty() {
                    compiled.binaries = nvcc::binaries(
                        nvcc,
                        &jobs,
                        &includes,
                        &self.flags,
                        &self.cubin_archs,
                        &self.fatbin_archs,
                        &out_dir,
                    )?;
                }
            }
            None => {
                for job in &jobs {
                    match use_committed(committed_dir.as_deref(), job, &out_dir, strict) {
                        Ok((out, warning)) => {
                            compiled.ptx.push(out);
                            compiled.warn(warning);
                        }
                        Err(p) => problems.push(p),
                    }
                }
                if problems.is_empty()
                    && !(self.cubin_archs.is_empty() && self.fatbin_archs.is_empty())
                {
                    problems.push(
                        "cubins and fatbins need nvcc, which was not found (set NVCC or install \
                         the CUDA toolkit)"
                            .to_string(),
                    );
                }
            }
        }
        if problems.is_empty() && self.generate {
            let alongside: Vec<PathBuf> = self.alongside.iter().map(in_crate).collect();
            let written = generate_all(
                nvcc_path.as_deref(),
                &self.bound_structs,
                &self.families,
                &alongside,
                &jobs,
                &includes,
                &declarations,
                committed_dir.as_deref(),
                &out_dir,
                strict,
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
        } else if problems.is_empty() {
            // Without generation, no earlier build's declarations stay behind to be included
            // unawares: `$OUT_DIR/cuda-kernel/<stem>.rs` says, where it is included, which
            // builder call makes it.
            for job in &jobs {
                let path = out_dir.join("cuda-kernel").join(format!("{}.rs", job.stem));
                let text = not_generated(&job.stem);
                if let Err(e) = write_if_changed(&path, text.as_bytes()) {
                    problems.extend(e.problems);
                }
            }
        }
        if problems.is_empty() {
            let unlisted_files: Vec<PathBuf> = match listed {
                true => tree
                    .iter()
                    .filter(|f| !declaration_files.contains(f))
                    .cloned()
                    .collect(),
                false => Vec::new(),
            };
            let unlisted = scan::scan_sources(&scan::parsable(&unlisted_files)).unwrap_or_default();
            // Generated declarations cover a file's kernels, or name those they cannot.
            let allowed: Vec<PathBuf> = match self.generate {
                true => self.files.clone(),
                false => self.allow_undeclared.clone(),
            };
            let gaps = gap_warnings(&jobs, &compiled.ptx, &declarations, &unlisted, &allowed);
            for warning in &gaps {
                println!("cargo::warning={warning}");
            }
            compiled.warnings.extend(gaps);
            // A kernels crate with `links = "name"` tells the crates depending on it where its
            // PTX is: their build scripts read `DEP_<NAME>_PTX_DIR` ([`dependency_ptx`]).
            if std::env::var_os("CARGO_MANIFEST_LINKS").is_some() && self.out_dir.is_none() {
                println!("cargo::metadata=PTX_DIR={}", out_dir.display());
            }
            Ok(compiled)
        } else {
            Err(Error { problems })
        }
    }
}

/// [`Build::generate_declarations`]: each file's kernels (those the crate declares by hand left
/// out) declared from the compiler's facts (its `-G` PTX) and its preprocessed text, the Rust
/// written to `$OUT_DIR/cuda-kernel/<stem>.rs` and, on request, committed beside the PTX;
/// without nvcc, the committed copy. Returns the files written and the warnings.
#[allow(clippy::too_many_arguments)]
fn generate_all(
    nvcc: Option<&Path>,
    bound_structs: &[(String, String)],
    families: &[(PathBuf, generate::NamedFamily)],
    alongside: &[PathBuf],
    jobs: &[nvcc::Job],
    includes: &[PathBuf],
    declarations: &scan::Declarations,
    committed: Option<&Path>,
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
    let write = std::env::var_os(WRITE_PTX_ENV).is_some_and(|v| v == "1");
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
                let rust = generated.rust;
                if let Some(path) = &committed_path {
                    let old = std::fs::read_to_string(path).ok();
                    if write || (old.is_none() && !strict) {
                        // Asked for, or a crate's first build with nvcc: written, to commit.
                        if let Err(e) = std::fs::write(path, &rust) {
                            problems.push(format!("cannot write {}: {e}", path.display()));
                        } else if !write {
                            announce_written(path);
                            warnings.push(format!(
                                "wrote {}, the declarations generated from {shown}: commit it, \
                                 and machines without nvcc (docs.rs, CI) build from it",
                                path.display()
                            ));
                        }
                    } else if old.as_deref() != Some(rust.as_str()) {
                        let what = match old {
                            Some(_) => "differs from the declarations generated from",
                            None => "is missing: it holds the declarations generated from",
                        };
                        let message = format!(
                            "{} {what} {shown} now: rebuild with {WRITE_PTX_ENV}=1 to write it, \
                             then commit it",
                            path.display()
                        );
                        if strict {
                            problems.push(message);
                        } else {
                            warnings.push(message);
                        }
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
            .and_then(std::fs::metadata)
            .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
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
        // The PTX's entries: a template is declared where it has instances.
        let entries: Vec<String> =
            std::fs::read_to_string(out_dir.join(format!("{}.ptx", job.stem)))
                .ok()
                .and_then(|ptx| cuda_kernel_syntax::ptx::entries(&ptx).ok())
                .map(|entries| entries.into_iter().map(|e| e.name).collect())
                .unwrap_or_default();
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
                 warning names.\n// {}.\n",
                generated.accounting
            ),
            false => generated.rust,
        };
        let made = FileDeclarations {
            rust,
            warnings,
            from_headers: generated.from_headers,
        };
        if facts.is_ok() && std::fs::write(&cache, made.written()).is_ok() {
            nvcc::remember(&cache, &key, &made.written());
        }
        Ok(made)
    }
}

impl FileDeclarations {
    /// As kept: the counts of headers' kernels and of warnings, a line each (a warning's
    /// line breaks as U+0001), then the Rust.
    fn written(&self) -> String {
        let mut text = format!("{}\n", self.from_headers.len());
        for name in &self.from_headers {
            text.push_str(&format!("{name}\n"));
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
        let from_headers = (0..line()?.parse::<usize>().ok()?)
            .map(|_| line().map(str::to_string))
            .collect::<Option<Vec<_>>>()?;
        let warnings = (0..line()?.parse::<usize>().ok()?)
            .map(|_| line().map(|w| w.replace('\u{1}', "\n")))
            .collect::<Option<Vec<_>>>()?;
        Some(FileDeclarations {
            rust: rest.to_string(),
            warnings,
            from_headers,
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
fn not_generated(stem: &str) -> String {
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

fn env_dir(name: &str) -> Result<PathBuf, Error> {
    std::env::var_os(name).map(PathBuf::from).ok_or_else(|| {
        Error::from(format!(
            "{name} is not set: run cuda-kernel-build from a build script (build.rs)"
        ))
    })
}

/// Writes unless the file already holds `bytes`, so unchanged output does not rebuild.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes)
        .map_err(|e| Error::from(format!("cannot write {}: {e}", path.display())))
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
fn compare_committed(
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
        return Ok(Some(format!(
            "{} does not exist yet: rebuild with {WRITE_PTX_ENV}=1 to write it and commit it, so \
             that machines without nvcc can build",
            path.display()
        )));
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

/// Without nvcc: the committed PTX; one not made from these sources is an error when `strict`,
/// used with a warning otherwise.
fn use_committed(
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

/// For the build script of a crate that launches kernels another crate builds (candle-core and
/// candle-kernels): makes the dependency's PTX folder the environment variable
/// `DEP_<LINKS>_PTX_DIR` of this crate's compilation, so that its blocks check against the
/// dependency's PTX at compile time, without copies: `#[kernel(ptx =
/// "$DEP_MY_KERNELS_PTX_DIR/unary.ptx")]`. `links` is the `links` key of the dependency's
/// `Cargo.toml` (whose build script compiles with [`Build`]); returns the folder.
///
/// ```no_run
/// // build.rs of the crate that launches; Cargo.toml: my-kernels = { path = "../my-kernels" },
/// // whose Cargo.toml has `links = "my_kernels"`.
/// let dir = cuda_kernel_build::dependency_ptx("my_kernels").unwrap();
/// println!("cargo::warning=checking against {}", dir.display());
/// ```
pub fn dependency_ptx(links: &str) -> Result<PathBuf, Error> {
    let var = format!(
        "DEP_{}_PTX_DIR",
        links.to_ascii_uppercase().replace('-', "_")
    );
    println!("cargo::rerun-if-env-changed={var}");
    let dir = std::env::var_os(&var).map(PathBuf::from).ok_or_else(|| {
        Error::from(format!(
            "{var} is not set: the crate with `links = \"{links}\"` must be a direct dependency \
             (not only a build-dependency) whose build script compiles with cuda-kernel-build"
        ))
    })?;
    println!("cargo::rustc-env={var}={}", dir.display());
    Ok(dir)
}

/// Whether committed PTX that is not current is an error: asked for (`check`), else
/// `CUDA_KERNEL_CHECK_PTX`, else in CI for a crate of its own checkout.
fn strict(check: Option<bool>, manifest_dir: &Path) -> bool {
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
