//! `kernels/cuda/params.cuh` must be what the Rust structs generate. Rewrite it with
//! `CUDA_KERNEL_BLESS=1 cargo test -p kernels --test header`, then regenerate the PTX.

#[test]
fn params_header_is_generated_from_the_rust_structs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/cuda/params.cuh");
    let want = cuda_kernel::cuda_header(&kernels::params::DECLARATIONS);
    if std::env::var_os("CUDA_KERNEL_BLESS").is_some() {
        cuda_kernel::write_cuda_header(path, &kernels::params::DECLARATIONS).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "kernels/cuda/params.cuh is stale: run CUDA_KERNEL_BLESS=1 cargo test -p kernels --test header, \
         then CUDA_KERNEL_WRITE_PTX=1 cargo build -p kernels"
    );
}

/// The build step computes struct layouts from the Rust source (it cannot evaluate the crate's
/// consts); the runtime computes them in `CUDA_DECLARATION`. Both must state the same sizes,
/// alignments and offsets: the `static_assert`s of the header it wrote for structs.cu equal those
/// of the runtime's declarations, struct by struct.
#[test]
fn the_build_steps_struct_layouts_agree_with_the_runtimes() {
    let asserts = |text: &str| -> Vec<String> {
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("static_assert("))
            .map(str::to_string)
            .collect();
        lines.sort();
        lines
    };
    let built = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/cuda-kernel/structs.h"))
        .expect("the build step wrote its header for structs.cu");
    let runtime: String = kernels::params::DECLARATIONS.concat();
    assert!(!asserts(&runtime).is_empty());
    assert_eq!(asserts(&built), asserts(&runtime));
}
