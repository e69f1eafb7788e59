#pragma once
// One GPU of the benchmark phase (part of bench_runner): runs batches of cells in gconv-worker
// processes on that GPU, one worker at a time, and turns whatever a worker does into exactly
// one row per cell through its host. The rules are those of docs/worker-protocol.md.
#include "sweep/bench_runner.h"
#include "sweep/early_workers.h"
#include "sweep/process.h"
#include "sweep/worker_protocol.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gconv {

// Keeps error texts readable in a CSV cell and a table view: at most `limit` bytes (the end of
// the text), no trailing line breaks or blanks.
std::string clip_text(std::string text, size_t limit = 1500);

// What a slot needs from the phase that owns it; called from the slot's thread.
class SlotHost {
public:
    virtual ~SlotHost() = default;
    // True once the phase is to end (a stop request, or another slot failed).
    virtual bool stop_now() = 0;
    virtual void emit_failure(size_t cell, CellStatus status, std::string error,
                              const BenchSlot& slot) = 0;
    virtual void emit_result(size_t cell, const WorkerCellResult& result,
                             const BenchSlot& slot) = 0;
};

// Timings and counts of one slot, summed into BenchSummary when the phase ends.
struct SlotStats {
    BenchSlotSummary summary;
    double timed_gpu_s = 0;
    double gpu_span_s = 0; // the workers' gpu_span_ms, summed
    size_t kernels_preloaded = 0;
    double cell_span_s = 0;
    double worker_life_s = 0;
    std::vector<std::string> warnings;
};

class WorkerSlot {
public:
    WorkerSlot(const BenchPlan& plan, const BenchOptions& options, BenchSlot slot, SlotHost& host);
    ~WorkerSlot();
    WorkerSlot(const WorkerSlot&) = delete;
    WorkerSlot& operator=(const WorkerSlot&) = delete;

    // Starts workers until every cell of `batch` (indices into plan.cells, one problem) has its
    // row, or the host says stop (the cell in flight then gets none).
    void run_batch(const std::vector<size_t>& batch);
    // Ends the live worker, if any (closing its stdin lets a serving worker exit by itself).
    void retire_worker();
    // Takes a serving worker started ahead (early_workers.h) as the slot's live worker; the
    // answers to its preloads are read before its first batch's. A worker that dies while
    // preloading is blamed on no cell: a warning, and a new worker takes the batch.
    void adopt(StartedWorker worker);

    const SlotStats& stats() const { return stats_; }

private:
    using Clock = std::chrono::steady_clock;

    bool serving() const { return options_.batches_per_worker != 1; }
    ChildProcess::ReadStatus read_line_or_stop(ChildProcess& child, std::string& line,
                                               Clock::time_point deadline);
    WorkerRequest make_request(const std::vector<size_t>& cells) const;
    void failure(size_t cell, CellStatus status, std::string error);
    // Counts the preloaded kernels answered so far and turns load errors into warnings.
    void keep_preload_results();

    const BenchPlan& plan_;
    const BenchOptions& options_;
    BenchSlot slot_;
    SlotHost& host_;
    Clock::duration timeout_{};
    SlotStats stats_;
    std::unique_ptr<ChildProcess> worker_;
    OutstandingPreloads preloads_; // of the live worker
    Clock::time_point worker_spawned_{};
    size_t worker_batches_ = 0; // batches the live worker has finished
};

} // namespace gconv
