fn main() {
    cuda_kernel_build::Build::new()
        .file("cuda/scale.cu")        // nvcc -> $OUT_DIR/scale.ptx
        .declarations("src/main.rs")  // where the #[kernel] blocks are
        .committed_ptx("ptx")         // kept for machines without nvcc
        .compile();
}
