// The multi-GPU example's kernels: fill, SAXPY and a dot product's per-block partial sums, over
// size_t counts (2^30 elements and more).

extern "C" __global__ void fill_f32(float *x, float value, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        x[i] = value;
    }
}

// y = a * x + y
extern "C" __global__ void saxpy_n(const float *x, float *y, float a, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

// *sum += x . y, each block adding its partial sum (in double) once. Blocks of 256 threads.
extern "C" __global__ void dot_partial(const float *x, const float *y, double *sum, size_t n)
{
    __shared__ double partial[256];
    double acc = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x) {
        acc += (double)x[i] * (double)y[i];
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            partial[threadIdx.x] += partial[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(sum, partial[0]);
    }
}
