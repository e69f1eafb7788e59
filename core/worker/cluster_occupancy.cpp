#include "worker/cluster_occupancy.h"

#include "worker/cuda_driver.h"

namespace gconv::worker {
namespace {

// Driver ABI (cuda.h, CUlaunchConfig since CUDA 12.0); the cluster shape is the kernel's own
// (__cluster_dims__), so no launch attribute is passed.
struct LaunchConfig {
    unsigned grid_x, grid_y, grid_z;
    unsigned block_x, block_y, block_z;
    unsigned shared_bytes;
    void* stream;
    void* attrs;
    unsigned attr_count;
};
using MaxActiveClusters = int (*)(int* clusters, void* function, const LaunchConfig* config);

MaxActiveClusters query() {
    static const auto q =
        reinterpret_cast<MaxActiveClusters>(cuda_driver_symbol("cuOccupancyMaxActiveClusters"));
    return q;
}

} // namespace

unsigned max_active_clusters(hipFunction_t function, unsigned cluster, unsigned block_threads,
                             unsigned dynamic_shared_bytes) {
    const MaxActiveClusters q = query();
    if (!q || cluster < 2) return 0;
    LaunchConfig config{};
    config.grid_x = cluster;
    config.grid_y = config.grid_z = config.block_y = config.block_z = 1;
    config.block_x = block_threads;
    config.shared_bytes = dynamic_shared_bytes;
    int clusters = 0;
    // On NVIDIA a hipFunction_t is the driver's CUfunction.
    if (q(&clusters, reinterpret_cast<void*>(function), &config) != 0 || clusters < 1) return 0;
    return static_cast<unsigned>(clusters);
}

} // namespace gconv::worker
