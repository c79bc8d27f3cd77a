fn main() {
    // No declarations here: they live in the crate that launches (app), which checks them
    // against this PTX at compile time.
    cuda_kernel_build::Build::new()
        .file("cuda/affine.cu")
        .committed_ptx("ptx")
        .compile();
}
