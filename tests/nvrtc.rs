//! Run-time compilation with NVRTC (no GPU needed): the PTX it makes matches the declaration,
//! and a compile error carries NVRTC's log. Ignored where NVRTC's library is not found.

use cuda_kernel::{Error, kernel, ptx};

#[kernel]
unsafe extern "C" {
    fn saxpy(x: *const f32, y: *mut f32, a: f32, n: u32);
}

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(const float *x, float *y, float a, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

#[test]
#[cfg_attr(not(has_nvrtc), ignore = "needs NVRTC")]
fn nvrtc_ptx_has_the_declared_layout() {
    let text = cuda_kernel::nvrtc::compile("saxpy.cu", SAXPY, &["--gpu-architecture=compute_75"])
        .expect("NVRTC compiles saxpy");
    let entries = ptx::entries(&text).expect("NVRTC's PTX reads");
    let entry = ptx::find(&entries, Saxpy::NAME).expect("saxpy is an entry");
    let layout: Vec<_> = entry.params.iter().map(|p| (p.size, p.align)).collect();
    let declared: Vec<_> = Saxpy::LAYOUT
        .params
        .iter()
        .map(|p| (p.size, p.align))
        .collect();
    assert_eq!(layout, declared);
}

#[test]
#[cfg_attr(not(has_nvrtc), ignore = "needs NVRTC")]
fn nvrtc_errors_carry_the_log_and_options() {
    let broken = "extern \"C\" __global__ void k(float *x) {\n    x[0] = undefined_name;\n}\n";
    let e = cuda_kernel::nvrtc::compile("broken.cu", broken, &["-DUNUSED=1"]).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Error::Compile { .. }), "{text}");
    assert!(text.contains("broken.cu(2)"), "{text}");
    assert!(text.contains("undefined_name"), "{text}");
    assert!(text.contains("-DUNUSED=1"), "{text}");
}

#[test]
fn nul_bytes_are_refused_before_nvrtc() {
    let e = cuda_kernel::nvrtc::compile("a.cu", "\0", &[]).unwrap_err();
    assert!(matches!(e, Error::InvalidPtx(_)), "{e}");
}
