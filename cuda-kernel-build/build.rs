//! `cfg(has_nvcc)` where nvcc runs, so the tests that compile CUDA C are reported as ignored,
//! never as passed, on machines without it.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_nvcc)");
    println!("cargo::rerun-if-env-changed=NVCC");
    println!("cargo::rerun-if-env-changed=PATH");
    let nvcc = std::env::var_os("NVCC").unwrap_or_else(|| "nvcc".into());
    let runs = std::process::Command::new(nvcc)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        println!("cargo::rustc-cfg=has_nvcc");
    }
}
