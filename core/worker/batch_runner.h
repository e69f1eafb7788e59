#pragma once
// The device side of gconv-worker: runs one batch (WorkerRequest) in this process's GPU
// context, reporting every cell through an EventSink: "begin" before its first launch, "result"
// after. Per problem the tensors are allocated once, filled with seeded random values and a
// reference is computed by a direct-convolution kernel accumulating in fp32. The host work of
// the next cell overlaps the GPU's work on the current one (sweep/cell_pipeline.h).
#include "sweep/worker_protocol.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace gconv::worker {

// Where a batch's events go. `write` may buffer; `flush` pushes everything written so far to
// the reader. The runner flushes after every "begin" (so a cell's result and the next cell's
// announcement leave together, before that cell touches the GPU) and before it returns.
struct EventSink {
    std::function<void(const WorkerEvent&)> write;
    std::function<void()> flush;
};

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
    int run(const WorkerRequest& request, const EventSink& sink);

    // Loads the kernels' code objects ahead of their cells (docs/worker-protocol.md,
    // "Preloading"): one "loaded" event per kernel, flushed as it is done. A kernel that fails to
    // load keeps its error, which becomes the result of each of its cells. Returns
    // k_worker_exit_ok, or k_worker_exit_sticky after a GPU error that leaves the context
    // unusable (reported in that kernel's event).
    int preload(const WorkerPreload& preload, const EventSink& sink);

    // Where the worker's host time went over every batch so far, one line of key=value pairs
    // (docs/worker-protocol.md, "Host time split"), for the worker log.
    std::string host_time_split() const;

private:
    class State;
    std::unique_ptr<State> state_;
};

// One batch in a new session. Returns the process exit code: k_worker_exit_ok, or
// k_worker_exit_sticky after a GPU error that leaves the context unusable (the cell in flight has
// been reported).
int run_batch(const WorkerRequest& request, const EventSink& sink, const BatchOptions& options);

} // namespace gconv::worker
