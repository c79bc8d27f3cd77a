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
