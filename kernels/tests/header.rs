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
         then scripts/regen-ptx.sh"
    );
}
