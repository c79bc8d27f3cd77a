// ptx-arch: compute_80
// llm.c's kernels as its bf16 training (train_gpt2.cu) compiles them, from its own headers
// (kernels/cuda/llmc/, vendored unchanged from https://github.com/karpathy/llm.c at f1e2ace):
// floatX is __nv_bfloat16, its default. The headers' host code needs NVTX and cuBLAS headers,
// which llmc-compat/ stands in for (the device code uses neither). The templates are
// instantiated as train_gpt2.cu's host code instantiates them.
//
// MIT License, Copyright (c) 2024 Andrej Karpathy: see LICENSE-llm.c beside this file.
#include <cuda_runtime.h>
// CUDA 13 takes a cudaMemLocation where llm.c (written for CUDA 12) passes a device number to
// cudaMemAdvise (host code of cuda_utils.cuh): the one adaptation, made here, not in llmc/.
#if CUDART_VERSION >= 13000
static inline cudaMemLocation llmc_compat_location(int device)
{
    return device == cudaCpuDeviceId ? cudaMemLocation{cudaMemLocationTypeHost, 0}
                                     : cudaMemLocation{cudaMemLocationTypeDevice, device};
}
#define cudaMemAdvise(ptr, bytes, advice, device) \
    cudaMemAdvise(ptr, bytes, advice, llmc_compat_location(device))
#endif
#include "llmc/cuda_common.h"
#include "llmc/cuda_utils.cuh"
#include "llmc/encoder.cuh"
#include "llmc/layernorm.cuh"
#include "llmc/matmul.cuh"
#include "llmc/attention.cuh"
#include "llmc/fused_classifier.cuh"
#include "llmc/adamw.cuh"
#include "llmc/global_norm.cuh"

template __global__ void fused_classifier_kernel5<true, false>(floatX *, float *, floatX *,
                                                               const float, const int *, int, int,
                                                               int, int, std::bool_constant<true>);
template __global__ void copy_and_cast_kernel<float, floatX>(float *, const floatX *, size_t,
                                                              ptrdiff_t, ptrdiff_t);
template __global__ void global_sum_single_block_kernel<float>(float *, const float *, size_t);
template __global__ void adamw_kernel3<floatX, floatX>(floatX *, float *, floatX *, float *,
                                                       float *, size_t, ptrdiff_t, ptrdiff_t,
                                                       ptrdiff_t, float, float, float, float,
                                                       float, float, float, float, unsigned int);
template __global__ void init_from_master_kernel<floatX>(floatX *, float *, size_t, ptrdiff_t,
                                                         ptrdiff_t, unsigned int);
template __global__ void global_norm_squared_kernel<floatX>(float *, const floatX *, size_t,
                                                            ptrdiff_t);
template __global__ void global_norm_squared_kernel<float>(float *, const float *, size_t,
                                                           ptrdiff_t);
