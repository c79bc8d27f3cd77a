fn main() {
    // DEP_MY_KERNELS_PTX_DIR, set by my-kernels' build script, for the #[kernel] blocks below.
    if let Err(e) = cuda_kernel_build::dependency_ptx("my_kernels") {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
