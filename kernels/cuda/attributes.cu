// ptx-arch: compute_90
// Kernels whose launch attributes have an effect one can see (tests/attributes.rs,
// examples/l2_window.rs).

// Every block's first thread spins until the host writes a nonzero value to `flag` (host
// memory mapped into the device's address space), then counts itself in `done`: the kernel
// runs until the host lets it go.
extern "C" __global__ void wait_for_flag(const unsigned int *flag, unsigned int *done)
{
    const volatile unsigned int *seen = flag;
    if (threadIdx.x == 0) {
        while (*seen == 0) {
            __nanosleep(1000);
        }
        atomicAdd(done, 1u);
    }
}

// Streams through `n` elements of `data`, multiplying each by an entry of a table of `m`
// (`lookup[i % m]`, the pattern of the CUDA Best Practices Guide's L2 example) reread on every
// pass; each thread writes its sum to `out`. A persisting L2 window over `lookup` keeps the
// table in L2 while `data` passes through it. The table index advances with the element index
// (no division in the loop), for a grid of fewer threads than `m`.
extern "C" __global__ void reread(const float *lookup, unsigned int m, const float *data,
                                  uint64_t n, float *out)
{
    uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    unsigned int j = (unsigned int)(first % m);
    unsigned int step = (unsigned int)(stride % m);
    float acc = 0.0f;
    for (uint64_t i = first; i < n; i += stride) {
        acc += lookup[j] * data[i];
        j += step;
        if (j >= m) {
            j -= m;
        }
    }
    out[first] = acc;
}

// Writes 1 to `flag` (host-mapped memory), where every device and the host see it.
extern "C" __global__ void set_flag(unsigned int *flag)
{
    *(volatile unsigned int *)flag = 1u;
    __threadfence_system();
}

// Adds `value` to each of `n` elements of `x`: the kernel of a plan's updatable node.
extern "C" __global__ void add_value(float *x, float value, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] += value;
    }
}
