#pragma once
// Benchmark workers started before the benchmark phase (gconv-bench starts them when its build
// phase begins): each makes its GPU context while the build compiles and loads the code objects
// of the kernels built so far (preload requests, docs/worker-protocol.md), so neither keeps the
// GPU idle once cells run. The orchestrating process itself still never touches the GPU.
#include "sweep/bench_runner.h"
#include "sweep/process.h"
#include "sweep/worker_protocol.h"

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gconv {

// The preloads sent to one worker whose "end" has not been read yet, oldest first; each holds
// the kernel ids still to be answered by a "loaded" event.
struct OutstandingPreloads {
    std::deque<std::deque<int64_t>> requests;
    std::map<int64_t, std::string> names; // kernel id -> name, for messages
    size_t loaded = 0;                    // kernels answered without an error
    std::vector<std::string> load_errors; // "kernel NAME: error" (each cell of it reports it too)

    bool empty() const { return requests.empty(); }
    void sent(const WorkerPreload& preload);
    // Applies a "loaded" or "end" event of the oldest preload; any other event, or one that does
    // not match what is outstanding, is a protocol violation: returns what was wrong.
    std::optional<std::string> take(const WorkerEvent& event);
    // The kernel the worker was loading (the first not yet answered), for a crash message.
    std::string loading() const;
};

// A serving worker started ahead of the phase, with what it has been sent.
struct StartedWorker {
    std::unique_ptr<ChildProcess> process;
    std::chrono::steady_clock::time_point spawned{};
    OutstandingPreloads preloads;
};

// How a benchmark slot starts its workers (argv, environment, stderr log); `serve` adds --serve.
ProcessOptions worker_process_options(const BenchOptions& options, const BenchSlot& slot,
                                      bool serve);

class EarlyWorkers {
public:
    // Starts one serving worker per GPU of `options` (options.gpus, or one slot), each sent an
    // empty preload so that it makes its GPU context now. A worker that cannot be started is
    // left to the benchmark phase, which starts its own and reports what goes wrong.
    explicit EarlyWorkers(const BenchOptions& options);
    ~EarlyWorkers();
    EarlyWorkers(const EarlyWorkers&) = delete;
    EarlyWorkers& operator=(const EarlyWorkers&) = delete;

    // Sends every live worker a preload of these kernels (ids: indices into BenchPlan::kernels)
    // and reads what the workers have answered so far, without waiting.
    void preload(const std::vector<WorkerKernel>& kernels);
    // Reads answers until every preload sent is answered or `deadline` passes (before something
    // else, such as the ceilings' measurement, is to have the GPU to itself).
    void settle(std::chrono::steady_clock::time_point deadline);
    // The worker started for slot `index` (in the order of BenchOptions::gpus), once; empty when
    // it could not be started or has died. Called from that slot's thread.
    std::optional<StartedWorker> take(size_t index);
    // What went wrong before the phase took the workers (a worker that died, a bad answer).
    std::vector<std::string> take_warnings();
    size_t count() const { return workers_.size(); }

private:
    // Reads the answers a worker has written, up to `deadline`; drops the worker when it dies
    // or breaks the protocol. Returns false when it was dropped.
    bool drain(size_t index, std::chrono::steady_clock::time_point deadline);

    const BenchOptions& options_;
    std::vector<std::optional<StartedWorker>> workers_;
    std::vector<std::string> warnings_;
};

} // namespace gconv
