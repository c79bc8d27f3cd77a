//! `cfg(has_nvrtc)` where NVRTC's library can be loaded, so the tests that compile CUDA C at run
//! time are reported as ignored, never as passed, on machines without it.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_nvrtc)");
    println!("cargo::rerun-if-env-changed=LD_LIBRARY_PATH");
    if nvrtc_on_loader_path() {
        println!("cargo::rustc-cfg=has_nvrtc");
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
