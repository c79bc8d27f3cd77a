// Kernels that update a device-updatable graph node from the device (tests/attributes.rs).
// They call the device runtime (cudadevrt), so they are compiled with relocatable device code
// and linked, not built to PTX with kernels/cuda/:
//   nvcc -arch=sm_90 -rdc=true -cubin -o device_update_rel.cubin device_update.cu
//   nvlink -arch=sm_90 device_update_rel.cubin -L$CUDA/lib64 -lcudadevrt -o device_update.cubin
// (scripts/device-run.sh does this on the GPU machine).
#include <cuda_runtime.h>

// Adds `value` to each of the first `n` elements of `x`.
extern "C" __global__ void du_add_value(float *x, float value, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] += value;
    }
}

// Sets the `value` parameter (at byte 8) of the device-updatable node `node`, a launch of
// `du_add_value`, to `value`.
extern "C" __global__ void du_set_value(cudaGraphDeviceNode_t node, float value)
{
    cudaGraphKernelNodeSetParam(node, 8, &value, sizeof(value));
}
