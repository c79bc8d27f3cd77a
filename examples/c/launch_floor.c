/* The driver's own floor for examples/launch_overhead.rs: host time per cuLaunchKernel of the
 * same empty kernels (0, 4, 16 and 64 parameters) from C, in the same run on the same machine.
 *
 *   nvcc -O2 -o launch_floor examples/c/launch_floor.c -lcuda
 *   ./launch_floor kernels/ptx/vector_add.ptx kernels/ptx/plans.ptx
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LAUNCHES 20000
#define ROUNDS 7

#define CHECK(call)                                                                           \
    do {                                                                                      \
        CUresult r_ = (call);                                                                 \
        if (r_ != CUDA_SUCCESS) {                                                             \
            const char *name_ = "?";                                                          \
            cuGetErrorName(r_, &name_);                                                       \
            fprintf(stderr, "launch_floor: %s failed: %s\n", #call, name_);                   \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "launch_floor: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc(size + 1);
    if (fread(text, 1, size, f) != (size_t)size) {
        exit(1);
    }
    text[size] = 0;
    fclose(f);
    return text;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: launch_floor vector_add.ptx plans.ptx\n");
        return 2;
    }
    CUdevice device;
    CUcontext ctx;
    CUstream stream;
    CUmodule vector_add, plans;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CHECK(cuModuleLoadData(&vector_add, read_file(argv[1])));
    CHECK(cuModuleLoadData(&plans, read_file(argv[2])));
    const char *names[4] = {"empty0", "empty4", "empty16", "empty64"};
    int counts[4] = {0, 4, 16, 64};
    unsigned int values[64];
    void *params[64];
    for (int i = 0; i < 64; i++) {
        values[i] = 7;
        params[i] = &values[i];
    }
    /* empty4 takes three pointers and a count: 8-byte values there. */
    unsigned long long pointers[3] = {0, 0, 0};
    void *params4[4] = {&pointers[0], &pointers[1], &pointers[2], &values[0]};
    printf("C, cuLaunchKernel with kernelParams (%d launches a round, median of %d):\n", LAUNCHES, ROUNDS);
    for (int k = 0; k < 4; k++) {
        CUfunction f;
        CHECK(cuModuleGetFunction(&f, k == 1 ? vector_add : plans, names[k]));
        void **p = counts[k] == 0 ? NULL : (k == 1 ? params4 : params);
        double rounds[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            CHECK(cuStreamSynchronize(stream));
            double start = now();
            for (int i = 0; i < LAUNCHES; i++) {
                CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, stream, p, NULL));
            }
            CHECK(cuStreamSynchronize(stream));
            rounds[r] = (now() - start) / LAUNCHES * 1e6;
        }
        qsort(rounds, ROUNDS, sizeof(double), compare);
        printf("  %2d parameters: %6.3f us per launch\n", counts[k], rounds[ROUNDS / 2]);
    }
    return 0;
}
