//! Compiles cuda/*.cu with nvcc and writes the `#[kernel]` declarations of their kernels (or,
//! without nvcc, takes the PTX and declarations committed in ptx/ while they match the
//! sources), as a crate adopting cuda-kernel does. The families name the ops chosen at run
//! time; `cast_{T}_{U}` the build step finds by itself.

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
        .generate_declarations(true)
        .family("cuda/unary.cu", "u{op}_{T}", "unary")
        .family("cuda/unary.cu", "upowf_{T}", "powf")
        .family("cuda/binary.cu", "b{op}_{T}", "binary")
        .family("cuda/binary.cu", "{op}_{T}", "cmp")
        .family("cuda/reduce.cu", "fast_{op}_{T}", "reduce")
        .family("cuda/where_index.cu", "where_{I}_{T}", "where_cond")
        .family("cuda/where_index.cu", "is_{I}_{T}", "index_select")
        .declarations_alongside("src/kernels/checked.rs")
        .committed_ptx("ptx")
        .compile();
}
