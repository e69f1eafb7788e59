#pragma once
// The benchmark phase of a sweep: runs cells (kernel x problem) in gconv-worker processes, one
// worker per batch of cells of one problem, and turns every cell into exactly one ResultRow,
// whatever the worker does (crash, hang, garbage, early exit). With several GPUs (slots), each
// GPU runs its workers one at a time and takes the next batch from one queue when it is idle.
// See docs/worker-protocol.md.
#include "csv/csv_writer.h"
#include "csv/result_row.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace gconv {

class EarlyWorkers;

struct BenchKernel {
    std::string name;        // the CSV's `kernel` and the content key's identity
    std::string code_object; // path of the compiled code object
    std::string entry;
    nlohmann::json config = nlohmann::json::object();
    // Non-empty when the kernel did not compile (the head of the compiler log): its cells are
    // recorded as compile_error, never run.
    std::string compile_error;
};

struct BenchProblem {
    Problem problem;
    nlohmann::json json = nlohmann::json::object(); // sent to the worker as is
    std::string key;                                // Problem::key(): the problem_key column
    int64_t problem_idx = 0;                        // index in its set
    std::string set;                                // registry key
};

struct BenchCell {
    size_t kernel = 0;  // index into BenchPlan::kernels
    size_t problem = 0; // index into BenchPlan::problems
};

struct BenchPlan {
    std::string variant, dtype, arch, device, toolchain;
    int warmup = 3;
    int repeat = 10;
    bool flush_l2 = false;
    bool launch_hold = true; // WorkerRequest::launch_hold
    uint64_t seed = 0;
    std::string baseline = "none"; // vendor library timed beside the kernels: none or cudnn
    std::vector<BenchKernel> kernels;
    std::vector<BenchProblem> problems;
    std::vector<BenchCell> cells;
};

struct BenchProgress {
    size_t done = 0;  // rows written plus cells skipped by resume
    size_t total = 0; // every cell of the plan
    size_t failures = 0;
    const ResultRow* last = nullptr; // the row just written (null for a skipped cell)
};

class ResultSink {
public:
    virtual ~ResultSink() = default;
    virtual void write(const ResultRow& row) = 0;
    virtual void progress(const BenchProgress&) {}
};

// The usual sink: every row to a CsvWriter, progress to a callback.
class CsvResultSink : public ResultSink {
public:
    explicit CsvResultSink(CsvWriter& writer,
                           std::function<void(const BenchProgress&)> on_progress = {})
        : writer_(writer), on_progress_(std::move(on_progress)) {}
    void write(const ResultRow& row) override { writer_.write(row); }
    void progress(const BenchProgress& p) override {
        if (on_progress_) on_progress_(p);
    }

private:
    CsvWriter& writer_;
    std::function<void(const BenchProgress&)> on_progress_;
};

// One GPU of the benchmark phase: its workers run one at a time, each started with the slot's
// environment (e.g. CUDA_VISIBLE_DEVICES=1), and the rows they measure name the slot's device.
struct BenchSlot {
    std::string device_index; // the rows' device_index column: the GPU as named to --devices
    std::string device;       // the rows' device column (its name); empty: BenchPlan::device
    std::vector<std::string> environment; // NAME=VALUE on top of BenchOptions::worker_environment
    std::filesystem::path worker_log;     // its workers' stderr; empty: BenchOptions::worker_log
};

