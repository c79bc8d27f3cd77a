// ptx-arch: compute_90 (the Tensor Memory Accelerator: cp.async.bulk.tensor)
//
// Hopper kernels: a TMA descriptor (`const __grid_constant__ CUtensorMap`, 128 bytes aligned to
// 128) and other parameters aligned above 16 bytes, whose offsets in the parameter buffer the
// GPU chooses; and a tiled copy through the Tensor Memory Accelerator.
#include <cuda.h>
#include "params.cuh"

// Copies `a` and the descriptor's 128 bytes to `out` (132 bytes).
extern "C" __global__ void tma_probe(unsigned a, const __grid_constant__ CUtensorMap m, unsigned char *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    memcpy(out, &a, 4);
    memcpy(out + 4, &m, sizeof(m));
}

// Copies each parameter's bytes to `out`, back to back: 1 + 256 + 32 + 2 = 291 bytes.
extern "C" __global__ void aligned_echo(unsigned char a, const __grid_constant__ Block64 b, double4_32a d, unsigned short t, unsigned char *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    out[0] = a;
    memcpy(out + 1, &b, sizeof(b));
    memcpy(out + 257, &d, sizeof(d));
    memcpy(out + 289, &t, sizeof(t));
}

#define TILE_X 64
#define TILE_Y 64

// Copies the 64 x 64 tile (blockIdx.x, blockIdx.y) of a 2D tensor of floats from `src` to
// `dst`, both descriptors with boxes of 64 x 64: one thread loads the tile into shared memory
// with the TMA (completion counted by an mbarrier), then stores it back with the TMA. Tiles
// past the tensor's edge are clipped by the hardware.
extern "C" __global__ void tma_copy_2d(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst)
{
    __shared__ alignas(128) float tile[TILE_Y][TILE_X];
    __shared__ alignas(8) unsigned long long barrier;
    if (threadIdx.x != 0) {
        return;
    }
    unsigned bar = (unsigned)__cvta_generic_to_shared(&barrier);
    unsigned smem = (unsigned)__cvta_generic_to_shared(&tile[0][0]);
    int x = blockIdx.x * TILE_X, y = blockIdx.y * TILE_Y;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"((unsigned)sizeof(tile)) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(smem), "l"(&src), "r"(x), "r"(y), "r"(bar) : "memory");
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "wait:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
        "@!done bra wait;\n"
        "}\n" ::"r"(bar) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
        ::"l"(&dst), "r"(x), "r"(y), "r"(smem) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

// A Hopper GEMM's launch shape as its authors write it: a template over tile sizes in a
// namespace, taking TMA descriptors, with dynamic shared memory above the default 48 KiB. The
// body is a probe: it writes its tile sizes and `k` to `c`, and `BM` staged through the last
// float of its dynamic shared memory, `k` floats.
namespace gemm {
template <int BM, int BN>
__global__ void tile(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b, float *c, int k)
{
    extern __shared__ float staged[];
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    staged[k - 1] = (float)BM;
    c[0] = (float)BM;
    c[1] = (float)BN;
    c[2] = (float)k;
    c[3] = staged[k - 1];
}

template __global__ void tile<64, 128>(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, float *, int);
template __global__ void tile<128, 256>(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, float *, int);
} // namespace gemm
