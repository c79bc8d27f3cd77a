// Casts between dtypes (cast_{from}_{to}), through float or double as candle-kernels' cast.cu.
#include "utils.cuh"

#define CAST_OP(SRC, DST, FN_NAME)                                                              \
    extern "C" __global__ void FN_NAME(const size_t numel, const size_t num_dims,               \
                                       const size_t *info, const SRC *inp, DST *out) {          \
        const size_t *dims = info;                                                              \
        const size_t *strides = info ? info + num_dims : nullptr;                               \
        bool cont = info == nullptr || is_contiguous(num_dims, dims, strides);                  \
        FOR_EACH_ELEMENT {                                                                      \
            unsigned int j = cont ? i : get_strided_index(i, num_dims, dims, strides);          \
            out[i] = down<DST>((double)up(inp[j]));                                             \
        }                                                                                       \
    }

#define CASTS_FROM(T, S)                                                                        \
    CAST_OP(T, float, cast_##S##_f32)                                                           \
    CAST_OP(T, double, cast_##S##_f64)                                                          \
    CAST_OP(T, __half, cast_##S##_f16)                                                          \
    CAST_OP(T, __nv_bfloat16, cast_##S##_bf16)                                                  \
    CAST_OP(T, uint8_t, cast_##S##_u8)                                                          \
    CAST_OP(T, uint32_t, cast_##S##_u32)                                                        \
    CAST_OP(T, int64_t, cast_##S##_i64)

CASTS_FROM(float, f32)
CASTS_FROM(double, f64)
CASTS_FROM(__half, f16)
CASTS_FROM(__nv_bfloat16, bf16)
CASTS_FROM(uint8_t, u8)
CASTS_FROM(uint32_t, u32)
CASTS_FROM(int64_t, i64)
