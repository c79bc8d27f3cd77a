// Elementwise kernels as ggml's unary.cu and many inference backends write them: one template
// over the device function each applies, instantiated per op. The functions are `static`, and
// the file has no external symbol, so nvcc names them in an internal namespace whose last part
// is a counter that changes on every run of the same command
// (`_INTERNAL_<hash>_14_device_fns_cu_<hash>_<counter>`): the committed PTX is compared with
// it masked, and loading finds each instance by the function's name whatever the run gave it.

static __device__ float op_neg(float x) { return -x; }
static __device__ float op_square(float x) { return x * x; }
static __device__ float op_axpb(float x, float a) { return a * x + 1.0f; }

template <float (*op)(float), typename T>
__global__ void unary_op_kernel(const T *x, T *dst, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k) dst[i] = (T)op((float)x[i]);
}

template <int BLOCK, float (*op)(float, float)>
__global__ void binary_op_kernel(const float *x, float *dst, float a, int k)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < k) dst[i] = op(x[i], a);
}

template __global__ void unary_op_kernel<op_neg, float>(const float *, float *, int);
template __global__ void unary_op_kernel<op_square, float>(const float *, float *, int);
template __global__ void unary_op_kernel<op_square, double>(const double *, double *, int);
template __global__ void binary_op_kernel<256, op_axpb>(const float *, float *, float, int);
