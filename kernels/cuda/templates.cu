// Kernels as public projects write them, declared in kernels/src/lib.rs as their authors wrote
// them: C++ templates over a type (cuda-samples' reduction) and over a value (cuda-samples'
// matrixMul), and a family of extern "C" kernels stamped out by a macro (candle's affine).
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// cuda-samples 2_Concepts_and_Techniques/reduction, reduce0: interleaved addressing, one
// partial sum per block into g_odata[blockIdx.x]. Dynamic shared memory: blockDim.x * sizeof(T).
template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n)
{
    extern __shared__ unsigned char smem_bytes[];
    T *sdata = reinterpret_cast<T *>(smem_bytes);
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_idata[i] : T(0);
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if ((tid % (2 * s)) == 0) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        g_odata[blockIdx.x] = sdata[0];
    }
}

template __global__ void reduce0<float>(float *, float *, unsigned int);
template __global__ void reduce0<int>(int *, int *, unsigned int);
template __global__ void reduce0<double>(double *, double *, unsigned int);

// cuda-samples 0_Introduction/matrixMul: C = A * B with BLOCK_SIZE x BLOCK_SIZE tiles, wA and
// wB the widths of A and B (multiples of BLOCK_SIZE). A and B are only read, though not const.
template <int BLOCK_SIZE>
__global__ void matrixMulCUDA(float *C, float *A, float *B, int wA, int wB)
{
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int aBegin = wA * BLOCK_SIZE * by;
    int aEnd = aBegin + wA - 1;
    int aStep = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx;
    int bStep = BLOCK_SIZE * wB;
    float Csub = 0;
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k) {
            Csub += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}

template __global__ void matrixMulCUDA<16>(float *C, float *A, float *B, int wA, int wB);
template __global__ void matrixMulCUDA<32>(float *C, float *A, float *B, int wA, int wB);

// Template values of other integer types, as real kernels write them (cuda-samples' reduction
// takes `unsigned int blockSize`, CUB-style code `size_t`): each thread of the first block adds
// its stride's elements of x into out[threadIdx.x].
template <class T, unsigned int BLOCK_SIZE>
__global__ void strided_sum(const T *x, T *out, unsigned int n)
{
    T sum = 0;
    for (unsigned int i = threadIdx.x; i < n; i += BLOCK_SIZE) {
        sum += x[i];
    }
    out[threadIdx.x] = sum;
}

template __global__ void strided_sum<float, 128u>(const float *, float *, unsigned int);
template __global__ void strided_sum<int, 64u>(const int *, int *, unsigned int);

template <size_t N, long OFFSET, char TAG>
__global__ void fill_tagged(float *x)
{
    if (threadIdx.x < N) x[threadIdx.x] = (float)(OFFSET + TAG);
}

template __global__ void fill_tagged<32, -1, 'a'>(float *);

// candle-kernels affine.cu: out = x * mul + add, x from inp, or from out itself when inp is
// NULL; info (dims then strides, num_dims each) NULL for contiguous tensors.
__device__ bool is_contiguous(const size_t num_dims, const size_t *dims, const size_t *strides)
{
    size_t acc = 1;
    for (unsigned int d = 0; d < num_dims; d++) {
        unsigned int dim_idx = num_dims - 1 - d;
        if (dims[dim_idx] > 1 && acc != strides[dim_idx]) {
            return false;
        }
        acc *= dims[dim_idx];
    }
    return true;
}

__device__ unsigned int get_strided_index(unsigned int idx, const size_t num_dims,
                                          const size_t *dims, const size_t *strides)
{
    unsigned int strided_i = 0;
    for (unsigned int d = 0; d < num_dims; d++) {
        unsigned int dim_idx = num_dims - 1 - d;
        strided_i += (idx % dims[dim_idx]) * strides[dim_idx];
        idx /= dims[dim_idx];
    }
    return strided_i;
}

#define AFFINE_OP(TYPENAME, FN_NAME)                                                            \
    extern "C" __global__ void FN_NAME(const size_t numel, const size_t num_dims,               \
                                       const size_t *info, const TYPENAME *inp, TYPENAME *out,  \
                                       const TYPENAME mul, const TYPENAME add)                  \
    {                                                                                           \
        const size_t *dims = info;                                                              \
        const size_t *strides = info + num_dims;                                                \
        if (info == nullptr || is_contiguous(num_dims, dims, strides)) {                        \
            for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < numel;             \
                 i += blockDim.x * gridDim.x) {                                                 \
                TYPENAME x = inp ? inp[i] : out[i];                                             \
                out[i] = x * mul + add;                                                         \
            }                                                                                   \
        } else {                                                                                \
            for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < numel;             \
                 i += blockDim.x * gridDim.x) {                                                 \
                unsigned strided_i = get_strided_index(i, num_dims, dims, strides);             \
                TYPENAME x = inp ? inp[strided_i] : out[i];                                     \
                out[i] = x * mul + add;                                                         \
            }                                                                                   \
        }                                                                                       \
    }

AFFINE_OP(float, affine_f32)
AFFINE_OP(double, affine_f64)
AFFINE_OP(__half, affine_f16)
AFFINE_OP(__nv_bfloat16, affine_bf16)
AFFINE_OP(uint32_t, affine_u32)
