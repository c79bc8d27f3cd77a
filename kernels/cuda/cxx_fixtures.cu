// Kernels without extern "C": their entries appear under Itanium-mangled names. Kept as a PTX
// fixture for the PTX signature reader and for binding C++ kernels by name.

template <typename T>
__global__ void scale(T *x, T a, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] *= a;
    }
}

template __global__ void scale<float>(float *, float, unsigned int);
template __global__ void scale<double>(double *, double, unsigned int);

__global__ void saxpy(const float *__restrict__ x, float *__restrict__ y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

struct Pair {
    char c;
    double d;
};

extern "C" __global__ void takes_struct(Pair p, __grid_constant__ const float4 v, double *out)
{
    out[0] = p.c + p.d + v.x;
}
