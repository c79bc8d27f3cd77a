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
    // A changed source: nvcc's PTX differs from the committed one, and without nvcc the
    // committed one is stale; both say what to run.
    std::fs::write(dir.join("cuda/axpy.cu"), GOOD.replace("+ y[i]", "- y[i]")).unwrap();
    let e = build(&dir).committed_ptx("ptx").try_compile().unwrap_err();
    assert!(e.to_string().contains("CUDA_KERNEL_WRITE_PTX=1"), "{e}");
    let e = build(&dir)
        .committed_ptx("ptx")
        .without_nvcc()
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
    // `float *x` where the declaration says `*const f32`, `int n` where it says `u32`.
    let dir = project("bad", &GOOD.replace("const float *x", "float *x"));
    let e = build(&dir).try_compile().unwrap_err().to_string();
    assert!(
        e.contains("more than one instance of overloaded function \"axpy\""),
        "{e}"
    );
    assert!(
        e.contains(
            "the kernel `axpy` is defined with other parameter types than its Rust declaration at"
        ),
        "{e}"
    );
    assert!(e.contains("src/lib.rs:8:12"), "{e}");
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
    assert!(e.contains("axpy.cu has no committed PTX"), "{e}");
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
