fn main() {
    // The header of src/main.rs's declarations, force-included into cudaforge's nvcc.
    let include = cuda_kernel_build::Build::new()
        .nvcc_args()
        .unwrap_or_else(|e| panic!("{e}"));
    cudaforge::KernelBuilder::new()
        .source_files(["cuda/scale.cu"])
        .compute_cap(90)
        .args(&include)
        .watch([&include[1]])
        .build_ptx()
        .unwrap_or_else(|e| panic!("cudaforge: {e}"));
}
