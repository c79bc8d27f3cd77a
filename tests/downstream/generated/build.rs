fn main() {
    cuda_kernel_build::Build::new()
        .files([
            "../../../kernels/cuda/candle_fill.cu",
            "../../../kernels/cuda/llmc.cu",
            "../../../kernels/cuda/cxx_fixtures.cu",
        ])
        .include("../../../kernels/cuda")
        .committed_ptx("ptx")
        .generate_declarations(true)
        .compile();
}
