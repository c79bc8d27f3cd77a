// where_{ids}_{dtype} and index_select (is_{ids}_{dtype}), as candle-kernels' ternary.cu and
// indexing.cu write them.
#include "utils.cuh"

#define WHERE_OP(ID, S_ID, T, S)                                                                \
    extern "C" __global__ void where_##S_ID##_##S(                                              \
        const size_t numel, const size_t num_dims, const size_t *info, const ID *ids,           \
        const T *t, const T *f, T *out) {                                                       \
        const size_t *dims = info;                                                              \
        const size_t *strides = info ? info + num_dims : nullptr;                               \
        const size_t *strides_t = info ? info + 2 * num_dims : nullptr;                         \
        const size_t *strides_f = info ? info + 3 * num_dims : nullptr;                         \
        bool c = !info || (is_contiguous(num_dims, dims, strides) &&                            \
                           is_contiguous(num_dims, dims, strides_t) &&                          \
                           is_contiguous(num_dims, dims, strides_f));                           \
        FOR_EACH_ELEMENT {                                                                      \
            unsigned int i_id = c ? i : get_strided_index(i, num_dims, dims, strides);          \
            unsigned int i_t = c ? i : get_strided_index(i, num_dims, dims, strides_t);         \
            unsigned int i_f = c ? i : get_strided_index(i, num_dims, dims, strides_f);         \
            out[i] = ids[i_id] ? t[i_t] : f[i_f];                                               \
        }                                                                                       \
    }

#define INDEX_OP(ID, S_ID, T, S)                                                                \
    extern "C" __global__ void is_##S_ID##_##S(                                                 \
        const size_t numel, const size_t num_dims, const size_t *info, const ID *ids,           \
        const T *inp, T *out, const size_t left_size, const size_t src_dim_size,                \
        const size_t ids_dim_size, const size_t right_size) {                                   \
        const size_t *dims = info;                                                              \
        const size_t *strides = info ? info + num_dims : nullptr;                               \
        bool c = !info || is_contiguous(num_dims, dims, strides);                               \
        FOR_EACH_ELEMENT {                                                                      \
            unsigned int id_i = c ? i : get_strided_index(i, num_dims, dims, strides);          \
            size_t left_i = i / (ids_dim_size * right_size);                                    \
            size_t id_pos = i / right_size % ids_dim_size;                                      \
            size_t right_i = i % right_size;                                                    \
            (void)id_i;                                                                         \
            size_t src_i = left_i * (src_dim_size * right_size) +                               \
                           (size_t)ids[id_pos] * right_size + right_i;                          \
            out[i] = inp[src_i];                                                                \
        }                                                                                       \
    }

#define BY_IDS(OP, T, S)                                                                        \
    OP(uint8_t, u8, T, S)                                                                       \
    OP(uint32_t, u32, T, S)                                                                     \
    OP(int64_t, i64, T, S)

#define ALL_DTYPES(OP)                                                                          \
    BY_IDS(OP, float, f32)                                                                      \
    BY_IDS(OP, double, f64)                                                                     \
    BY_IDS(OP, __half, f16)                                                                     \
    BY_IDS(OP, __nv_bfloat16, bf16)                                                             \
    BY_IDS(OP, uint8_t, u8)                                                                     \
    BY_IDS(OP, uint32_t, u32)                                                                   \
    BY_IDS(OP, int64_t, i64)

ALL_DTYPES(WHERE_OP)
ALL_DTYPES(INDEX_OP)
