// A particle step in CUDA's vector types, with device globals the host sets and reads:
// positions and velocities as float2 arrays, the wind as a float2 by value, the box as a
// __device__ float4 and a count of bounces as a __device__ unsigned int.

__device__ float4 bounds; // x0, y0, x1, y1
__device__ unsigned int bounces;

// One step of dt for the particles below n: the wind accelerates them, and one leaving the box
// comes back in mirrored, its velocity reversed on that axis, and counts a bounce.
extern "C" __global__ void advance(float2 *pos, float2 *vel, float2 wind, float dt, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 v = make_float2(vel[i].x + wind.x * dt, vel[i].y + wind.y * dt);
    float2 p = make_float2(pos[i].x + v.x * dt, pos[i].y + v.y * dt);
    if (p.x < bounds.x || p.x > bounds.z) {
        p.x = p.x < bounds.x ? 2.0f * bounds.x - p.x : 2.0f * bounds.z - p.x;
        v.x = -v.x;
        atomicAdd(&bounces, 1u);
    }
    if (p.y < bounds.y || p.y > bounds.w) {
        p.y = p.y < bounds.y ? 2.0f * bounds.y - p.y : 2.0f * bounds.w - p.y;
        v.y = -v.y;
        atomicAdd(&bounces, 1u);
    }
    pos[i] = p;
    vel[i] = v;
}
