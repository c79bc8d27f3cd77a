/*
 * A libcuda.so that runs nothing: every entry point the `launch_path` example and the
 * `stub_driver` test reach answers at once, and cuLaunchKernel only counts and keeps what it was
 * given (the test reads it back). With it first on LD_LIBRARY_PATH, a machine without a
 * GPU measures what cuda-kernel's launch path costs the host by itself (the real driver's 3 to
 * 4 us a launch hides it, and its run-to-run spread is larger than the path). Not a driver:
 * nothing is allocated on a device, no PTX is read, and values are made up where a caller only
 * needs a plausible one (an H100's limits, CUDA 13.0).
 *
 * Built by scripts/launch-path.sh:  gcc -O2 -shared -fPIC -o libcuda.so.1 stub_driver.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
#define API __attribute__((visibility("default")))

static int context, module, function, aligned_function, stream;
static __thread void *current;

/* What the test reads back: launches, calls that read or change the thread's context, and the
 * last launch's configuration and packed parameters (CU_LAUNCH_PARAM_BUFFER_POINTER). */
API volatile unsigned long long stub_launches;
API unsigned long long stub_context_calls;
API unsigned stub_last_dims[7]; /* grid x y z, block x y z, dynamic shared memory */
API unsigned char stub_last_params[4096];
API size_t stub_last_params_len;

API CUresult cuInit(unsigned flags) { return 0; }
/* CUDA 13.0, or the version STUB_DRIVER_VERSION gives (12000: a driver without parameter info). */
API CUresult cuDriverGetVersion(int *v) {
    const char *version = getenv("STUB_DRIVER_VERSION");
    *v = version ? atoi(version) : 13000;
    return 0;
}
API CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
API CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return ordinal == 0 ? 0 : 101; }
API CUresult cuDeviceGetName(char *name, int len, CUdevice d) { strncpy(name, "stub", len); return 0; }
API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { *bytes = 1ull << 34; return 0; }
API CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) { *ctx = &context; return 0; }
API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return 0; }
API CUresult cuCtxSetCurrent(void *ctx) { stub_context_calls++; current = ctx; return 0; }
API CUresult cuCtxGetCurrent(void **ctx) { stub_context_calls++; *ctx = current; return 0; }
API CUresult cuCtxPushCurrent_v2(void *ctx) { stub_context_calls++; current = ctx; return 0; }
API CUresult cuCtxPopCurrent_v2(void **ctx) {
    stub_context_calls++;
    if (ctx) *ctx = current;
    return 0;
}
API CUresult cuCtxGetDevice(CUdevice *d) { *d = 0; return 0; }
API CUresult cuCtxSynchronize(void) { return 0; }

/* CU_DEVICE_ATTRIBUTE_*: an H100's answers where a launch check reads them. */
API CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice d) {
    switch (attribute) {
    case 1: case 2: case 3: *v = 1024; break;        /* threads per block, block x and y */
    case 4: *v = 64; break;                          /* block z */
    case 5: *v = 0x7fffffff; break;                  /* grid x */
    case 6: case 7: *v = 65535; break;               /* grid y and z */
    case 75: *v = 9; break;                          /* compute capability major */
    case 76: *v = 0; break;                          /* minor */
    case 97: *v = 232448; break;                     /* shared memory per block, opt-in */
    default: *v = 1;
    }
    return 0;
}

API CUresult cuStreamCreate(void **s, unsigned flags) { *s = &stream; return 0; }
API CUresult cuStreamDestroy_v2(void *s) { return 0; }
API CUresult cuStreamSynchronize(void *s) { return 0; }
API CUresult cuStreamWaitEvent(void *s, void *e, unsigned flags) { return 0; }
/* Events: each its own handle, counted (the test reads how many were created); all done at once. */
API volatile unsigned long long stub_events_created;
API CUresult cuEventCreate(void **e, unsigned flags) {
    *e = malloc(1);
    __atomic_fetch_add(&stub_events_created, 1, __ATOMIC_RELAXED);
    return 0;
}
API CUresult cuEventRecord(void *e, void *s) { return 0; }
API CUresult cuEventQuery(void *e) { return 0; }
API CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
API CUresult cuModuleLoadData(void **m, const void *image) { *m = &module; return 0; }
API CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned n, int *o, void **v) {
    *m = &module;
    return 0;
}
API CUresult cuModuleUnload(void *m) { return 0; }
API CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
    *f = strcmp(name, "aligned_echo") == 0 ? (void *)&aligned_function : (void *)&function;
    return 0;
}
/* aligned_echo(unsigned char, Block64 (256 bytes, align 64), double4_32a, unsigned short,
   unsigned char*) as an H100 places it: 0, 48, 304, 336, 344 (the C rule: 0, 64, 320, 352, 360).
   Every other function is empty4(const float*, const float*, float*, unsigned). */
API CUresult cuFuncGetParamInfo(void *f, size_t i, size_t *offset, size_t *size) {
    static const size_t aligned[5][2] = {{0, 1}, {48, 256}, {304, 32}, {336, 2}, {344, 8}};
    if (f == &aligned_function) {
        if (i >= 5) return 1;
        *offset = aligned[i][0];
        *size = aligned[i][1];
        return 0;
    }
    if (i >= 4) return 1; /* CUDA_ERROR_INVALID_VALUE: past the last parameter */
    *offset = i * 8;
    *size = i == 3 ? 4 : 8;
    return 0;
}
/* The dynamic shared memory limit (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8): the
   default 48 KiB; every other attribute 0, as for a kernel compiled without a cluster shape. */
API CUresult cuFuncGetAttribute(int *v, int attribute, void *f) {
    *v = attribute == 8 ? 48 * 1024 : 0;
    return 0;
}
API CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, void *s) {
    *p = (CUdeviceptr)(uintptr_t)malloc(n + 16);
    return 0;
}
API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { return cuMemAllocAsync(p, n, 0); }
API CUresult cuMemFreeAsync(CUdeviceptr p, void *s) { free((void *)(uintptr_t)p); return 0; }
API CUresult cuMemFree_v2(CUdeviceptr p) { return cuMemFreeAsync(p, 0); }
API CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void *s) { return 0; }
API CUresult cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_STUB"; return 0; }
API CUresult cuGetErrorString(CUresult e, const char **s) { *s = "the stub driver"; return 0; }
API CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                                 unsigned long long flags, int *status) {
    *fn = dlsym(RTLD_DEFAULT, symbol);
    if (status) *status = *fn ? 0 : 1;
    return *fn ? 0 : 500; /* CUDA_ERROR_NOT_FOUND */
}
API CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned shared, void *s, void **params,
                            void **extra) {
    unsigned dims[7] = {gx, gy, gz, bx, by, bz, shared};
    memcpy(stub_last_dims, dims, sizeof dims);
    const void *buffer = 0;
    size_t size = 0;
    for (void **e = extra; e && *e != (void *)0; e += 2) { /* CU_LAUNCH_PARAM_END is 0 */
        if (*e == (void *)1) buffer = e[1];                /* CU_LAUNCH_PARAM_BUFFER_POINTER */
        else if (*e == (void *)2) size = *(size_t *)e[1];  /* CU_LAUNCH_PARAM_BUFFER_SIZE */
    }
    stub_last_params_len = buffer && size <= sizeof stub_last_params ? size : 0;
    if (stub_last_params_len) memcpy(stub_last_params, buffer, stub_last_params_len);
    stub_launches++;
    return 0;
}
