//! `cfg(has_nvrtc)` where NVRTC's library can be loaded, so the tests that compile CUDA C at run
//! time are reported as ignored, never as passed, on machines without it; `cfg(has_cc)` where a
//! C compiler runs, for the test that builds the stub driver (`tests/stub_driver.rs`);
//! `cfg(has_nvcc)` where nvcc runs, for the template conformance test (`tests/conformance.rs`).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_nvrtc)");
    println!("cargo::rustc-check-cfg=cfg(has_cc)");
    println!("cargo::rustc-check-cfg=cfg(has_nvcc)");
    let nvcc = std::process::Command::new("nvcc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if nvcc {
        println!("cargo::rustc-cfg=has_nvcc");
    }
    println!("cargo::rerun-if-env-changed=LD_LIBRARY_PATH");
    println!("cargo::rerun-if-env-changed=PATH");
    if nvrtc_on_loader_path() {
        println!("cargo::rustc-cfg=has_nvrtc");
    }
    // The first C compiler that runs, which the stub driver's test builds the stub with.
    let cc = ["cc", "gcc", "clang"].into_iter().find(|cc| {
        std::process::Command::new(cc)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if let Some(cc) = cc {
        println!("cargo::rustc-cfg=has_cc");
        println!("cargo::rustc-env=CUDA_KERNEL_TEST_CC={cc}");
    }
}

/// Whether a `libnvrtc.so*` is in a folder the dynamic loader searches.
fn nvrtc_on_loader_path() -> bool {
    let mut dirs: Vec<std::path::PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    dirs.extend(
        [
            "/usr/local/cuda/lib64",
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib64",
        ]
        .map(Into::into),
    );
    dirs.iter().any(|dir| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| e.file_name().to_string_lossy().starts_with("libnvrtc.so"))
        })
    })
}
