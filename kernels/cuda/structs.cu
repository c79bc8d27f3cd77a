// Kernels taking #[derive(KernelParam)] structs by value. params.cuh is generated from the
// Rust structs (kernels/src/params.rs) and static_asserts their layout here.
#include "params.cuh"

// Writes fields of `p` and the bytes around it at fixed offsets of `out`:
// inner.value@0 (double) dir.z@8 (float) ids[2]@12 (short) flag@14 inner.tag@15 mass@16 (half)
// before@18 after@19, 20 bytes.
extern "C" __global__ void echo_particle(signed char before, Particle p, signed char after, unsigned char *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    *(double *)(out + 0) = p.inner.value;
    *(float *)(out + 8) = p.dir.z;
    *(short *)(out + 12) = p.ids[2];
    out[14] = p.flag ? 1 : 0;
    out[15] = p.inner.tag;
    *(__half *)(out + 16) = p.mass;
    out[18] = before;
    out[19] = after;
}

// out[0] = the sum of b.values, out[1] = the last value: 8,000 bytes of parameters.
extern "C" __global__ void sum_big(BigParams b, float *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    float sum = 0.0f;
    for (int i = 0; i < 2000; i++) {
        sum += b.values[i];
    }
    out[0] = sum;
    out[1] = b.values[1999];
}
