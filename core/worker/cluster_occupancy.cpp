#include "worker/cluster_occupancy.h"

#include <dlfcn.h>

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
#if defined(GCONV_HIP_PLATFORM_NVIDIA)
    static const MaxActiveClusters q = [] {
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        return lib ? reinterpret_cast<MaxActiveClusters>(dlsym(lib, "cuOccupancyMaxActiveClusters"))
                   : nullptr;
    }();
    return q;
#else
    return nullptr;
#endif
}

} // namespace

unsigned max_active_clusters(hipFunction_t function, unsigned cluster, unsigned block_threads,
                             unsigned dynamic_shared_bytes) {
    const MaxActiveClusters q = query();
    if (!q || cluster < 2) return 0;
    const LaunchConfig config{cluster, 1,       1, block_threads, 1, 1, dynamic_shared_bytes,
                              nullptr, nullptr, 0};
    int clusters = 0;
    // On NVIDIA a hipFunction_t is the driver's CUfunction.
    if (q(&clusters, reinterpret_cast<void*>(function), &config) != 0 || clusters < 1) return 0;
    return static_cast<unsigned>(clusters);
}

} // namespace gconv::worker
