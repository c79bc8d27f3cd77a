// Kernels whose parameters only the compiler's own facts type: class-template instances by
// value and through pointers, a typedef of one, a struct with a base class and methods,
// bit-fields, an enum of another header as a field, a kernel of an anonymous namespace taking
// a class template. Every kernel here is declared by the generator from nvcc's debug
// information (tests/downstream/generated/src/records.rs launches them).

#include "include/records_types.h"

template <typename T> struct View {
    T *data;
    int len;
    __device__ T &operator[](int i) const { return data[i]; }
};

template <int N, typename T> struct vec_t { T c[N]; };
typedef vec_t<3, float> vec3;

struct Tagged { int tag; };
struct Particle : Tagged {
    vec3 pos;
    double mass;
    __device__ double weight() const { return mass * 2.0; }
};

// Bit-fields, as a BVH packs a node's index and its leaf flag.
struct PackedNode {
    float x;
    unsigned int index : 31;
    unsigned int leaf : 1;
};

// A class template by value and one through a pointer, in a template.
template <typename T>
__global__ void scale_view(View<T> v, const View<T> *factors, T offset) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < v.len) v[i] = v[i] * factors->data[0] + offset;
}
template __global__ void scale_view<float>(View<float>, const View<float> *, float);
template __global__ void scale_view<double>(View<double>, const View<double> *, double);

// A typedef of a class-template instance, through pointers.
__global__ void add_vec3(const vec3 *a, const vec3 *b, vec3 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int k = 0; k < 3; k++) out[i].c[k] = a[i].c[k] + b[i].c[k];
}

// A struct with a base class and a method, by value.
__global__ void weigh(Particle p, double *out) { out[0] = p.weight() + p.tag + p.pos.c[2]; }

// Bit-fields.
__global__ void mark_leaves(PackedNode *nodes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        nodes[i].leaf = nodes[i].index % 2;
        nodes[i].x = (float)nodes[i].index;
    }
}

// A struct of another header, with an enum field and a method, by value.
__global__ void apply_options(Options o, float *x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < o.n) x[i] = o.apply(x[i]);
}

namespace {
// A kernel of an anonymous namespace taking a class template.
__global__ void fill_view(View<int> v, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < v.len) v.data[i] = value + i;
}
}

void launch_fill_view(View<int> v) { fill_view<<<1, 32>>>(v, 7); }
