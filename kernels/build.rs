//! Compiles kernels/cuda/*.cu with nvcc against the declarations in src/, or, without nvcc,
//! uses the PTX committed in kernels/ptx/ when it was made from the current sources.

fn main() {
    let mut sources: Vec<_> = std::fs::read_dir("cuda")
        .expect("kernels/cuda exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    sources.sort();
    println!("cargo::rerun-if-changed=cuda");
    cuda_kernel_build::Build::new()
        .files(&sources)
        .include("cuda")
        // Stand-ins for the NVTX and cuBLAS headers llm.c's host code includes (llmc_bf16.cu).
        .include("cuda/llmc-compat")
        .declarations("src/lib.rs")
        .declarations("src/params.rs")
        .declarations("src/checked.rs")
        .committed_ptx("ptx")
        // `takes_struct` is a fixture of the PTX reader's tests, never launched; candle's files
        // are vendored whole, and the contracts' tests declare the kernels they launch.
        .allow_undeclared("cuda/cxx_fixtures.cu")
        .allow_undeclared("cuda/candle_fill.cu")
        .allow_undeclared("cuda/candle_reduce.cu")
        // llm.c's bf16 kernels are declared from the source by tests/downstream/generated.
        .allow_undeclared("cuda/llmc_bf16.cu")
        .compile();
}
