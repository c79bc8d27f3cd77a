// Untyped memory, as ggml's (and candle's and mistral.rs's) quantized kernels take their
// blocks: `const void * __restrict__ vx`, cast to the block type inside.

#include <cuda_fp16.h>
#include <stdint.h>

#define QK8_0 32

// ggml's q8_0 block: a half scale and 32 signed bytes (34 bytes, aligned to 2).
typedef struct {
    __half d;
    int8_t qs[QK8_0];
} block_q8_0;

// y[i] = d * q of element i of the q8_0 blocks at vx, for i < n. A C++ kernel: its symbol
// spells the untyped pointer (`PKv`).
__global__ void dequantize_q8_0(const void *__restrict__ vx, float *__restrict__ y, int n)
{
    const block_q8_0 *x = (const block_q8_0 *)vx;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const block_q8_0 &b = x[i / QK8_0];
        y[i] = __half2float(b.d) * (float)b.qs[i % QK8_0];
    }
}

// Copies n bytes from src to dst, whatever either holds; NULL src writes zeros.
extern "C" __global__ void copy_bytes(const void *src, void *dst, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ((unsigned char *)dst)[i] = src ? ((const unsigned char *)src)[i] : 0;
    }
}
