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
//! The committed PTX and generated declarations follow one policy: a file missing or not
//! current is written on request, a warning in an ordinary build, an error in a checked one.
//! The PTX records what made it (nvcc's header and `.target`), the generated declarations say it
//! in their third line (`// From nvcc's PTX for sm_80, nvcc V13.0.88.`). A build for another
//! architecture or with another nvcc than the committed files' does not compare them (the two
//! cannot agree) and says so once; where the check is asked for, that is an error.
//!
//! The architecture is [`ptx_arch`](Build::ptx_arch)'s, or chosen as candle's build chooses it
//! with [`arch_from_environment`](Build::arch_from_environment): `CUDA_COMPUTE_CAP`, else the
//! machine's GPU, else the crate's default. Host code that launches its own kernels
//! (`<<<...>>>`) builds into a [static library](Build::static_library) linked into the crate,
//! so one build step serves a crate's PTX and its libraries.
//!
//! nvcc is `$NVCC`, else `$CUDA_HOME/bin/nvcc` (or `$CUDA_PATH`), else `nvcc` on `PATH`. Files
//! are compiled in parallel; `cargo::rerun-if-changed` covers each source, every local header it
//! includes (`#include "..."`, found beside it or in [`include`](Build::include) folders) and the
//! declaration files.

#![warn(missing_docs)]

mod committed;
pub mod facts;
mod generate;
mod library;
mod naming;
mod nvcc;
mod scan;
mod target;

pub use facts::Facts;
pub use generate::{Accounting, Generated, NamedFamily, Options, entry_function, generate};

pub use scan::module_tree;

#[cfg(test)]
mod robustness;

use std::fmt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use committed::{Recorded, compare_committed, strict, use_committed};

