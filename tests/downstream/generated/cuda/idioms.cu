// Idioms of production code the generated declarations take: a device function's address as a
// kernel parameter (ccminer's compaction kernels take a `bool (*)(uint32_t*)`, read on the host
// from `__device__` variables with cudaMemcpyFromSymbol), a kernel template whose parameters
// are its configuration's member types (cuSZ's Lorenzo kernels take `typename PC::Eq*`, which
// their symbols spell rather than resolve), and 128-bit integers (tfhe-rs's 128-bit torus,
// `__uint128_t`).

typedef float (*unary_fn)(float);

__device__ float twice(float v) { return 2.0f * v; }
__device__ float negated(float v) { return -v; }

// The functions' addresses, as the host reads them (a `static` of a #[kernel] block).
__device__ unary_fn twice_fn = twice;
__device__ unary_fn negated_fn = negated;

// y[i] = f(x[i]) for i < n.
__global__ void apply_fn(const float *x, float *y, unary_fn f, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = f(x[i]);
    }
}

// out[0] = a + b and out[1] = a * c, in 128 bits, and out[2] the high half of a (a by value in
// 16 aligned bytes, as PTX passes `unsigned __int128`).
__global__ void wide(__uint128_t a, __int128 b, unsigned long long c, unsigned __int128 *out)
{
    out[0] = a + (unsigned __int128)b;
    out[1] = a * c;
    out[2] = a >> 64;
}

namespace idioms {

template <typename E> struct Config {
    typedef E Eq;
    typedef unsigned short Small;
    typedef unsigned int *Counter;
};

// eq[i] = (Eq)(data[i] * scale) for i < n, each element counted in counts[0]: every parameter
// but `data` and `scale` through the configuration's member types.
template <typename T, typename C>
__global__ void quantize(const T *data, typename C::Eq *eq, typename C::Counter counts,
                         typename C::Small n, T scale)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        eq[i] = (typename C::Eq)(data[i] * scale);
        atomicAdd(counts, 1u);
    }
}

template __global__ void quantize<float, Config<int> >(const float *, Config<int>::Eq *,
                                                         Config<int>::Counter,
                                                         Config<int>::Small, float);
template __global__ void quantize<double, Config<short> >(const double *, Config<short>::Eq *,
                                                            Config<short>::Counter,
                                                            Config<short>::Small, double);

} // namespace idioms
