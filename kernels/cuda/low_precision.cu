// FP8, FP6 and FP4 parameters and buffers: every parameter's storage echoed, and an FP8 buffer
// scaled through float.
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>

// out: a@0 b@1 c@2 f@3 g@4 i@5 j@6 d@8 (2) k@10 (2) e@12 (4) h@16 (4), 20 bytes.
extern "C" __global__ void echo_low_precision(__nv_fp8_e4m3 a, __nv_fp8_e5m2 b, __nv_fp8_e8m0 c,
                                              __nv_fp8x2_e4m3 d, __nv_fp8x4_e5m2 e,
                                              __nv_fp6_e2m3 f, __nv_fp6_e3m2 g,
                                              __nv_fp6x4_e2m3 h, __nv_fp4_e2m1 i,
                                              __nv_fp4x2_e2m1 j, __nv_fp4x4_e2m1 k,
                                              unsigned char *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    out[0] = a.__x;
    out[1] = b.__x;
    out[2] = c.__x;
    out[3] = f.__x;
    out[4] = g.__x;
    out[5] = i.__x;
    out[6] = j.__x;
    *(unsigned short *)(out + 8) = d.__x;
    *(unsigned short *)(out + 10) = k.__x;
    *(unsigned int *)(out + 12) = e.__x;
    *(unsigned int *)(out + 16) = h.__x;
}

// y[i] = x[i] * s, in FP8 E4M3 through float.
extern "C" __global__ void scale_fp8(const __nv_fp8_e4m3 *x, __nv_fp8_e4m3 *y, float s, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = __nv_fp8_e4m3(float(x[i]) * s);
    }
}
