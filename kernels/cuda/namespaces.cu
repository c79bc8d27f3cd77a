// ptx-arch: compute_90a
// Kernels where C++ code keeps them: in namespaces, nested ones, templates there over types and
// values, and one name in two namespaces; built for the arch-specific target sm_90a (Hopper's
// wgmma and setmaxnreg need it), one kernel with a compiled-in cluster shape. Declared in
// kernels/src/lib.rs with #[kernel(cpp, namespace = "...")].
#include <cuda_fp16.h>

// ns::shapes::Interval is declared in Rust too (kernels/src/params.rs, `cuda_name =
// "ns::shapes::Interval"`): the build step's force-included header declares it under this guard.
#ifndef CUDA_KERNEL_STRUCT_ns_shapes_Interval
#define CUDA_KERNEL_STRUCT_ns_shapes_Interval
namespace ns {
namespace shapes {
struct Interval {
    float lo;
    float hi;
    unsigned n;
};
}
}
#endif

namespace ns {
// x[i] *= a for i < n, B threads a block.
template <int B>
__global__ void scale(float *x, float a, unsigned n)
{
    unsigned i = blockIdx.x * B + threadIdx.x;
    if (i < n) x[i] *= a;
}
template __global__ void scale<128>(float *, float, unsigned);

__global__ void plain(float *x) { x[threadIdx.x] = 1.0f; }

// out[i] = iv.lo + (iv.hi - iv.lo) * i / iv.n + offset->lo for i < iv.n: a struct of a nested
// namespace by value and through a pointer.
__global__ void spread(shapes::Interval iv, const shapes::Interval *offset, float *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < iv.n) out[i] = iv.lo + (iv.hi - iv.lo) * i / iv.n + offset->lo;
}

// x[i] = the rank of the block in its cluster of 2, for i < n (blocks of B threads).
template <int B>
__global__ void __cluster_dims__(2, 1, 1) cluster_rank(unsigned *x, unsigned n)
{
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    unsigned i = blockIdx.x * B + threadIdx.x;
    if (i < n) x[i] = rank;
}
template __global__ void cluster_rank<64>(unsigned *, unsigned);

namespace inner {
// x[i] = v for i < n.
template <class T>
__global__ void fill(T *x, T v, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
template __global__ void fill<float>(float *, float, unsigned);
template __global__ void fill<__half>(__half *, __half, unsigned);
}
}

namespace other {
__global__ void plain(float *x) { x[threadIdx.x] = 2.0f; }
}

namespace ns {
// out[i] = iv->lo + (iv->hi - iv->lo) * i / iv->n, as T, for i < iv->n: a template taking a
// struct of a nested namespace, which its symbol names by the namespace's substitution
// (`PKNS_6shapes8IntervalE`).
template <class T>
__global__ void spread_as(const shapes::Interval *iv, T *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < iv->n) out[i] = (T)(iv->lo + (iv->hi - iv->lo) * i / iv->n);
}
template __global__ void spread_as<float>(const shapes::Interval *, float *);
template __global__ void spread_as<double>(const shapes::Interval *, double *);
}
