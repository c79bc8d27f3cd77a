//! The build step on a crate of its own, with nvcc: PTX and header written, a definition that
//! differs from its Rust declaration named at the declaration, committed PTX compared. Ignored
//! where nvcc does not run.

use std::path::{Path, PathBuf};

use cuda_kernel_build::Build;

const DECLARATIONS: &str = r#"
#[derive(Clone, Copy, KernelParam)]
#[repr(C)]
pub struct Scale { pub factor: f32, pub offset: f64 }

#[cuda_kernel::kernel(ptx = "$OUT_DIR/axpy.ptx")]
unsafe extern "C" {
    pub fn axpy(x: *const f32, y: *mut f32, s: Scale, n: u32);
}
"#;

const GOOD: &str = r#"
extern "C" __global__ void axpy(const float *x, float *y, Scale s, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = s.factor * x[i] + y[i] + (float)s.offset;
}
"#;

fn project(name: &str, source: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuda-kernel-build-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("cuda")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), DECLARATIONS).unwrap();
    std::fs::write(dir.join("cuda/axpy.cu"), source).unwrap();
    dir
}

fn build(dir: &Path) -> Build {
    let mut b = Build::new();
    b.file("cuda/axpy.cu")
        .declarations("src/lib.rs")
        .manifest_dir(dir)
        .out_dir(dir.join("out"));
    b
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn compiles_against_the_generated_header() {
    let dir = project("good", GOOD);
    let compiled = build(&dir).try_compile().unwrap();
    assert!(compiled.compiled_by_nvcc);
    let ptx = std::fs::read_to_string(dir.join("out/axpy.ptx")).unwrap();
    assert!(ptx.starts_with(cuda_kernel_build::HASH_MARKER), "{ptx}");
    assert!(ptx.contains(".entry axpy("), "{ptx}");
    let header = std::fs::read_to_string(dir.join("out/cuda-kernel/axpy.h")).unwrap();
    assert!(
        header.contains(
            "extern \"C\" __global__ void axpy(const float* x, float* y, Scale s, unsigned int n);"
        ),
        "{header}"
    );
    assert!(
        header.contains("static_assert(offsetof(Scale, offset) == 8"),
        "{header}"
    );
    // The committed copy: equal passes, and a machine without nvcc uses it.
    std::fs::create_dir_all(dir.join("ptx")).unwrap();
    std::fs::copy(dir.join("out/axpy.ptx"), dir.join("ptx/axpy.ptx")).unwrap();
    build(&dir).committed_ptx("ptx").try_compile().unwrap();
    std::fs::remove_file(dir.join("out/axpy.ptx")).unwrap();
    let without = build(&dir)
        .committed_ptx("ptx")
        .without_nvcc()
        .try_compile()
        .unwrap();
    assert!(!without.compiled_by_nvcc);
    assert_eq!(
        std::fs::read_to_string(dir.join("out/axpy.ptx")).unwrap(),
        ptx
    );
    // A comment added: the same PTX under another record of its inputs, said as such (not as
    // a PTX that differs).
    std::fs::write(dir.join("cuda/axpy.cu"), format!("{GOOD}// a comment\n")).unwrap();
    let e = build(&dir)
        .committed_ptx("ptx")
        .check_committed(true)
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("is the PTX nvcc makes of axpy.cu now, but records other inputs"),
        "{e}"
    );
    assert!(!e.contains("differs"), "{e}");
    // A changed source: nvcc's PTX differs from the committed one, and without nvcc the
    // committed one is stale. An ordinary build goes on (nvcc's PTX, or the committed one,
    // with a warning); where the check is asked for (CI), both are errors saying what to run.
    std::fs::write(dir.join("cuda/axpy.cu"), GOOD.replace("+ y[i]", "- y[i]")).unwrap();
    let fresh = build(&dir)
        .committed_ptx("ptx")
        .check_committed(false)
        .try_compile()
        .unwrap();
    assert!(fresh.compiled_by_nvcc);
    let built = std::fs::read_to_string(dir.join("out/axpy.ptx")).unwrap();
    assert_ne!(built, ptx, "the build uses nvcc's fresh PTX");
    assert_eq!(
        std::fs::read_to_string(dir.join("ptx/axpy.ptx")).unwrap(),
        ptx
    );
    build(&dir)
        .committed_ptx("ptx")
        .without_nvcc()
        .check_committed(false)
        .try_compile()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("out/axpy.ptx")).unwrap(),
        ptx
    );
    let e = build(&dir)
        .committed_ptx("ptx")
        .check_committed(true)
        .try_compile()
        .unwrap_err();
    assert!(e.to_string().contains("CUDA_KERNEL_WRITE_PTX=1"), "{e}");
    assert!(
        e.to_string().contains("differs from the PTX nvcc makes"),
        "{e}"
    );
    let e = build(&dir)
        .committed_ptx("ptx")
        .without_nvcc()
        .check_committed(true)
        .try_compile()
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("was not made from the current axpy.cu"),
        "{e}"
    );
    assert!(e.to_string().contains("CUDA_KERNEL_WRITE_PTX=1"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_definition_unlike_its_declaration_is_named_at_the_declaration() {
    // `float *x` where the declaration says `*const f32`, `int n` where it says `u32`: one line
    // each, at the parameter, with the type to write, and none of nvcc's (its error is about an
    // overload in the build step's header).
    let source = GOOD
        .replace("const float *x", "float *x")
        .replace("unsigned int n", "int n");
    let dir = project("bad", &source);
    let e = build(&dir).try_compile().unwrap_err().to_string();
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 2, "{e}");
    assert!(
        lines[0]
            .contains("src/lib.rs:8:17: `x: *const f32` of the kernel `axpy` is `float *x` in "),
        "{e}"
    );
    assert!(
        lines[0].ends_with("axpy.cu: declare it `x: *mut f32`"),
        "{e}"
    );
    assert!(
        lines[1].contains("src/lib.rs:8:55: `n: u32` of the kernel `axpy` is `int n` in "),
        "{e}"
    );
    assert!(lines[1].ends_with("axpy.cu: declare it `n: i32`"), "{e}");
    for internal in ["overloaded", "__attribute__", "linkage"] {
        assert!(!e.contains(internal), "{e}");
    }
    // A parameter too many in the definition: at the kernel's name, with the declaration to
    // write.
    let dir = project(
        "count",
        &GOOD.replace("unsigned int n)", "unsigned int n, int flags)"),
    );
    let e = build(&dir).try_compile().unwrap_err().to_string();
    assert!(
        e.contains(
            "src/lib.rs:8:12: the kernel `axpy` is declared with 4 parameters, and defined with \
             5 (`const float *x, float *y, Scale s, unsigned int n, int flags`) in "
        ),
        "{e}"
    );
    assert!(
        e.ends_with(
            ": declare it `fn axpy(x: *const f32, y: *mut f32, s: Scale, n: u32, flags: i32)`"
        ),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    // Rust names of one C type are the same (`usize` for `size_t`, `i64` for `long`): only the
    // parameter that differs is named.
    let dir = project(
        "aliases",
        &GOOD
            .replace("const float *x", "float *x")
            .replace("unsigned int n", "unsigned int n, size_t k, long j"),
    );
    std::fs::write(
        dir.join("src/lib.rs"),
        DECLARATIONS.replace("n: u32)", "n: u32, k: usize, j: i64)"),
    )
    .unwrap();
    let e = build(&dir).try_compile().unwrap_err().to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("`x: *const f32` of the kernel `axpy`"), "{e}");
    // C's own integer types: `long long` where the declaration says `c_long`.
    let dir = project(
        "width",
        &GOOD.replace("unsigned int n", "unsigned int n, long long m"),
    );
    std::fs::write(
        dir.join("src/lib.rs"),
        DECLARATIONS.replace("n: u32)", "n: u32, m: core::ffi::c_long)"),
    )
    .unwrap();
    let e = build(&dir).try_compile().unwrap_err().to_string();
    assert!(
        e.contains("src/lib.rs:8:63: `m: core::ffi::c_long` of the kernel `axpy` is `long long m`"),
        "{e}"
    );
    assert!(
        e.ends_with("axpy.cu: declare it `m: cuda_kernel::ffi::c_longlong`"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn cubins_and_fatbins_are_made_when_asked() {
    let dir = project("binaries", GOOD);
    let compiled = build(&dir)
        .cubin("sm_90")
        .fatbin(["sm_80", "sm_90"])
        .try_compile()
        .unwrap();
    assert_eq!(compiled.binaries.len(), 2, "{:?}", compiled.binaries);
    let cubin = std::fs::read(dir.join("out/axpy.sm_90.cubin")).unwrap();
    assert!(cubin.starts_with(b"\x7fELF"));
    let fatbin = std::fs::read(dir.join("out/axpy.fatbin")).unwrap();
    assert!(fatbin.starts_with(&0xBA55_ED50u32.to_le_bytes()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_nvcc_and_without_committed_ptx_the_error_says_what_to_do() {
    let dir = project("none", GOOD);
    let e = build(&dir)
        .without_nvcc()
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("cannot compile ") && e.contains("axpy.cu: nvcc was not found"),
        "{e}"
    );
    assert!(e.contains("Build::committed_ptx(\"ptx\")"), "{e}");
    // With a committed folder that has no PTX yet (a new crate's first build): the problem on
    // the first line, then how to get nvcc and what the first build writes.
    let e = build(&dir)
        .committed_ptx("ptx")
        .without_nvcc()
        .try_compile()
        .unwrap_err()
        .to_string();
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 3, "{e}");
    assert!(lines[0].contains("axpy.cu: nvcc was not found"), "{e}");
    assert!(
        lines[0].ends_with("ptx/axpy.ptx does not exist yet)"),
        "{e}"
    );
    assert!(lines[1].contains("a crate's first build needs nvcc"), "{e}");
    assert!(lines[1].contains("\"Getting nvcc\""), "{e}");
    assert!(lines[2].contains("that build writes"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_first_build_with_nvcc_writes_the_committed_ptx_and_later_ones_use_it() {
    let dir = project("first", GOOD);
    // Checked (CI): nothing is written into the source tree, and a committed file missing is
    // an error, the PTX as the generated declarations.
    for generate in [false, true] {
        let e = build(&dir)
            .committed_ptx("ptx")
            .generate_declarations(generate)
            .check_committed(true)
            .try_compile()
            .unwrap_err()
            .to_string();
        assert!(e.contains("ptx/axpy.ptx does not exist yet"), "{e}");
    }
    assert!(!dir.join("ptx/axpy.ptx").exists());
    assert!(!dir.join("ptx/axpy.rs").exists());
    // An ordinary first build writes it, and the generated declarations.
    build(&dir)
        .committed_ptx("ptx")
        .generate_declarations(true)
        .check_committed(false)
        .try_compile()
        .unwrap();
    let generated = std::fs::read_to_string(dir.join("ptx/axpy.rs")).unwrap();
    assert_eq!(
        generated,
        std::fs::read_to_string(dir.join("out/cuda-kernel/axpy.rs")).unwrap()
    );
    let written = std::fs::read_to_string(dir.join("ptx/axpy.ptx")).unwrap();
    assert_eq!(
        written,
        std::fs::read_to_string(dir.join("out/axpy.ptx")).unwrap()
    );
    // The generated declarations are held to the same rule: missing, an error when checked.
    std::fs::remove_file(dir.join("ptx/axpy.rs")).unwrap();
    let e = build(&dir)
        .committed_ptx("ptx")
        .generate_declarations(true)
        .check_committed(true)
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(e.contains("ptx/axpy.rs does not exist yet"), "{e}");
    std::fs::write(dir.join("ptx/axpy.rs"), &generated).unwrap();
    // The committed declarations say what made the PTX they were made from.
    assert!(
        generated
            .lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("// From nvcc's PTX for sm_75, nvcc V")),
        "{generated}"
    );
    // A machine without nvcc builds from it, and the check finds it current.
    let without = build(&dir)
        .committed_ptx("ptx")
        .without_nvcc()
        .check_committed(true)
        .try_compile()
        .unwrap();
    assert!(!without.compiled_by_nvcc);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A warning is news once: the write of a crate's first build is said once (the build's next
/// run finds the file as written); a Rust declaration edited under committed PTX is not "not
/// made from the current .cu" (the `#[kernel]` checks run against that PTX) without nvcc, and
/// with nvcc only the committed file's record is rewritten, said once; a changed `.cu` is.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_warning_is_said_once_and_only_when_it_is_news() {
    let dir = project("news", GOOD);
    let ordinary = |nvcc: bool| {
        let mut b = build(&dir);
        b.committed_ptx("ptx").check_committed(false);
        if !nvcc {
            b.without_nvcc();
        }
        b.try_compile().unwrap().warnings
    };
    let first = ordinary(true);
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(
        first[0].starts_with("wrote ") && first[0].contains("commit it"),
        "{first:?}"
    );
    assert_eq!(ordinary(true), Vec::<String>::new());
    assert_eq!(ordinary(false), Vec::<String>::new());
    let committed = std::fs::read_to_string(dir.join("ptx/axpy.ptx")).unwrap();

    // A Rust declaration edited (a parameter renamed): the `.cu` is the one recorded.
    std::fs::write(
        dir.join("src/lib.rs"),
        DECLARATIONS.replace("y: *mut f32", "out: *mut f32"),
    )
    .unwrap();
    assert_eq!(ordinary(false), Vec::<String>::new());
    let e = build(&dir)
        .committed_ptx("ptx")
        .without_nvcc()
        .check_committed(true)
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("records other Rust declarations of axpy.cu's kernels"),
        "{e}"
    );
    let updated = ordinary(true);
    assert_eq!(updated.len(), 1, "{updated:?}");
    assert!(
        updated[0].starts_with("updated the first line of ") && !updated[0].contains("differs"),
        "{updated:?}"
    );
    let rewritten = std::fs::read_to_string(dir.join("ptx/axpy.ptx")).unwrap();
    assert_ne!(rewritten.lines().next(), committed.lines().next());
    assert_eq!(
        rewritten.split_once('\n').unwrap().1,
        committed.split_once('\n').unwrap().1
    );
    assert_eq!(ordinary(true), Vec::<String>::new());
    build(&dir)
        .committed_ptx("ptx")
        .without_nvcc()
        .check_committed(true)
        .try_compile()
        .unwrap();

    // The `.cu` changed on a machine without nvcc: news, once per build, in one line.
    std::fs::write(dir.join("cuda/axpy.cu"), GOOD.replace("+ y[i]", "- y[i]")).unwrap();
    let stale = ordinary(false);
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert!(
        stale[0].contains("was not made from the current axpy.cu, its headers and flags,"),
        "{stale:?}"
    );
    assert!(
        stale[0].len() < 320,
        "{} characters: {stale:?}",
        stale[0].len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_cu_defining_a_derived_struct_is_told_what_to_do() {
    let own = format!("struct Scale {{ float factor; double offset; }};\n{GOOD}");
    let dir = project("own_struct", &own);
    let e = build(&dir).try_compile().unwrap_err().to_string();
    assert!(
        e.contains("the struct `Scale` is defined there and in the header"),
        "{e}"
    );
    // Without the header's declaration, the .cu's own serves.
    build(&dir)
        .struct_declarations(false)
        .try_compile()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn fixed_width_integers_are_the_fixed_width_c_types() {
    // A dtype family as candle writes it: members over `int64_t` and `uint64_t` declared with
    // `i64`/`u64` once, generically; and `long long` with `ffi::c_longlong`.
    let dir = project("int64", "");
    std::fs::write(
        dir.join("src/lib.rs"),
        r#"
#[cuda_kernel::kernel(ptx = "$OUT_DIR/axpy.ptx")]
unsafe extern "C" {
    #[kernel(name = "affine_{T}")]
    pub fn affine<T>(numel: usize, x: *const T, y: *mut T, mul: T, add: T);

    pub fn total(x: *const cuda_kernel::ffi::c_longlong, n: u64, out: *mut cuda_kernel::ffi::c_longlong);
}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("cuda/axpy.cu"),
        r#"
#include <cstdint>
#define AFFINE(T, NAME) \
extern "C" __global__ void NAME(const size_t numel, const T *x, T *y, const T mul, const T add) { \
    size_t i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < numel) y[i] = x[i] * mul + add; \
}
AFFINE(float, affine_f32)
AFFINE(int64_t, affine_i64)
AFFINE(uint64_t, affine_u64)
AFFINE(uint32_t, affine_u32)
extern "C" __global__ void total(const long long *x, uint64_t n, long long *out) {
    for (uint64_t i = 0; i < n; i++) *out += x[i];
}
"#,
    )
    .unwrap();
    build(&dir).try_compile().unwrap();
    let header = std::fs::read_to_string(dir.join("out/cuda-kernel/axpy.h")).unwrap();
    assert!(
        header.contains(
            "void affine_i64(size_t numel, const int64_t* x, int64_t* y, int64_t mul, int64_t add);"
        ),
        "{header}"
    );
    assert!(
        header.contains("void total(const long long* x, uint64_t n, long long* out);"),
        "{header}"
    );
    // `long long` for an `int64_t` member is another C type to nvcc: named at the declaration.
    let source = std::fs::read_to_string(dir.join("cuda/axpy.cu")).unwrap();
    std::fs::write(
        dir.join("cuda/axpy.cu"),
        source.replace(
            "AFFINE(int64_t, affine_i64)",
            "AFFINE(long long, affine_i64)",
        ),
    )
    .unwrap();
    let e = build(&dir).try_compile().unwrap_err().to_string();
    assert!(e.contains("affine_i64"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn no_declaration_escapes_the_check_without_a_word() {
    // The block lives in `mod gpu;` and the .cu takes `int n` for Rust's `u32`.
    let dir = project("tree", &GOOD.replace("unsigned int n", "int n"));
    let (structs, block) = DECLARATIONS.split_at(DECLARATIONS.find("#[cuda_kernel").unwrap());
    std::fs::write(dir.join("src/lib.rs"), format!("mod gpu;\n{structs}")).unwrap();
    std::fs::create_dir_all(dir.join("src/gpu")).unwrap();
    std::fs::write(
        dir.join("src/gpu.rs"),
        format!("use super::Scale;\n{block}\nmod more;\n"),
    )
    .unwrap();
    std::fs::write(dir.join("src/gpu/more.rs"), "// nothing\n").unwrap();
    assert_eq!(
        cuda_kernel_build::module_tree(&dir),
        [
            dir.join("src/lib.rs"),
            dir.join("src/gpu.rs"),
            dir.join("src/gpu/more.rs")
        ]
    );
    // Without .declarations(), the whole crate is read: nvcc catches the `int`.
    let mut b = Build::new();
    b.file("cuda/axpy.cu")
        .manifest_dir(&dir)
        .out_dir(dir.join("out"));
    let e = b.try_compile().unwrap_err().to_string();
    assert!(
        e.contains("src/gpu.rs:4:55: `n: u32` of the kernel `axpy` is `int n`"),
        "{e}"
    );
    // Listing only lib.rs: the block in gpu.rs is named in a warning.
    std::fs::write(dir.join("cuda/axpy.cu"), GOOD).unwrap();
    let mut b = Build::new();
    b.file("cuda/axpy.cu")
        .declarations("src/lib.rs")
        .manifest_dir(&dir)
        .out_dir(dir.join("out"));
    let compiled = b.try_compile().unwrap();
    assert!(
        compiled
            .warnings
            .iter()
            .any(|w| w.contains("src/gpu.rs has a #[kernel] block for axpy.ptx")),
        "{:?}",
        compiled.warnings
    );
    // A kernel of the .cu no block declares is a warning, unless allowed.
    std::fs::write(
        dir.join("cuda/axpy.cu"),
        format!("{GOOD}\nextern \"C\" __global__ void stray(float *x) {{ x[0] = 1; }}\n"),
    )
    .unwrap();
    let mut b = Build::new();
    b.file("cuda/axpy.cu")
        .manifest_dir(&dir)
        .out_dir(dir.join("out"));
    let compiled = b.try_compile().unwrap();
    assert_eq!(compiled.warnings.len(), 1, "{:?}", compiled.warnings);
    assert!(
        compiled.warnings[0].contains("defines kernels no #[kernel] block declares: stray"),
        "{:?}",
        compiled.warnings
    );
    let compiled = b.allow_undeclared("axpy.cu").try_compile().unwrap();
    assert!(compiled.warnings.is_empty(), "{:?}", compiled.warnings);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_build_tool_gets_the_header_to_force_include() {
    let dir = project("forge", GOOD);
    let args = Build::new()
        .manifest_dir(&dir)
        .out_dir(dir.join("out"))
        .nvcc_args()
        .unwrap();
    assert_eq!(args[0], "-include");
    let header = std::fs::read_to_string(&args[1]).unwrap();
    assert!(
        header.contains(
            "extern \"C\" __global__ void axpy(const float* x, float* y, Scale s, unsigned int n);"
        ),
        "{header}"
    );
    assert!(header.contains("struct Scale"), "{header}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The build step reruns on every edit of a file it scans for declarations; a `.cu` whose
/// inputs did not change keeps its PTX (and its preprocessed text for generated declarations)
/// without running nvcc again. Counted through a wrapper that logs each nvcc run.
#[test]
#[cfg(unix)]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_rebuild_with_the_same_inputs_runs_no_nvcc() {
    use std::os::unix::fs::PermissionsExt;
    let dir = project("cached", GOOD);
    let real = match std::env::var_os("NVCC") {
        Some(nvcc) => PathBuf::from(nvcc),
        None => {
            let found = std::process::Command::new("sh")
                .args(["-c", "command -v nvcc"])
                .output()
                .unwrap();
            PathBuf::from(String::from_utf8(found.stdout).unwrap().trim())
        }
    };
    let log = dir.join("nvcc-runs.log");
    let wrapper = dir.join("nvcc-wrapper.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runs = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let mut b = build(&dir);
    b.nvcc(&wrapper).generate_declarations(true);
    b.try_compile().unwrap();
    let first = runs();
    assert!(
        first >= 2,
        "the PTX and the preprocessed text: {first} runs"
    );
    let ptx = std::fs::read_to_string(dir.join("out/axpy.ptx")).unwrap();

    // lib.rs edited without changing a declaration: nothing for nvcc to do.
    let edited = format!("{DECLARATIONS}\n/// A comment.\npub fn helper() {{}}\n");
    std::fs::write(dir.join("src/lib.rs"), edited).unwrap();
    b.try_compile().unwrap();
    assert_eq!(
        runs(),
        first,
        "a rebuild with the same inputs ran nvcc: {}",
        std::fs::read_to_string(&log).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("out/axpy.ptx")).unwrap(),
        ptx
    );

    // The .cu edited: compiled and preprocessed again.
    std::fs::write(dir.join("cuda/axpy.cu"), format!("// edited\n{GOOD}")).unwrap();
    b.try_compile().unwrap();
    assert!(runs() >= first + 2, "an edited .cu was not compiled again");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn committed_ptx_with_run_dependent_internal_names_stays_current() {
    // kernels/cuda/device_fns.cu: templates over `static` device functions in a file without
    // external symbols, whose internal names end in a counter of each nvcc run. The PTX one
    // run made, committed, is current for the next run's, where the check is asked for (CI).
    let dir =
        std::env::temp_dir().join(format!("cuda-kernel-build-{}-internal", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src", "cuda", "out", "ptx"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels");
    std::fs::copy(
        kernels.join("cuda/device_fns.cu"),
        dir.join("cuda/device_fns.cu"),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    let build = |dir: &Path| {
        let mut b = Build::new();
        b.file("cuda/device_fns.cu")
            .declarations("src/lib.rs")
            .manifest_dir(dir)
            .out_dir(dir.join("out"));
        b
    };
    build(&dir).try_compile().unwrap();
    let first = std::fs::read_to_string(dir.join("out/device_fns.ptx")).unwrap();
    std::fs::write(dir.join("ptx/device_fns.ptx"), &first).unwrap();
    // A clean build: nvcc runs again.
    std::fs::remove_dir_all(dir.join("out")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let built = build(&dir)
        .committed_ptx("ptx")
        .check_committed(true)
        .try_compile()
        .unwrap();
    assert!(built.compiled_by_nvcc);
    let second = std::fs::read_to_string(dir.join("out/device_fns.ptx")).unwrap();
    assert_ne!(first, second, "nvcc gave both runs the same internal names");
    assert_eq!(
        cuda_kernel_syntax::itanium::without_internal_parts(&first),
        cuda_kernel_syntax::itanium::without_internal_parts(&second)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.cu` with what makes nvcc's names move: a header reached by a relative path outside the
/// source's folder and every include path (as llm.c's users include `../vendor/llm.c/...`), a
/// variadic template over `static` device functions, an anonymous namespace, a `volatile`
/// pointer, a `static __constant__` table (renamed per run under `-rdc=true`).
const MOVING_NAMES: &str = r#"
#include "../vendor/lib/gelu.cuh"
static __device__ float op_repeat(float a, float b) { return b; }
static __device__ float op_add(float a, float b) { return a + b; }
template <float (*op)(float, float), typename T0, typename... Ptrs>
__global__ void k_bin(const T0 *a, T0 *dst, int n, Ptrs... ptrs) {
    int i = threadIdx.x;
    if (i < n) dst[i] = op(a[i], dst[i]);
}
template __global__ void k_bin<op_repeat, float>(const float *, float *, int);
template __global__ void k_bin<op_add, float, float *>(const float *, float *, int, float *);
namespace {
__global__ void anon_fill(float *p, int n) { if (threadIdx.x < n) p[threadIdx.x] = 1.0f; }
template <typename T> __global__ void anon_scale(T *p, T s) { p[threadIdx.x] *= s; }
template __global__ void anon_scale<float>(float *, float);
}
__global__ void raise_flag(int volatile *flag) { *flag = 1; }
static __constant__ float NF4_LUT[4] = {1, 2, 3, 4};
__global__ void lut(float *o) { o[threadIdx.x] = NF4_LUT[threadIdx.x & 3]; }
"#;

const VENDORED_HEADER: &str = r#"
#pragma once
__global__ void gelu_forward_kernel(float *out, const float *inp, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) out[i] = inp[i] * 0.5f;
}
"#;

#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn generated_names_hold_still_from_one_nvcc_run_to_the_next() {
    for rdc in [false, true] {
        let dir = std::env::temp_dir().join(format!(
            "cuda-kernel-build-{}-moving-{rdc}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["src", "cuda", "out", "ptx", "vendor/lib"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        std::fs::write(dir.join("cuda/moving.cu"), MOVING_NAMES).unwrap();
        std::fs::write(dir.join("vendor/lib/gelu.cuh"), VENDORED_HEADER).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "").unwrap();
        let build = |dir: &Path, check: bool| {
            let mut b = Build::new();
            b.file("cuda/moving.cu")
                .declarations("src/lib.rs")
                .manifest_dir(dir)
                .out_dir(dir.join("out"))
                .committed_ptx("ptx")
                .generate_declarations(true)
                .check_committed(check);
            if rdc {
                b.flag("-rdc=true");
            }
            b
        };
        // The first build writes the committed PTX and declarations.
        build(&dir, false).try_compile().unwrap();
        let rust = std::fs::read_to_string(dir.join("ptx/moving.rs")).unwrap();
        let ptx = std::fs::read_to_string(dir.join("ptx/moving.ptx")).unwrap();
        for internal in ["_INTERNAL_", "_GLOBAL__N_", "__nv_static_", "_Z"] {
            assert!(
                !rust.contains(internal),
                "rdc {rdc}: `{internal}` in\n{rust}"
            );
        }
        // Every entry declared, the vendored header's kernel among them, none left to a
        // warning or taken for the toolkit's.
        assert!(
            rust.contains("7 entries in the PTX: 7 declared here"),
            "rdc {rdc}:\n{rust}"
        );
        for declared in [
            "pub fn gelu_forward_kernel(",
            "#[kernel(name = \"k_bin<op_repeat, float>\")]",
            "pub fn k_bin_op_repeat_float(",
            "#[kernel(name = \"k_bin<op_add, float, float*>\")]",
            "#[kernel(name = \"(anonymous namespace)::anon_fill\")]",
            "#[kernel(name = \"(anonymous namespace)::anon_scale<float>\")]",
            "#[kernel(name = \"raise_flag\")]",
            "pub fn raise_flag(flag: *mut i32);",
        ] {
            assert!(
                rust.contains(declared),
                "rdc {rdc}: no {declared} in\n{rust}"
            );
        }
        if rdc {
            assert!(
                ptx.contains("__nv_static_"),
                "rdc without internal prefixes"
            );
        }
        // The block passes #[kernel]'s checks against the PTX: each C++ name finds its entry.
        check_every_entry_bound(&dir.join("ptx/moving.ptx"), &rust);
        // A clean build runs nvcc again: the committed files are current, checked strictly.
        std::fs::remove_dir_all(dir.join("out")).unwrap();
        std::fs::create_dir_all(dir.join("out")).unwrap();
        let built = build(&dir, true).try_compile().unwrap();
        assert!(built.compiled_by_nvcc);
        assert_eq!(
            std::fs::read_to_string(dir.join("out/cuda-kernel/moving.rs")).unwrap(),
            rust,
            "rdc {rdc}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Generated declarations pass `#[kernel]`'s checks against the PTX, and bind every entry.
fn check_every_entry_bound(ptx: &Path, rust: &str) {
    let mut cx = cuda_kernel_syntax::report::Errors::default();
    let lit = syn::LitStr::new(ptx.to_str().unwrap(), proc_macro2::Span::call_site());
    let file = cuda_kernel_syntax::ptx_check::read_ptx(&mut cx, &lit, None).unwrap();
    let parsed: syn::File = syn::parse_str(rust).unwrap();
    let mut bound: Vec<String> = Vec::new();
    for item in parsed.items {
        if let syn::Item::ForeignMod(mut block) = item {
            block.attrs.clear();
            let mut block =
                cuda_kernel_syntax::parse::parse_block(&mut cx, block, &Default::default());
            cuda_kernel_syntax::ptx_check::check_against_ptx(&mut cx, &mut block, &file);
            bound.extend(block.kernels.iter().map(|k| k.symbol.clone()));
        }
    }
    assert!(cx.is_empty(), "{:?}\n{rust}", cx.messages());
    for entry in &file.entries {
        assert!(
            bound.contains(&entry.name),
            "{} unbound: {bound:?}",
            entry.name
        );
    }
}

/// Kernels whose parameters only the compiler types (tests/downstream/generated/cuda/
/// records.cu): class-template instances by value and through pointers, a typedef of one, a
/// struct with a base class and a method, bit-fields, a struct of another header with an enum
/// field, a kernel of an anonymous namespace taking a class template. Each is declared from
/// nvcc's debug information, its records laid out as nvcc laid them out, and the block passes
/// the PTX check; a rebuild reuses the PTX with debug information.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn records_only_the_compiler_types_are_declared_from_its_facts() {
    let dir =
        std::env::temp_dir().join(format!("cuda-kernel-build-{}-records", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src", "cuda/include", "out", "ptx"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let downstream =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/downstream/generated/cuda");
    std::fs::copy(downstream.join("records.cu"), dir.join("cuda/records.cu")).unwrap();
    std::fs::copy(
        downstream.join("include/records_types.h"),
        dir.join("cuda/include/records_types.h"),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    let build = || {
        let mut b = Build::new();
        b.file("cuda/records.cu")
            .declarations("src/lib.rs")
            .manifest_dir(&dir)
            .out_dir(dir.join("out"))
            .committed_ptx("ptx")
            .generate_declarations(true)
            .check_committed(false);
        b
    };
    build().try_compile().unwrap();
    let rust = std::fs::read_to_string(dir.join("ptx/records.rs")).unwrap();
    assert!(
        rust.contains("7 entries in the PTX: 7 declared here"),
        "{rust}"
    );
    for declared in [
        // A class template by value and through a pointer; a typedef of one.
        "pub struct ViewF32 {\n    pub data: *mut f32,\n    pub len: i32,\n}",
        "pub fn scale_view_float(v: ViewF32, factors: *const ViewF32, offset: f32);",
        "pub fn scale_view_double(v: ViewF64, factors: *const ViewF64, offset: f64);",
        "pub struct Vec3 {\n    pub c: [f32; 3],\n}",
        "pub fn add_vec3(a: *const Vec3, b: *const Vec3, out: *mut Vec3, n: i32);",
        // A base class's members where the compiler put them; bit-fields in the integer
        // that holds them.
        "pub struct Particle {\n    pub tag: i32,\n    pub pos: Vec3,\n    pub mass: f64,\n}",
        "    /// The bit-fields `index: 31`, `leaf: 1`.\n    pub index_bits: u32,\n",
        // An enum of another header, its underlying integer.
        "pub struct Options {\n    pub mode: u8,\n    pub n: i32,\n    pub factor: f32,\n}",
        "#[kernel(name = \"(anonymous namespace)::fill_view\")]",
        "pub fn fill_view(v: ViewI32, value: i32);",
    ] {
        assert!(rust.contains(declared), "no {declared} in\n{rust}");
    }
    check_every_entry_bound(&dir.join("ptx/records.ptx"), &rust);
    // The PTX with debug information is kept for the next build with the same inputs.
    let object = dir.join("out/cuda-kernel/records.facts.ptx");
    let made = std::fs::metadata(&object).unwrap().modified().unwrap();
    std::fs::remove_file(dir.join("out/cuda-kernel/records.rs")).unwrap();
    build().try_compile().unwrap();
    assert_eq!(
        std::fs::metadata(&object).unwrap().modified().unwrap(),
        made
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("out/cuda-kernel/records.rs")).unwrap(),
        rust
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A build script that stops asking for generated declarations leaves none behind: an earlier
/// build's `$OUT_DIR/cuda-kernel/<stem>.rs` would compile, stale, wherever it is included;
/// the file now holds one error naming the builder call that makes it.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn without_generation_no_generated_file_stays_behind() {
    let dir = project("not-generated", GOOD);
    let generated = dir.join("out/cuda-kernel/axpy.rs");
    build(&dir)
        .generate_declarations(true)
        .try_compile()
        .unwrap();
    let before = std::fs::read_to_string(&generated).unwrap();
    assert!(!before.contains("compile_error"), "{before}");
    build(&dir).try_compile().unwrap();
    let after = std::fs::read_to_string(&generated).unwrap();
    let file: syn::File = syn::parse_str(&after).unwrap();
    let one_error = matches!(
        file.items.as_slice(),
        [syn::Item::Macro(m)] if m.mac.path.segments.last().is_some_and(|s| s.ident == "compile_error")
    );
    assert!(
        one_error && after.contains("`.generate_declarations(true)`") && after.contains("axpy.cu"),
        "{after}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.cu` whose kernel takes a struct of the crate's own declarations (the build step's header
/// defines it for the file) and that no hand-written block declares: generated declarations
/// say to bind it, and the advice, followed as written, declares the kernel with the crate's
/// type.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_kernel_taking_a_crate_struct_is_declared_once_the_struct_is_bound() {
    let dir = project(
        "crate-struct",
        &format!(
            "{GOOD}\nextern \"C\" __global__ void shift(float *y, Scale s) {{ y[0] += s.factor; }}\n"
        ),
    );
    let warned = build(&dir)
        .generate_declarations(true)
        .try_compile()
        .unwrap();
    let advice = warned
        .warnings
        .iter()
        .find(|w| w.contains("`shift` is not generated"))
        .unwrap_or_else(|| panic!("{:?}", warned.warnings));
    assert!(
        advice.contains("a #[derive(KernelParam)] struct of the crate's")
            && advice.contains("Build::bind_struct(\"Scale\", \"crate::...::Scale\")"),
        "{advice}"
    );
    let bound = build(&dir)
        .generate_declarations(true)
        .bind_struct("Scale", "crate::Scale")
        .try_compile()
        .unwrap();
    assert!(
        !bound.warnings.iter().any(|w| w.contains("`shift`")),
        "{:?}",
        bound.warnings
    );
    let rust = std::fs::read_to_string(dir.join("out/cuda-kernel/axpy.rs")).unwrap();
    assert!(
        rust.contains("pub fn shift(y: *mut f32, s: crate::Scale);"),
        "{rust}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Committed files made for another architecture are not this build's to compare: said once,
/// left as they are, an error when checked (CI); for their own architecture they compare.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn committed_files_of_another_architecture_are_not_compared_but_said_once() {
    let dir = project("other-arch", GOOD);
    build(&dir)
        .committed_ptx("ptx")
        .generate_declarations(true)
        .check_committed(false)
        .try_compile()
        .unwrap();
    let committed = std::fs::read_to_string(dir.join("ptx/axpy.ptx")).unwrap();
    let declarations = std::fs::read_to_string(dir.join("ptx/axpy.rs")).unwrap();
    let other = build(&dir)
        .committed_ptx("ptx")
        .generate_declarations(true)
        .ptx_arch("compute_80")
        .check_committed(false)
        .try_compile()
        .unwrap();
    let said: Vec<&String> = other
        .warnings
        .iter()
        .filter(|w| w.contains("were made for sm_75, nvcc V"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", other.warnings);
    assert!(said[0].contains("this build makes sm_80"), "{}", said[0]);
    assert!(
        !other.warnings.iter().any(|w| w.contains("differs")),
        "{:?}",
        other.warnings
    );
    assert!(
        std::fs::read_to_string(dir.join("out/axpy.ptx"))
            .unwrap()
            .contains(".target sm_80")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ptx/axpy.ptx")).unwrap(),
        committed
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("ptx/axpy.rs")).unwrap(),
        declarations
    );
    let e = build(&dir)
        .committed_ptx("ptx")
        .ptx_arch("compute_80")
        .check_committed(true)
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(e.contains("were made for sm_75"), "{e}");
    // Their own architecture: compared, and current.
    build(&dir)
        .committed_ptx("ptx")
        .generate_declarations(true)
        .check_committed(true)
        .try_compile()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Host code launching its own kernel, as candle's MoE library: archived with machine code for
/// the architecture, its objects kept until an input changes.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_static_library_is_archived_and_rebuilt_only_where_inputs_change() {
    let dir = project("library", GOOD);
    std::fs::write(
        dir.join("cuda/host.cu"),
        "#include \"scale.cuh\"\n__global__ void twice(float *x) { x[threadIdx.x] *= SCALE; }\n\
         extern \"C\" void launch_twice(float *x, int n) { twice<<<1, n>>>(x); }\n",
    )
    .unwrap();
    std::fs::write(dir.join("cuda/scale.cuh"), "#define SCALE 2.0f\n").unwrap();
    let library = |flag: &str| {
        let mut b = build(&dir);
        b.ptx_arch("compute_80")
            .static_library("host", ["cuda/host.cu"], [flag.to_string()])
            .try_compile()
            .unwrap()
    };
    let compiled = library("-DUNUSED=1");
    assert_eq!(compiled.libraries, [dir.join("out/libhost.a")]);
    let objects = || -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir.join("out/cuda-kernel/objects/host"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        found.sort();
        found
    };
    let first = objects();
    assert_eq!(first.len(), 1, "{first:?}");
    let modified = std::fs::metadata(&first[0]).unwrap().modified().unwrap();
    library("-DUNUSED=1");
    assert_eq!(objects(), first);
    assert_eq!(
        std::fs::metadata(&first[0]).unwrap().modified().unwrap(),
        modified
    );
    // A header's edit makes a new object.
    std::fs::write(dir.join("cuda/scale.cuh"), "#define SCALE 3.0f\n").unwrap();
    library("-DUNUSED=1");
    assert_eq!(objects().len(), 2);
    let archive = std::fs::read(dir.join("out/libhost.a")).unwrap();
    assert!(archive.starts_with(b"!<arch>\n"));
    assert!(archive.windows(12).any(|w| w == b"launch_twice"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A crate of two `f4.cu`, in folders of their own, each defining a kernel of its own; no
/// hand-written declarations.
fn two_files_of_one_name(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuda-kernel-build-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (folder, kernel) in [("calcerr", "errors"), ("extrema", "extrema")] {
        std::fs::create_dir_all(dir.join("cuda").join(folder)).unwrap();
        std::fs::write(
            dir.join("cuda").join(folder).join("f4.cu"),
            format!("extern \"C\" __global__ void {kernel}(float *x, unsigned int n) {{ if (n) x[0] = 1.0f; }}\n"),
        )
        .unwrap();
    }
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    dir
}

/// Files of one name in different folders would write one PTX and one declarations file (the
/// second overwriting the first): the build refuses them, naming both and the fix, and takes
/// them once one's outputs are named otherwise.
#[test]
fn files_of_one_name_are_refused_until_one_is_named_otherwise() {
    let dir = two_files_of_one_name("one-name");
    let base = || {
        let mut b = Build::new();
        b.declarations("src/lib.rs")
            .manifest_dir(&dir)
            .out_dir(dir.join("out"))
            .committed_ptx("ptx")
            .without_nvcc();
        b
    };
    let e = base()
        .file("cuda/calcerr/f4.cu")
        .file("cuda/extrema/f4.cu")
        .try_compile()
        .unwrap_err();
    assert_eq!(e.problems.len(), 1, "{e}");
    assert!(
        e.problems[0].starts_with(
            "cuda/calcerr/f4.cu and cuda/extrema/f4.cu would both write $OUT_DIR/f4.ptx and \
             $OUT_DIR/cuda-kernel/f4.rs: name one's outputs otherwise, \
             `.file_as(\"cuda/extrema/f4.cu\", \"extrema_f4\")` in place of \
             `.file(\"cuda/extrema/f4.cu\")`"
        ),
        "{e}"
    );
    // The fix, followed: each file's own outputs (here, without nvcc, the committed PTX each
    // would be compared with).
    let e = base()
        .file("cuda/calcerr/f4.cu")
        .file_as("cuda/extrema/f4.cu", "extrema_f4")
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ptx/f4.ptx does not exist yet")
            && e.contains("ptx/extrema_f4.ptx does not exist yet"),
        "{e}"
    );
    // A name given that collides is the given one's to change; a name with a folder, or a file
    // given twice, is refused.
    let e = base()
        .file_as("cuda/calcerr/f4.cu", "f4")
        .file("cuda/extrema/f4.cu")
        .try_compile()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`.file_as(\"cuda/extrema/f4.cu\", \"extrema_f4\")`"),
        "{e}"
    );
    let e = base()
        .file_as("cuda/extrema/f4.cu", "x/f4")
        .file("cuda/calcerr/f4.cu")
        .file("cuda/calcerr/f4.cu")
        .try_compile()
        .unwrap_err();
    assert_eq!(e.problems.len(), 2, "{e}");
    assert!(
        e.problems[0].starts_with("Build::file_as(\"cuda/extrema/f4.cu\", \"x/f4\"): the name")
            && e.problems[1] == "cuda/calcerr/f4.cu is given to the build twice: once is enough",
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// With nvcc: the two files' PTX and generated declarations are each their own.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn files_of_one_name_named_otherwise_have_outputs_of_their_own() {
    let dir = two_files_of_one_name("one-name-nvcc");
    Build::new()
        .file("cuda/calcerr/f4.cu")
        .file_as("cuda/extrema/f4.cu", "extrema_f4")
        .declarations("src/lib.rs")
        .manifest_dir(&dir)
        .out_dir(dir.join("out"))
        .generate_declarations(true)
        .try_compile()
        .unwrap();
    for (stem, kernel, other) in [
        ("f4", "errors", "extrema"),
        ("extrema_f4", "extrema", "errors"),
    ] {
        let ptx = std::fs::read_to_string(dir.join(format!("out/{stem}.ptx"))).unwrap();
        assert!(
            ptx.contains(&format!(".entry {kernel}("))
                && !ptx.contains(&format!(".entry {other}(")),
            "{ptx}"
        );
        let rust = std::fs::read_to_string(dir.join(format!("out/cuda-kernel/{stem}.rs"))).unwrap();
        assert!(
            rust.contains(&format!("ptx = \"$OUT_DIR/{stem}.ptx\""))
                && rust.contains(&format!("pub fn {kernel}("))
                && !rust.contains(&format!("pub fn {other}(")),
            "{rust}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Kernel templates of a header that several files include: one a later file instantiates is
/// not warned of by the files before it, and one that no file instantiates is said once, with
/// the files, not once per file.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_header_template_without_instances_is_said_once_for_the_build() {
    let dir = std::env::temp_dir().join(format!(
        "cuda-kernel-build-{}-header-templates",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for folder in ["src", "cuda", "out"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    std::fs::write(
        dir.join("cuda/common.cuh"),
        "template <typename T> __global__ void fill(T *y, T v) { y[threadIdx.x] = v; }\n\
         template <typename T> __global__ void never(T *y) { y[0] = T(0); }\n",
    )
    .unwrap();
    let files = [
        ("first.cu", ""),
        (
            "second.cu",
            "template __global__ void fill<float>(float *, float);\n",
        ),
        ("third.cu", ""),
    ];
    for (name, body) in files {
        std::fs::write(
            dir.join("cuda").join(name),
            format!(
                "#include \"common.cuh\"\n{body}extern \"C\" __global__ void own_{}(float *y) {{ y[0] = 1.0f; }}\n",
                name.trim_end_matches(".cu")
            ),
        )
        .unwrap();
    }
    let mut b = Build::new();
    for (name, _) in files {
        b.file(format!("cuda/{name}"));
    }
    let built = b
        .manifest_dir(&dir)
        .out_dir(dir.join("out"))
        .generate_declarations(true)
        .try_compile()
        .unwrap();
    let about = |name: &str| -> Vec<&String> {
        built
            .warnings
            .iter()
            .filter(|w| w.contains(&format!("`{name}`")))
            .collect()
    };
    assert!(about("fill").is_empty(), "{:?}", built.warnings);
    assert_eq!(
        about("never"),
        [&"first.cu, second.cu and third.cu: `never` is not generated: a template none of their \
           PTX has an instance of (nvcc compiles the instances a .cu names: add an explicit \
           instantiation)"
            .to_string()],
        "{:?}",
        built.warnings
    );
    let second = std::fs::read_to_string(dir.join("out/cuda-kernel/second.rs")).unwrap();
    assert!(second.contains("fn fill"), "{second}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.cu` that defines a name CUDA's half-precision headers define too (Blender Cycles' `typedef
/// unsigned short half;` and its own `__float2half`, in a file that includes no `cuda_fp16.h`)
/// builds: the force-included header includes those headers only where the prototypes use their
/// types. Its kernel taking that `half` is generated as `u16`.
#[test]
#[cfg_attr(not(has_nvcc), ignore = "needs nvcc")]
fn a_cu_defining_its_own_half_builds() {
    let dir = project(
        "own-half",
        &format!(
            "{GOOD}\ntypedef unsigned short half;\n\
             __device__ half __float2half(const float f) {{ return (half)f; }}\n\
             extern \"C\" __global__ void to_half(const float *x, half *y) {{ y[0] = __float2half(x[0]); }}\n"
        ),
    );
    let built = build(&dir).generate_declarations(true).try_compile();
    assert!(built.is_ok(), "{:?}", built.err());
    let header = std::fs::read_to_string(dir.join("out/cuda-kernel/axpy.h")).unwrap();
    assert!(
        !header.contains("cuda_fp16.h") && !header.contains("cuda_bf16.h"),
        "{header}"
    );
    let rust = std::fs::read_to_string(dir.join("out/cuda-kernel/axpy.rs")).unwrap();
    assert!(
        rust.contains("pub fn to_half(x: *const f32, y: *mut u16);"),
        "{rust}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
