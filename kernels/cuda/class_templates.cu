// Templates as today's CUDA code writes them: instantiated over CUDA's class types (__half,
// __nv_bfloat16, FP8), over a struct in a namespace, and over values of bool, char and an enum.
// Declared in kernels/src/lib.rs as generic declarations, each instance found at compile time.
#include <cstddef>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

// out[i * stride] = in[i * stride] * s for i < n, computed in float.
template <class T>
__global__ void scale_kernel(T *out, const T *in, float s, size_t n, ptrdiff_t stride)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        out[i * stride] = (T)((float)in[i * stride] * s);
    }
}

template __global__ void scale_kernel<float>(float *, const float *, float, size_t, ptrdiff_t);
template __global__ void scale_kernel<__half>(__half *, const __half *, float, size_t, ptrdiff_t);
template __global__ void scale_kernel<__nv_bfloat16>(__nv_bfloat16 *, const __nv_bfloat16 *,
                                                     float, size_t, ptrdiff_t);

// out[i] = (Out)(float)in[i] for i < n: every instance over a class type.
template <class In, class Out>
__global__ void cast_kernel(Out *out, const In *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = (Out)(float)in[i];
    }
}

template __global__ void cast_kernel<float, __nv_bfloat16>(__nv_bfloat16 *, const float *, int);
template __global__ void cast_kernel<__half, float>(float *, const __half *, int);
template __global__ void cast_kernel<__nv_fp8_e4m3, float>(float *, const __nv_fp8_e4m3 *, int);

// geo::Pair is declared in Rust too (kernels/src/params.rs, `cuda_name = "geo::Pair"`): the
// build step's force-included header declares it under this guard, with its layout asserted.
#ifndef CUDA_KERNEL_STRUCT_geo_Pair
#define CUDA_KERNEL_STRUCT_geo_Pair
namespace geo {
struct Pair {
    int a;
    float b;
};
}
#endif
namespace geo {
enum class Mode : int { Add = 1, Mul = 2 };
}

// out[i] = p.a + p.b * i (Add) or p.a * p.b * i (Mul), or with SCALE the sum doubled, plus TAG,
// for i < n: a struct in a namespace by value, and values of bool, char and an enum.
template <class P, bool SCALE, char TAG, geo::Mode MODE>
__global__ void combine(P p, float *out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = MODE == geo::Mode::Add ? p.a + p.b * i : p.a * p.b * i;
        out[i] = (SCALE ? 2.0f * v : v) + TAG;
    }
}

template __global__ void combine<geo::Pair, true, 'a', geo::Mode::Add>(geo::Pair, float *,
                                                                       unsigned int);
template __global__ void combine<geo::Pair, false, 'b', geo::Mode::Mul>(geo::Pair, float *,
                                                                        unsigned int);
