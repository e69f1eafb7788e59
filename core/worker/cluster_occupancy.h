#pragma once
// How many thread-block clusters of a kernel can be resident at once: a persistent grid of
// clusters launches no more than that, since a cluster needs all its blocks on multiprocessors
// of one GPC and a GPC's count need not divide by the cluster size (an H100 holds 30 clusters
// of four 220 KB blocks on its 132 multiprocessors, not 33). The driver's
// cuOccupancyMaxActiveClusters, looked up at run time in libcuda as the tensor-map encoders are.
#include <hip/hip_runtime.h>

namespace gconv::worker {

// 0 when it cannot tell (an AMD build, no libcuda, a failed query): the caller falls back to
// multiprocessors / cluster.
unsigned max_active_clusters(hipFunction_t function, unsigned cluster, unsigned block_threads,
                             unsigned dynamic_shared_bytes);

} // namespace gconv::worker
