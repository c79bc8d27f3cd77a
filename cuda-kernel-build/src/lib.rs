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
mod compile;
mod declarations;
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

use committed::strict;

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
    /// Each `.cu` file, and the name of its outputs where [`Build::file_as`] gave one.
    files: Vec<(PathBuf, Option<String>)>,
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
    ///
    /// Two files of one name in different folders (`calcerr/f4.cu`, `extrema/f4.cu`) would
    /// write the same outputs: the build fails naming them, and [`file_as`](Build::file_as)
    /// names one's outputs otherwise.
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.files.push((path.as_ref().to_path_buf(), None));
        self
    }

    /// A `.cu` file whose outputs are named `stem` rather than after the file: its PTX is
    /// `$OUT_DIR/<stem>.ptx`, its generated declarations `$OUT_DIR/cuda-kernel/<stem>.rs`, its
    /// committed files `<stem>.ptx` and `<stem>.rs`. For files of one name in different
    /// folders, which [`file`](Build::file) would give the same outputs.
    ///
    /// ```no_run
    /// cuda_kernel_build::Build::new()
    ///     .file("cuda/calcerr/f4.cu") // $OUT_DIR/f4.ptx
    ///     .file_as("cuda/extrema/f4.cu", "extrema_f4") // $OUT_DIR/extrema_f4.ptx
    ///     .compile();
    /// ```
    ///
    /// A `stem` that is empty or holds a path separator is an error of the build.
    pub fn file_as(&mut self, path: impl AsRef<Path>, stem: impl Into<String>) -> &mut Build {
        self.files
            .push((path.as_ref().to_path_buf(), Some(stem.into())));
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
    /// line. After [`arch_from_environment`](Build::arch_from_environment), the later call
    /// decides: the static libraries' machine code follows it too.
    pub fn ptx_arch(&mut self, arch: impl Into<String>) -> &mut Build {
        self.ptx_arch = arch.into();
        if matches!(self.target, Some(Ok(_))) {
            self.target = None;
        }
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
        // The listed files, or the crate's whole module tree.
        let tree = scan::module_tree(&manifest_dir);
        let (declaration_files, declarations) =
            self.read_declarations(&manifest_dir, Some(&tree))?;
        println!("cargo::rerun-if-env-changed={WRITE_PTX_ENV}");
        println!("cargo::rerun-if-env-changed={CHECK_PTX_ENV}");
        println!("cargo::rerun-if-env-changed=CI");
        let strict = strict(self.check_committed, &manifest_dir);
        println!("cargo::rerun-if-env-changed=NVCC");
        let includes: Vec<PathBuf> = self.includes.iter().map(|p| manifest_dir.join(p)).collect();
        std::fs::create_dir_all(out_dir.join("cuda-kernel"))
            .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
        let problems = nvcc::output_name_problems(&self.files);
        if !problems.is_empty() {
            return Err(Error { problems });
        }
        let jobs = self
            .files
            .iter()
            .map(|(file, stem)| {
                nvcc::Job::new(
                    (file, stem.as_deref()),
                    &manifest_dir,
                    &out_dir,
                    &includes,
                    &declarations,
                    &self.ptx_arch,
                    &self.flags,
                )
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let nvcc = match self.without_nvcc {
            true => None,
            false => self.nvcc.clone().or_else(nvcc::find),
        };
        let committed = self.committed.as_ref().map(|p| manifest_dir.join(p));
        let run = compile::Run {
            build: self,
            manifest_dir: &manifest_dir,
            out_dir: &out_dir,
            includes: &includes,
            declarations: &declarations,
            target: &target,
            committed: committed.as_deref(),
            strict,
            jobs: &jobs,
        };
        let compiled = run.run(nvcc.as_deref())?;
        Ok(run.finish(compiled, &tree, &declaration_files))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `ptx_arch` after `arch_from_environment` decides for the whole build, libraries too.
    #[test]
    fn the_later_architecture_call_decides() {
        let mut build = Build::new();
        let default = target::Cap::parse("80").unwrap();
        build.target = Some(target::Target::choose(Some("90"), None, default));
        build.ptx_arch = "compute_90".to_string();
        build.ptx_arch("compute_75");
        assert!(build.target.is_none());
        assert_eq!(build.compute_cap(), 75);
        // An environment that named no architecture stays an error.
        build.target = Some(Err("CUDA_COMPUTE_CAP names none".to_string()));
        build.ptx_arch("compute_80");
        assert!(matches!(build.target, Some(Err(_))));
    }
}
