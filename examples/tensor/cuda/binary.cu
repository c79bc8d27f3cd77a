// Binary ops and comparisons over strided tensors (b{op}_{dtype}, {cmp}_{dtype}), as
// candle-kernels' binary.cu writes them. dims_and_strides: dims, lhs strides, rhs strides.
#include "utils.cuh"

#define BINARY_OP_OUT(TYPENAME, OUT_TYPENAME, FN_NAME, FUNC)                                    \
    extern "C" __global__ void FN_NAME(const size_t numel, const size_t num_dims,               \
                                       const size_t *dims_and_strides, const TYPENAME *lhs,     \
                                       const TYPENAME *rhs, OUT_TYPENAME *out) {                \
        const size_t *dims = dims_and_strides;                                                  \
        const size_t *lhs_strides = dims_and_strides ? dims_and_strides + num_dims : nullptr;   \
        const size_t *rhs_strides =                                                             \
            dims_and_strides ? dims_and_strides + 2 * num_dims : nullptr;                       \
        bool lhs_cont = !dims_and_strides || is_contiguous(num_dims, dims, lhs_strides);        \
        bool rhs_cont = !dims_and_strides || is_contiguous(num_dims, dims, rhs_strides);        \
        FOR_EACH_ELEMENT {                                                                      \
            unsigned int l = lhs_cont ? i : get_strided_index(i, num_dims, dims, lhs_strides);  \
            unsigned int r = rhs_cont ? i : get_strided_index(i, num_dims, dims, rhs_strides);  \
            typename Acc<TYPENAME>::type x = up(lhs[l]);                                        \
            typename Acc<TYPENAME>::type y = up(rhs[r]);                                        \
            out[i] = down<OUT_TYPENAME>(FUNC);                                                  \
        }                                                                                       \
    }

#define BINARY_OPS(T, S)                                                                        \
    BINARY_OP_OUT(T, T, badd_##S, x + y)                                                        \
    BINARY_OP_OUT(T, T, bsub_##S, x - y)                                                        \
    BINARY_OP_OUT(T, T, bmul_##S, x * y)                                                        \
    BINARY_OP_OUT(T, T, bdiv_##S, x / y)                                                        \
    BINARY_OP_OUT(T, T, bmaximum_##S, x > y ? x : y)                                            \
    BINARY_OP_OUT(T, T, bminimum_##S, x < y ? x : y)                                            \
    BINARY_OP_OUT(T, uint8_t, eq_##S, (uint8_t)(x == y))                                        \
    BINARY_OP_OUT(T, uint8_t, ne_##S, (uint8_t)(x != y))                                        \
    BINARY_OP_OUT(T, uint8_t, lt_##S, (uint8_t)(x < y))                                         \
    BINARY_OP_OUT(T, uint8_t, le_##S, (uint8_t)(x <= y))                                        \
    BINARY_OP_OUT(T, uint8_t, gt_##S, (uint8_t)(x > y))                                         \
    BINARY_OP_OUT(T, uint8_t, ge_##S, (uint8_t)(x >= y))

BINARY_OPS(float, f32)
BINARY_OPS(double, f64)
BINARY_OPS(__half, f16)
BINARY_OPS(__nv_bfloat16, bf16)
BINARY_OPS(uint8_t, u8)
BINARY_OPS(uint32_t, u32)
BINARY_OPS(int64_t, i64)
