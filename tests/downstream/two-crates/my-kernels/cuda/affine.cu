#include <cstdint>

// candle-kernels' way: one extern "C" kernel per dtype, stamped out by a macro.
#define AFFINE(T, NAME)                                                                        \
    extern "C" __global__ void NAME(const size_t numel, const T *x, T *y, const T mul,       \
                                    const T add)                                              \
    {                                                                                          \
        size_t i = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (i < numel) y[i] = x[i] * mul + add;                                               \
    }

AFFINE(float, affine_f32)
AFFINE(double, affine_f64)
AFFINE(int64_t, affine_i64)