struct BenchOptions {
    std::vector<std::string> worker_command;     // argv of gconv-worker (argv[0] = its path)
    std::vector<std::string> worker_environment; // NAME=VALUE added to the worker's environment
    std::filesystem::path worker_log;            // the workers' stderr is appended here
    size_t batch_size = 20;
    // Batches one worker serves (gconv-worker --serve) before a fresh one replaces it; 0: no
    // limit (a worker is replaced only when it fails); 1: a fresh worker and GPU context for
    // every batch, without --serve.
    size_t batches_per_worker = 0;
    // Longest wait for the next line of a worker; restarts at each line (so at each "begin").
    double kernel_timeout_s = 30.0;
    std::chrono::milliseconds terminate_grace{500}; // SIGTERM to SIGKILL
    // Returns a reason when the kernel cannot run the problem: recorded as unsupported, not run.
    std::function<std::optional<std::string>(const BenchPlan&, const BenchCell&)> unsupported;
    // The GPUs (one slot each), each taking the next batch when idle; empty: one slot with no
    // device_index. Their logs must differ (a crash row quotes the tail of its worker's log).
    std::vector<BenchSlot> gpus;
    // Content keys already in the output (resume): those cells are skipped.
    std::unordered_set<std::string> done_keys;
    // When it becomes true (e.g. from a signal handler), the phase stops within ~100 ms: the
    // worker in flight is killed, its cell gets no row (a resume re-runs it), no new worker
    // starts, and run_benchmarks returns with BenchSummary::stopped set.
    const std::atomic<bool>* stop = nullptr;
    // Serving workers started ahead of the phase (sweep/early_workers.h), one per slot: each
    // slot's first worker is the one started for it, when it is still alive. Ignored with
    // batches_per_worker 1.
    EarlyWorkers* early = nullptr;
};

// What one slot (GPU) did.
struct BenchSlotSummary {
    std::string device_index;
    size_t batches = 0;
    size_t workers_started = 0;
    size_t rows_written = 0;   // rows of cells that went to this slot's workers
    size_t cells_measured = 0; // results received from its workers
    double busy_s = 0;         // sum of its batches' spans
};

struct BenchSummary {
    size_t cells_total = 0;
    size_t skipped_done = 0; // resume
    size_t rows_written = 0;
    std::map<CellStatus, size_t> by_status;
    size_t batches = 0;
    size_t workers_started = 0;
    std::vector<std::string> warnings; // e.g. invalid worker lines outside any cell
    bool stopped = false;              // BenchOptions::stop ended the phase early

    double wall_s = 0;      // the whole benchmark phase
    double timed_gpu_s = 0; // sum of latency_ms x repeat reported by workers
    // Sum of the cells' GPU spans (gpu_span_ms: verification, warm-ups and timed launches, as
    // the GPU's events saw them); 0 from workers that do not report it.
    double gpu_span_s = 0;
    size_t kernels_preloaded = 0; // code objects the workers loaded ahead of their cells
    double cell_span_s = 0;       // sum of "begin" to "result" times
    double worker_life_s = 0;     // sum of worker spawn to reap times
    // Sum of each batch's time from its request (or its worker's start) to its last event.
    double batch_span_s = 0;
    size_t cells_measured = 0; // results received from workers
    // (wall - timed GPU) / cells measured: everything that is not timed kernel work.
    double overhead_per_cell_ms = 0;
    // Per batch: its span minus its cells' spans (worker start-up where one was started,
    // request parsing, problem set-up).
    double overhead_per_batch_ms = 0;
    // Within cells: span minus timed GPU (warm-up, verification, allocation, event sync).
    double in_cell_overhead_ms = 0;
    // The timed share: timed GPU / (wall x slots). With `warmup` untimed launches per cell it
    // cannot pass repeat / (warmup + repeat).
    double gpu_busy_share = 0;
    // The GPU-work share: GPU spans / (wall x slots): the share of the GPUs' time spent on the
    // cells' own kernel work (verification, warm-ups, timed launches).
    double gpu_work_share = 0;
    std::vector<BenchSlotSummary> gpus; // in the order of BenchOptions::gpus
};

// Cell order in the output: resumed and unsupported cells first (no work), then batches
// grouped by problem in order of first appearance, cells in plan order within a problem; with
// several slots the batches run side by side, so their rows interleave (each row is written
// whole). The sink is called from one thread at a time, not always the caller's.
BenchSummary run_benchmarks(const BenchPlan& plan, const BenchOptions& options, ResultSink& sink);

// The content key of a cell (kernel name, problem key, arch, toolchain).
std::string cell_content_key(const BenchPlan& plan, const BenchCell& cell);

} // namespace gconv
