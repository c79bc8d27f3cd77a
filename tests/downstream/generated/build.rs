fn main() {
    cuda_kernel_build::Build::new()
        .files([
            "../../../kernels/cuda/candle_fill.cu",
            "../../../kernels/cuda/llmc.cu",
            "../../../kernels/cuda/cxx_fixtures.cu",
            "../../../kernels/cuda/llmc_bf16.cu",
            "../../../kernels/cuda/namespaces.cu",
            "cuda/names.cu",
            "cuda/toolkit.cu",
            "cuda/records.cu",
        ])
        .include("../../../kernels/cuda")
        .include("../../../kernels/cuda/llmc-compat")
        .committed_ptx("ptx")
        .generate_declarations(true)
        .compile();
}
