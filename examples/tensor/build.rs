//! Compiles cuda/*.cu with nvcc against the #[kernel] blocks of src/kernels.rs (or, without nvcc,
//! takes the PTX committed in ptx/ while it matches the sources), as a crate adopting
//! cuda-kernel does.

fn main() {
    println!("cargo::rerun-if-changed=cuda");
    cuda_kernel_build::Build::new()
        .files([
            "cuda/unary.cu",
            "cuda/binary.cu",
            "cuda/cast.cu",
            "cuda/reduce.cu",
            "cuda/where_index.cu",
        ])
        .include("cuda")
        .declarations("src/kernels.rs")
        .committed_ptx("ptx")
        .compile();
}
