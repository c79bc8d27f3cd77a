// Kernels where C++ code keeps them: in namespaces, nested ones, templates there over types and
// values, and one name in two namespaces. Declared in kernels/src/lib.rs with
// #[kernel(cpp, namespace = "...")].
#include <cuda_fp16.h>

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
