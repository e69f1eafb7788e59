#pragma once
// The device side of gconv-worker: runs one batch (WorkerRequest) in this process's GPU
// context, reporting every cell through `emit`: "begin" before its first launch, "result"
// after. Per problem the tensors are allocated once, filled with seeded random values and a
// reference is computed by a direct-convolution kernel accumulating in fp32.
#include "sweep/worker_protocol.h"

#include <filesystem>
#include <functional>
#include <memory>

namespace gconv::worker {

struct BatchOptions {
    int device = 0;
    std::filesystem::path cache_root; // JIT cache of the reference kernels
};

// A worker's GPU state across the batches it serves (gconv-worker --serve): one context, the
// modules it has loaded and the problem now on the GPU stay for the next batch.
class Session {
public:
    // Makes the device's context current in this thread; throws GpuError without a device.
    explicit Session(const BatchOptions& options);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Runs one batch; returns k_worker_exit_ok, or k_worker_exit_sticky after a GPU error
    // that leaves the context unusable (the cell in flight has been reported).
    int run(const WorkerRequest& request, const std::function<void(const WorkerEvent&)>& emit);

private:
    class State;
    std::unique_ptr<State> state_;
};

// One batch in a new session. Returns the process exit code: k_worker_exit_ok, or
// k_worker_exit_sticky after a GPU error that leaves the context unusable (the cell in flight has
// been reported).
int run_batch(const WorkerRequest& request, const std::function<void(const WorkerEvent&)>& emit,
              const BatchOptions& options);

} // namespace gconv::worker
