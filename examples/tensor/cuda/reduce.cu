// Reductions over the last dimension (fast_{op}_{dtype}): one block per output element, as
// candle-kernels' reduce.cu. src is strided by info (dims, strides) or contiguous when NULL.
#include "utils.cuh"

#define BLOCK 256

template <typename A> struct SumOp {
    __device__ static A init() { return 0; }
    __device__ static A apply(A a, A b) { return a + b; }
};
template <typename A> struct MaxOp {
    __device__ static A init() { return -INFINITY; }
    __device__ static A apply(A a, A b) { return a > b ? a : b; }
};
template <typename A> struct MinOp {
    __device__ static A init() { return INFINITY; }
    __device__ static A apply(A a, A b) { return a < b ? a : b; }
};

template <typename T, typename Op>
__device__ void reduce(const size_t src_numel, const size_t el_to_sum_per_block,
                       const size_t num_dims, const size_t *info, const T *src, T *dst) {
    typedef typename Acc<T>::type A;
    __shared__ A shr[BLOCK];
    const size_t *dims = info;
    const size_t *strides = info ? info + num_dims : nullptr;
    bool cont = info == nullptr || is_contiguous(num_dims, dims, strides);
    size_t start = blockIdx.x * el_to_sum_per_block;
    size_t stop = min(start + el_to_sum_per_block, src_numel);
    A acc = Op::init();
    for (size_t i = start + threadIdx.x; i < stop; i += blockDim.x) {
        unsigned int j = cont ? i : get_strided_index(i, num_dims, dims, strides);
        acc = Op::apply(acc, up(src[j]));
    }
    shr[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) shr[threadIdx.x] = Op::apply(shr[threadIdx.x], shr[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) dst[blockIdx.x] = down<T>(shr[0]);
}

#define REDUCE_OP(T, S, OP, NAME)                                                               \
    extern "C" __global__ void fast_##NAME##_##S(                                               \
        const size_t src_numel, const size_t el_to_sum_per_block, const size_t num_dims,        \
        const size_t *info, const T *src, T *dst) {                                             \
        reduce<T, OP<typename Acc<T>::type>>(src_numel, el_to_sum_per_block, num_dims, info,    \
                                             src, dst);                                         \
    }

#define REDUCE_OPS(T, S)                                                                        \
    REDUCE_OP(T, S, SumOp, sum)                                                                 \
    REDUCE_OP(T, S, MaxOp, max)                                                                 \
    REDUCE_OP(T, S, MinOp, min)

REDUCE_OPS(float, f32)
REDUCE_OPS(double, f64)
REDUCE_OPS(__half, f16)
REDUCE_OPS(__nv_bfloat16, bf16)
