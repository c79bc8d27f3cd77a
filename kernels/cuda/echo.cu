// Echo kernels: each writes every parameter it receives into `out` so the host can compare the
// bytes with what it sent. Offsets in `out` are fixed by hand here and in the tests, independent
// of any layout computation, so a mispacked parameter shows as a wrong value.
#include <cstdint>
#include <cuda_fp16.h>

// The parameter list of the Programming Guide's ADD_TO_PARAM_BUFFER example
// (int, float4, char, float, CUdeviceptr, float2), extended with double, __half and double2.
//
// out layout (bytes): i@0 f4@16 c@32 f@36 p@40 f2@48 d@56 h@64 d2@80, 96 bytes in all.
extern "C" __global__ void echo_guide(int i, float4 f4, signed char c, float f, unsigned long long p,
                                      float2 f2, double d, __half h, double2 d2,
                                      unsigned char *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    *(int *)(out + 0) = i;
    *(float4 *)(out + 16) = f4;
    *(char *)(out + 32) = c;
    *(float *)(out + 36) = f;
    *(unsigned long long *)(out + 40) = p;
    *(float2 *)(out + 48) = f2;
    *(double *)(out + 56) = d;
    *(__half *)(out + 64) = h;
    *(double2 *)(out + 80) = d2;
}

// Every scalar type of the first parameter table, each after a 1-byte parameter so that any
// rounding mistake shifts it.
//
// out layout (bytes): b@0 i8@1 u8@2 i16@4 u16@6 i32@8 u32@12 i64@16 u64@24 f32@32 f64@40
// f16@48 bf16@50 int2@56 int4@64 uint4@80, 96 bytes in all.
#include <cuda_bf16.h>
extern "C" __global__ void echo_scalars(bool b, signed char p0, signed char i8, signed char p1, unsigned char u8,
                                        signed char p2, short i16, signed char p3, unsigned short u16, signed char p4,
                                        int i32, signed char p5, unsigned int u32, signed char p6, int64_t i64,
                                        signed char p7, uint64_t u64, signed char p8, float f32,
                                        signed char p9, double f64, signed char p10, __half f16, signed char p11,
                                        __nv_bfloat16 bf16, signed char p12, int2 v_int2, signed char p13,
                                        int4 v_int4, signed char p14, uint4 v_uint4, unsigned char *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    // The padding bytes are echoed as a checksum: each must arrive as the host sent it.
    char pads = p0 ^ p1 ^ p2 ^ p3 ^ p4 ^ p5 ^ p6 ^ p7 ^ p8 ^ p9 ^ p10 ^ p11 ^ p12 ^ p13 ^ p14;
    *(bool *)(out + 0) = b;
    *(signed char *)(out + 1) = i8;
    *(unsigned char *)(out + 2) = u8;
    *(char *)(out + 3) = pads;
    *(short *)(out + 4) = i16;
    *(unsigned short *)(out + 6) = u16;
    *(int *)(out + 8) = i32;
    *(unsigned int *)(out + 12) = u32;
    *(int64_t *)(out + 16) = i64;
    *(uint64_t *)(out + 24) = u64;
    *(float *)(out + 32) = f32;
    *(double *)(out + 40) = f64;
    *(__half *)(out + 48) = f16;
    *(__nv_bfloat16 *)(out + 50) = bf16;
    *(int2 *)(out + 56) = v_int2;
    *(int4 *)(out + 64) = v_int4;
    *(uint4 *)(out + 80) = v_uint4;
}
