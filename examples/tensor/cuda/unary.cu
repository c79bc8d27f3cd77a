// Unary ops over strided tensors, one extern "C" kernel per op and dtype (u{op}_{dtype}), as
// candle-kernels' unary.cu writes them.
#include "utils.cuh"

#define UNARY_OP(TYPENAME, FN_NAME, FUNC)                                                       \
    extern "C" __global__ void FN_NAME(const size_t numel, const size_t num_dims,               \
                                       const size_t *info, const TYPENAME *inp,                 \
                                       TYPENAME *out) {                                         \
        const size_t *dims = info;                                                              \
        const size_t *strides = info ? info + num_dims : nullptr;                               \
        bool cont = info == nullptr || is_contiguous(num_dims, dims, strides);                  \
        FOR_EACH_ELEMENT {                                                                      \
            unsigned int j = cont ? i : get_strided_index(i, num_dims, dims, strides);          \
            typename Acc<TYPENAME>::type x = up(inp[j]);                                        \
            out[i] = down<TYPENAME>(FUNC);                                                      \
        }                                                                                       \
    }

#define FLOAT_OPS(T, S)                                                                         \
    UNARY_OP(T, ucopy_##S, x)                                                                   \
    UNARY_OP(T, uneg_##S, -x)                                                                   \
    UNARY_OP(T, uexp_##S, exp(x))                                                               \
    UNARY_OP(T, ulog_##S, log(x))                                                               \
    UNARY_OP(T, usqrt_##S, sqrt(x))                                                             \
    UNARY_OP(T, uabs_##S, fabs(x))                                                              \
    UNARY_OP(T, usqr_##S, x * x)                                                                \
    UNARY_OP(T, urelu_##S, x > 0 ? x : 0)                                                       \
    UNARY_OP(T, urecip_##S, 1 / x)

FLOAT_OPS(float, f32)
FLOAT_OPS(double, f64)
FLOAT_OPS(__half, f16)
FLOAT_OPS(__nv_bfloat16, bf16)

UNARY_OP(uint8_t, ucopy_u8, x)
UNARY_OP(uint8_t, usqr_u8, x * x)
UNARY_OP(uint32_t, ucopy_u32, x)
UNARY_OP(uint32_t, usqr_u32, x * x)
UNARY_OP(int64_t, ucopy_i64, x)
UNARY_OP(int64_t, uneg_i64, -x)
UNARY_OP(int64_t, usqr_i64, x * x)

// An op with a parameter: another signature, declared on its own.
#define UNARY_OP1(TYPENAME, FN_NAME, FUNC)                                                      \
    extern "C" __global__ void FN_NAME(const size_t numel, const size_t num_dims,               \
                                       const size_t *info, TYPENAME param,                      \
                                       const TYPENAME *inp, TYPENAME *out) {                    \
        const size_t *dims = info;                                                              \
        const size_t *strides = info ? info + num_dims : nullptr;                               \
        bool cont = info == nullptr || is_contiguous(num_dims, dims, strides);                  \
        typename Acc<TYPENAME>::type p = up(param);                                             \
        FOR_EACH_ELEMENT {                                                                      \
            unsigned int j = cont ? i : get_strided_index(i, num_dims, dims, strides);          \
            typename Acc<TYPENAME>::type x = up(inp[j]);                                        \
            out[i] = down<TYPENAME>(FUNC);                                                      \
        }                                                                                       \
    }

UNARY_OP1(float, upowf_f32, pow(x, p))
UNARY_OP1(double, upowf_f64, pow(x, p))
UNARY_OP1(__half, upowf_f16, pow(x, p))
UNARY_OP1(__nv_bfloat16, upowf_bf16, pow(x, p))
