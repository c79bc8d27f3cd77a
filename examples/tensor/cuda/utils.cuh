// Strided indexing and dtype helpers, in the shape of candle-kernels' cuda_utils.cuh.
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

// info holds num_dims dims, then num_dims strides per operand; NULL for contiguous operands.
__device__ __forceinline__ bool is_contiguous(const size_t num_dims, const size_t *dims,
                                              const size_t *strides) {
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

__device__ __forceinline__ unsigned int get_strided_index(unsigned int idx, const size_t num_dims,
                                                          const size_t *dims,
                                                          const size_t *strides) {
    unsigned int strided_i = 0;
    for (unsigned int d = 0; d < num_dims; d++) {
        unsigned int dim_idx = num_dims - 1 - d;
        strided_i += (idx % dims[dim_idx]) * strides[dim_idx];
        idx /= dims[dim_idx];
    }
    return strided_i;
}

// Arithmetic type of a storage type: half types compute in float.
template <typename T> struct Acc { typedef T type; };
template <> struct Acc<__half> { typedef float type; };
template <> struct Acc<__nv_bfloat16> { typedef float type; };

template <typename T> __device__ __forceinline__ typename Acc<T>::type up(T x) {
    return (typename Acc<T>::type)x;
}
template <> __device__ __forceinline__ float up(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float up(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T, typename A> __device__ __forceinline__ T down(A x) { return (T)x; }
template <> __device__ __forceinline__ __half down(float x) { return __float2half(x); }
template <> __device__ __forceinline__ __nv_bfloat16 down(float x) { return __float2bfloat16(x); }
template <> __device__ __forceinline__ __half down(double x) { return __double2half(x); }
template <> __device__ __forceinline__ __nv_bfloat16 down(double x) {
    return __float2bfloat16((float)x);
}

#define FOR_EACH_ELEMENT                                                                        \
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < numel;                     \
         i += blockDim.x * gridDim.x)
