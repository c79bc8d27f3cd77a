// A file whose host code calls CUB, which instantiates CUB's kernels: the file's own kernel is
// declared, CUB's are counted apart in the generated file's header (no Rust launches them).
// The crate's include path has llm.c's NVTX stand-in (kernels/cuda/llmc-compat), not NVTX.
#define CCCL_DISABLE_NVTX
#include <cub/device/device_reduce.cuh>

extern "C" __global__ void square(float *x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= x[i];
}

cudaError_t sum(const float *in, float *out, int n, void *temp, size_t *temp_bytes, cudaStream_t s) {
    return cub::DeviceReduce::Sum(temp, *temp_bytes, in, out, n, s);
}
