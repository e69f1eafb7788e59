#pragma once
// The device side of gconv-worker: runs one batch (WorkerRequest) in this process's GPU
// context, reporting every cell through `emit`: "begin" before its first launch, "result"
// after. Per problem the tensors are allocated once, filled with seeded random values and a
// reference is computed by a direct-convolution kernel accumulating in fp32.
#include "sweep/worker_protocol.h"

#include <filesystem>
#include <functional>

namespace gconv::worker {

struct BatchOptions {
    int device = 0;
    std::filesystem::path cache_root; // JIT cache of the reference kernels
};

// Returns the process exit code: k_worker_exit_ok, or k_worker_exit_sticky after a GPU error
// that leaves the context unusable (the cell in flight has been reported).
int run_batch(const WorkerRequest& request, const std::function<void(const WorkerEvent&)>& emit,
              const BatchOptions& options);

} // namespace gconv::worker
