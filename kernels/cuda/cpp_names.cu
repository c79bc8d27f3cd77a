// Kernels whose symbols hold what no declaration derives, each declared by its C++ name
// (`#[kernel(name = "k_bin<op_add, float, int>")]` in kernels/src/lib.rs): instances of a
// variadic template over `static` device functions (nvcc's run-dependent internal namespace), a
// kernel of an anonymous namespace (a hash of the source's path), a `volatile` pointer, and
// class-template instances as parameters, by value and by pointer.

template <typename T>
struct View {
    T scale;
    int n;
};

template <typename T>
struct Element {
    T value;
    int tag;
};

static __device__ float op_repeat(float a, float b) { return a; }
static __device__ float op_add(float a, float b) { return a + b; }

// dst[i] = op(a[i], dst[i]) (+ extra for one extra int) for i < n.
template <float (*op)(float, float), typename T, typename... Extra>
__global__ void k_bin(const T *a, T *dst, int n, Extra... extra)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[i] = op(a[i], dst[i]) + (T)(0 + ... + extra);
    }
}

template __global__ void k_bin<op_repeat, float>(const float *, float *, int);
template __global__ void k_bin<op_add, float, int>(const float *, float *, int, int);

namespace {
// p[i] = v for i < n.
__global__ void anon_fill(float *p, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i] = v;
    }
}
}

// *flag = v, through a volatile pointer.
__global__ void raise_flag(int volatile *flag, int v) { *flag = v; }

// elements[i] = {elements[i].value * view.scale, i} for i < view.n.
template <typename T>
__global__ void apply_view(View<T> view, Element<T> *elements)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < view.n) {
        elements[i].value *= view.scale;
        elements[i].tag = i;
    }
}

template __global__ void apply_view<float>(View<float>, Element<float> *);
