// ptx-arch: compute_90
// Kernels for plans, programmatic dependent launches, launch overhead and faults.

// y[i] = x[i] + 1 after the previous kernel on the stream has finished (griddepcontrol.wait:
// a no-op without a programmatic dependency), letting the next one start early.
extern "C" __global__ void chain_step(const float *x, float *y, unsigned int n)
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] + 1.0f;
    }
    asm volatile("griddepcontrol.launch_dependents;");
}

// Empty kernels of 0, 16 and 64 parameters for the launch-overhead benchmark (empty4 is in
// vector_add.cu).
extern "C" __global__ void empty0() {}

extern "C" __global__ void empty16(unsigned int p0, unsigned int p1, unsigned int p2,
                                   unsigned int p3, unsigned int p4, unsigned int p5,
                                   unsigned int p6, unsigned int p7, unsigned int p8,
                                   unsigned int p9, unsigned int p10, unsigned int p11,
                                   unsigned int p12, unsigned int p13, unsigned int p14,
                                   unsigned int p15)
{
}

#define P8(b) unsigned int p##b##0, unsigned int p##b##1, unsigned int p##b##2, unsigned int p##b##3, \
              unsigned int p##b##4, unsigned int p##b##5, unsigned int p##b##6, unsigned int p##b##7
extern "C" __global__ void empty64(P8(0), P8(1), P8(2), P8(3), P8(4), P8(5), P8(6), P8(7)) {}

// Faults, for the tests that a fault surfaces as an error and never a panic.
extern "C" __global__ void trap_now() { __trap(); }

extern "C" __global__ void write_far(float *p)
{
    p[(size_t)1 << 40] = 1.0f;
}

// y[i] = x[i] * a + t, for the many-threads test: t identifies the launch.
extern "C" __global__ void tagged_axpy(const float *x, float *y, float a, float t, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * a + t;
    }
}
