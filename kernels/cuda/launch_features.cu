// ptx-arch: compute_90
// Kernels for extended launches: thread-block clusters need sm_90, so this file is built for
// compute_90 (see scripts/regen-ptx.sh).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each thread-block writes its rank inside its cluster and the cluster's size.
extern "C" __global__ void cluster_rank(unsigned int *rank, unsigned int *size)
{
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) {
        rank[blockIdx.x] = cluster.block_rank();
        size[blockIdx.x] = cluster.num_blocks();
    }
}

// Two phases separated by a grid-wide barrier: each block writes its index, then (after the
// barrier) reads its neighbour's. Correct only when launched cooperatively.
extern "C" __global__ void grid_sync_neighbour(unsigned int *slots, unsigned int *seen)
{
    cg::grid_group grid = cg::this_grid();
    unsigned int nb = gridDim.x;
    if (threadIdx.x == 0) {
        slots[blockIdx.x] = blockIdx.x + 1;
    }
    grid.sync();
    if (threadIdx.x == 0) {
        seen[blockIdx.x] = slots[(blockIdx.x + 1) % nb];
    }
}
