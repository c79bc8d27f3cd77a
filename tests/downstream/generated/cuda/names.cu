// C++ names that are not Rust's: keywords, the launcher's own argument names, `__` names, one
// name in several namespaces (the global one included), names that camel-case alike, and
// structs named as kernels or the module type. Every kernel here is declared by the generator,
// and the generated file compiles (tests/downstream/generated, scripts/check-downstream.sh).

enum ggml_type { GGML_TYPE_F32 = 0, GGML_TYPE_F16 = 1 };

namespace gemm { namespace detail {
__global__ void reset(unsigned *x, unsigned n) { if (threadIdx.x < n) x[threadIdx.x] = 0; }
} }

__global__ void reset(float *x) { x[threadIdx.x] = 0.0f; }

namespace other { __global__ void reset(int *x) { x[threadIdx.x] = 0; } }

template <ggml_type type, int rows>
static __global__ void mul_mat_vec(const float *x, float *dst, int ncols) {
    if (threadIdx.x < ncols) dst[threadIdx.x] = x[threadIdx.x] * rows + (int)type;
}
template __global__ void mul_mat_vec<GGML_TYPE_F32, 1>(const float *, float *, int);
template __global__ void mul_mat_vec<GGML_TYPE_F16, 2>(const float *, float *, int);

template <typename type, int fn>
__global__ void keyword_template(const type *match, type *ref, int loop) {
    if (threadIdx.x < loop) ref[threadIdx.x] = match[threadIdx.x] * fn;
}
template __global__ void keyword_template<float, 2>(const float *, float *, int);

__global__ void keyword_params(float *type, int stream, int config, int __x, int self, int crate, int _) {
    type[threadIdx.x] = stream + config + __x + self + crate + _;
}

extern "C" __global__ void vector_add(const float *a, float *b) { b[threadIdx.x] += a[threadIdx.x]; }
extern "C" __global__ void vectorAdd(const float *a, float *b) { b[threadIdx.x] -= a[threadIdx.x]; }
extern "C" __global__ void kernels(float *x) { x[0] = 1.0f; }
extern "C" __global__ void Self(float *x) { x[0] = 2.0f; }

struct Kernels { float a; int b; };
struct Particle { float x; };
__global__ void particle(Particle p, Kernels k, float *out) { out[0] = p.x + k.a + k.b; }

namespace a { struct Pair { float lo; }; __global__ void pair(Pair p, float *out) { out[0] = p.lo; } }
namespace b { struct Pair { int n; }; __global__ void pair(Pair p, float *out) { out[0] = p.n; } }

// Templates over device functions, `static` and in a namespace (ggml's unary.cu).
static __device__ float op_relu(float x) { return x > 0.0f ? x : 0.0f; }
namespace ops { __device__ float scale(float x, const float *by) { return x * *by; } }
template <float (*op)(float), typename T>
static __global__ void unary_op(const T *x, T *dst, int k) { if (threadIdx.x < k) dst[threadIdx.x] = (T)op((float)x[threadIdx.x]); }
template <float (*op)(float, const float *)>
__global__ void scaled(const float *x, float *dst, const float *by) { dst[threadIdx.x] = op(x[threadIdx.x], by); }
template __global__ void unary_op<op_relu, float>(const float *, float *, int);
template __global__ void scaled<ops::scale>(const float *, float *, const float *);

// What real headers write: default member initializers, default arguments, by-value enums
// (plain and scoped, with a base type), dim3 and uint3.
enum pool_op { POOL_MAX, POOL_AVG = 4, POOL_SUM };
namespace nn { enum class act : unsigned char { relu = 1, gelu }; }
struct bias_params { const float *bias = nullptr; float scale = 1.0f, shift{0.0f}; int n = 0; };
__global__ void pool(const float *x, float *dst, const enum pool_op op, nn::act a, bias_params p, const float *mul = nullptr) {
    dst[0] = x[0] + (int)op + (int)a + p.scale + (mul ? *mul : 0.0f);
}
extern "C" __global__ void shape(float *dst, dim3 grid, uint3 block) { dst[0] = grid.x + block.y; }

// A type parameter named `r`, which Rust reads as the prefix of a raw string or identifier
// where text is pasted together.
template <typename r> __global__ void gen(r *x) { x[0] = (r)1; }
template __global__ void gen<float>(float *);
struct ref { int a; };
template <typename r> __global__ void gen_ref(r *x, ref y) { x[0] = (r)y.a; }
template __global__ void gen_ref<float>(float *, ref);

// A variadic template: each instance declared by its symbol.
template <typename... Args> __global__ void pack(float *out, Args... args) { out[0] = sizeof...(Args); }
template __global__ void pack<float, int>(float *, float, int);
template __global__ void pack<>(float *);
template __global__ void pack<Particle, double *>(float *, Particle, double *);