/// The first line of every PTX file the build step writes, before the hash of its inputs (the
/// `.cu`, its local headers, the Rust declarations of its kernels and nvcc's flags) and the hash
/// of the same without the declarations (absent in files written before it was recorded).
pub const HASH_MARKER: &str = "// cuda-kernel-source-sha256: ";

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
    /// The architectures [`Build::arch_from_environment`] chose, or why it could not.
    target: Option<Result<target::Target, String>>,
    libraries: Vec<library::Library>,
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
    /// `$OUT_DIR/lib<name>.a` of each [static library](Build::static_library).
    pub libraries: Vec<PathBuf>,
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
            target: None,
            libraries: Vec::new(),
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

    /// Chooses the architectures as candle's build (cudaforge) does: `CUDA_COMPUTE_CAP` (`80`,
    /// `8.0`, `sm_90a`), else the compute capability of the machine's GPUs as `nvidia-smi`
    /// lists them (the lowest, where they differ), else `default`. The PTX is for the lowest
    /// (`compute_80`; the driver compiles it for newer GPUs as it loads it). Several in
    /// `CUDA_COMPUTE_CAP` (`75,80,90`) also make a fatbin of each file with a cubin for each and
    /// the lowest's PTX ([`fatbin`](Build::fatbin)), and a [static library](Build::static_library)
    /// carries machine code for each. A `CUDA_COMPUTE_CAP` that names no compute capability
    /// fails the build.
    ///
    /// A committed file made for another architecture (or by another nvcc) than the build's is
    /// not compared with it: the build says so once, and in strict mode (CI) fails.
    ///
    /// ```no_run
    /// // build.rs: the GPU the user has, else compute capability 8.0.
    /// let mut build = cuda_kernel_build::Build::new();
    /// build.file("cuda/softmax.cu").arch_from_environment("80");
    /// if build.compute_cap() < 80 {
    ///     build.flag("-DNO_BF16_KERNELS");
    /// }
    /// build.compile();
    /// ```
    pub fn arch_from_environment(&mut self, default: &str) -> &mut Build {
        println!("cargo::rerun-if-env-changed={}", target::COMPUTE_CAP_ENV);
        let env = std::env::var(target::COMPUTE_CAP_ENV).ok();
        let chosen = match target::Cap::parse(default) {
            None => Err(format!(
                "arch_from_environment({default:?}): the default is not a compute capability \
                 (80, 8.0, sm_90a)"
            )),
            Some(default) => {
                // nvidia-smi only where the variable does not decide.
                let gpus = match env.as_deref().is_some_and(|e| !e.trim().is_empty()) {
                    true => None,
                    false => target::machine_gpus(),
                };
                target::Target::choose(env.as_deref(), gpus.as_deref(), default)
            }
        };
        if let Ok(target) = &chosen {
            self.ptx_arch = target.lowest().virtual_arch();
            if target.caps.len() > 1 {
                self.fatbin_archs = target.caps.iter().map(|c| format!("sm_{c}")).collect();
            }
        }
        self.target = Some(chosen);
        self
    }

    /// The compute capability the PTX is for, as a number (`80` for `compute_80`, `90` for
    /// `compute_90a`): for flags that depend on it, as candle's `-DNO_BF16_KERNEL` below 80.
    pub fn compute_cap(&self) -> u32 {
        target::Cap::parse(&self.ptx_arch).map_or(75, |c| c.number)
    }

    /// A static library of host code that launches its own kernels (`<<<...>>>`): `files`
    /// (relative to `Cargo.toml`) compiled by nvcc with the build's flags and include folders,
    /// then `flags`, into objects with machine code for the build's architectures and PTX for
    /// the lowest; archived as `$OUT_DIR/lib<name>.a` and linked into the crate, with the CUDA
    /// runtime (`cudart`) and, except on MSVC, the C++ runtime. Objects are kept with the key of
    /// their inputs: a rebuild compiles only the files that changed. Needs nvcc (committed PTX
    /// cannot stand in for host code); under docs.rs (`DOCS_RS` set) the library is not built.
    ///
    /// ```no_run
    /// cuda_kernel_build::Build::new()
    ///     .arch_from_environment("80")
    ///     .static_library("moe", ["cuda/moe.cu", "cuda/moe_wmma.cu"], ["--default-stream", "per-thread"])
    ///     .compile();
    /// ```
    pub fn static_library<P: AsRef<Path>, F: Into<String>>(
        &mut self,
        name: &str,
        files: impl IntoIterator<Item = P>,
        flags: impl IntoIterator<Item = F>,
    ) -> &mut Build {
        self.libraries.push(library::Library {
            name: name.to_string(),
            files: files
                .into_iter()
                .map(|f| f.as_ref().to_path_buf())
                .collect(),
            flags: flags.into_iter().map(Into::into).collect(),
        });
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
        let target = match self.target.clone() {
            Some(chosen) => chosen?,
            None => target::Target::set(&self.ptx_arch),
        };
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
        // Stems whose committed files this build does not compare (made for another target).
        let mut not_compared: Vec<String> = Vec::new();
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
                // Committed files another architecture or nvcc made: not compared.
                let mut made_otherwise: Vec<(String, target::MadeBy)> = Vec::new();
                let mut made_now = None;
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
                            let made = target::MadeBy::read(Recorded::read(&text).body);
                            let otherwise = committed_dir
                                .as_deref()
                                .and_then(|dir| committed::made_otherwise(dir, &job.stem, &made))
                                .filter(|_| !write_requested());
                            made_now.get_or_insert(made);
                            if let Some(old) = otherwise {
                                made_otherwise.push((job.stem.clone(), old));
                            } else if let Some(dir) = &committed_dir {
                                match compare_committed(dir, &job.stem, &text, strict) {
                                    Ok(warning) => compiled.warn(warning),
                                    Err(p) => problems.push(p),
                                }
                            }
                        }
                        Err(p) => problems.push(p),
                    }
                }
                if let (Some(dir), Some(made_now)) = (&committed_dir, &made_now) {
                    let origin = target.origin();
                    match committed::not_compared(dir, &made_otherwise, made_now, &origin, strict) {
                        Ok(warning) => compiled.warn(warning),
                        Err(p) => problems.push(p),
                    }
                }
                not_compared = made_otherwise.into_iter().map(|(stem, _)| stem).collect();
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
                let mut unloadable: Vec<(String, target::MadeBy)> = Vec::new();
                for job in &jobs {
                    match use_committed(committed_dir.as_deref(), job, &out_dir, strict) {
                        Ok((out, warning)) => {
                            let text = std::fs::read_to_string(&out).unwrap_or_default();
                            let made = target::MadeBy::read(Recorded::read(&text).body);
                            if target.source != target::Source::Set && !made.loads_on(&target) {
                                unloadable.push((job.stem.clone(), made));
                            }
                            compiled.ptx.push(out);
                            compiled.warn(warning);
                        }
                        Err(p) => problems.push(p),
                    }
                }
                if let Some((_, made)) = unloadable.first() {
                    let names: Vec<String> =
                        unloadable.iter().map(|(s, _)| format!("{s}.ptx")).collect();
                    compiled.warn(Some(format!(
                        "the committed PTX ({}) is for {}, which a GPU of {} cannot load, and \
                         nvcc was not found to compile for it: install nvcc (cuda-kernel's \
                         README, \"Getting nvcc\"), or build for the committed architecture",
                        names.join(", "),
                        made.describe(),
                        target.origin()
                    )));
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
        if problems.is_empty() && !self.libraries.is_empty() {
            match (&nvcc_path, std::env::var_os("DOCS_RS")) {
                (_, Some(_)) => {}
                (None, None) => problems.push(format!(
                    "the static library `{}` needs nvcc, which was not found ($NVCC, \
                     $CUDA_HOME/bin, $CUDA_PATH/bin or PATH): committed PTX cannot stand in \
                     for host code",
                    self.libraries[0].name
                )),
                (Some(nvcc), None) => {
                    let inputs = library::Inputs {
                        nvcc,
                        manifest_dir: &manifest_dir,
                        includes: &includes,
                        flags: &self.flags,
                        target: &target,
                        out_dir: &out_dir,
                    };
                    for lib in &self.libraries {
                        match library::build(lib, &inputs) {
                            Ok(archive) => compiled.libraries.push(archive),
                            Err(mut p) => problems.append(&mut p),
                        }
                    }
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
                &not_compared,
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
                // What made the PTX the declarations were made from: a committed file says.
                let ptx = std::fs::read_to_string(out_dir.join(format!("{}.ptx", job.stem)))
                    .unwrap_or_default();
                let made = target::MadeBy::read(Recorded::read(&ptx).body);
                let rust = with_made_by(&generated.rust, &made);
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

/// Generated declarations with a line saying what made the PTX they were made from, after the
/// generator's first two lines: `// From nvcc's PTX for sm_80 (nvcc V13.0.88).`
fn with_made_by(rust: &str, made: &target::MadeBy) -> String {
    let line = format!("// From nvcc's PTX for {}.\n", made.describe());
    let mut cut = 0;
    for _ in 0..2 {
        match rust[cut..].find('\n') {
            Some(at) => cut += at + 1,
            None => return format!("{line}{rust}"),
        }
    }
    format!("{}{line}{}", &rust[..cut], &rust[cut..])
}

/// Whether this build writes the committed files (`CUDA_KERNEL_WRITE_PTX=1`).
fn write_requested() -> bool {
    std::env::var_os(WRITE_PTX_ENV).is_some_and(|v| v == "1")
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
