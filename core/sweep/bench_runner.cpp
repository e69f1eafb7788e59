#include "sweep/bench_runner.h"

#include "csv/content_key.h"
#include "sweep/early_workers.h"
#include "sweep/worker_slot.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace gconv {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// The phase: sorts out the cells that need no worker, queues the rest in batches and lets every
// slot (GPU) take the next batch when it is idle, one thread per slot when there are several.
// Rows, counts and progress go through one lock, so the sink sees one call at a time.
class Runner final : public SlotHost {
public:
    Runner(const BenchPlan& plan, const BenchOptions& options, ResultSink& sink)
        : plan_(plan), options_(options), sink_(sink) {}

    BenchSummary run() {
        const auto start = Clock::now();
        summary_.cells_total = plan_.cells.size();
        if (options_.worker_command.empty())
            throw Error("benchmark phase: no worker command given");
        if (options_.batch_size == 0) throw Error("benchmark phase: batch size must be >= 1");
        std::vector<BenchSlot> slots = options_.gpus;
        if (slots.empty()) slots.emplace_back();

        if (options_.early) {
            const std::vector<std::string> early = options_.early->take_warnings();
            summary_.warnings.insert(summary_.warnings.end(), early.begin(), early.end());
        }
        queue_batches(runnable_cells());
        std::vector<SlotStats> stats(slots.size());
        if (slots.size() == 1) {
            stats[0] = serve_slot(slots[0], 0);
        } else {
            std::vector<std::thread> threads;
            for (size_t i = 0; i < slots.size(); ++i)
                threads.emplace_back([&, i] {
                    try {
                        stats[i] = serve_slot(slots[i], i);
                    } catch (...) {
                        const std::lock_guard lock(mutex_);
                        if (!failure_) failure_ = std::current_exception();
                        abort_ = true;
                    }
                });
            for (auto& t : threads) t.join();
            if (failure_) std::rethrow_exception(failure_);
        }
        summary_.stopped = stop_seen_.load();
        for (const SlotStats& s : stats) add_up(s);

        summary_.wall_s = seconds_between(start, Clock::now());
        // Every slot's time counts: N GPUs for a second are N GPU-seconds of capacity.
        const double slot_seconds = summary_.wall_s * static_cast<double>(slots.size());
        if (summary_.cells_measured) {
            summary_.overhead_per_cell_ms = 1e3 * (slot_seconds - summary_.timed_gpu_s) /
                                            static_cast<double>(summary_.cells_measured);
            summary_.in_cell_overhead_ms = 1e3 * (summary_.cell_span_s - summary_.timed_gpu_s) /
                                           static_cast<double>(summary_.cells_measured);
        }
        if (summary_.batches)
            summary_.overhead_per_batch_ms = 1e3 * (summary_.batch_span_s - summary_.cell_span_s) /
                                             static_cast<double>(summary_.batches);
        if (slot_seconds > 0) {
            summary_.gpu_busy_share = summary_.timed_gpu_s / slot_seconds;
            summary_.gpu_work_share = summary_.gpu_span_s / slot_seconds;
        }
        return summary_;
    }

    bool stop_now() override {
        if (options_.stop && options_.stop->load()) stop_seen_ = true;
        return stop_seen_.load() || abort_.load();
    }

    void emit_failure(size_t cell, CellStatus status, std::string error,
                      const BenchSlot& slot) override {
        ResultRow row = base_row(cell, &slot);
        row.status = status;
        row.error = clip_text(std::move(error));
        emit(row);
    }

    void emit_result(size_t cell, const WorkerCellResult& result, const BenchSlot& slot) override {
        ResultRow row = base_row(cell, &slot);
        row.status = result.status;
        row.latency_ms = result.latency_ms;
        row.latency_median_ms = result.latency_median_ms;
        row.tflops = std::isnan(result.tflops) ? 0.0 : result.tflops;
        row.gbps = result.gbps;
        row.cv = result.cv;
        row.non_zero = result.non_zero.value_or(false);
        row.max_rel_err = result.max_rel_err;
        row.verified = result.verified;
        row.baseline_ms = result.baseline_ms;
        if (has_value(row.baseline_ms) && has_value(row.latency_ms) && row.latency_ms > 0)
            row.speedup = row.baseline_ms / row.latency_ms;
        row.error = clip_text(result.error);
        emit(row);
    }

private:
    // Rows for the cells that need no worker (resumed, compile errors, unsupported); the
    // others, in plan order.
    std::vector<size_t> runnable_cells() {
        std::vector<size_t> runnable;
        for (size_t i = 0; i < plan_.cells.size(); ++i) {
            const BenchCell& cell = plan_.cells[i];
            if (cell.kernel >= plan_.kernels.size() || cell.problem >= plan_.problems.size())
                throw Error("benchmark phase: cell " + std::to_string(i) +
                            " names a kernel or problem index out of range");
            if (options_.done_keys.count(cell_content_key(plan_, cell))) {
                ++summary_.skipped_done;
                report_progress(nullptr);
                continue;
            }
            if (const auto& failed = plan_.kernels[cell.kernel].compile_error; !failed.empty()) {
                emit_unrun(i, CellStatus::CompileError, failed);
                continue;
            }
            if (options_.unsupported) {
                if (auto reason = options_.unsupported(plan_, cell)) {
                    emit_unrun(i, CellStatus::Unsupported, *reason);
                    continue;
                }
            }
            runnable.push_back(i);
        }
        return runnable;
    }

    // Batches of one problem each (grouped stably, so a worker reuses its allocations).
    void queue_batches(const std::vector<size_t>& runnable) {
        std::unordered_map<size_t, size_t> group_of;
        std::vector<std::vector<size_t>> groups;
        for (size_t i : runnable) {
            auto [it, fresh] = group_of.try_emplace(plan_.cells[i].problem, groups.size());
            if (fresh) groups.emplace_back();
            groups[it->second].push_back(i);
        }
        for (const auto& group : groups)
            for (size_t at = 0; at < group.size(); at += options_.batch_size) {
                const size_t end = std::min(group.size(), at + options_.batch_size);
                batches_.emplace_back(group.begin() + at, group.begin() + end);
            }
    }

    // The next batch in the queue, or nothing once it is empty or the phase is to stop.
    std::optional<std::vector<size_t>> next_batch() {
        const std::lock_guard lock(mutex_);
        if (next_batch_ >= batches_.size() || stop_now()) return std::nullopt;
        return batches_[next_batch_++];
    }

    SlotStats serve_slot(const BenchSlot& spec, size_t index) {
        WorkerSlot slot(plan_, options_, spec, *this);
        if (options_.early && options_.batches_per_worker != 1)
            if (auto started = options_.early->take(index)) slot.adopt(std::move(*started));
        while (auto batch = next_batch()) slot.run_batch(*batch);
        slot.retire_worker();
        return slot.stats();
    }

    void add_up(const SlotStats& s) {
        summary_.batches += s.summary.batches;
        summary_.workers_started += s.summary.workers_started;
        summary_.cells_measured += s.summary.cells_measured;
        summary_.batch_span_s += s.summary.busy_s;
        summary_.timed_gpu_s += s.timed_gpu_s;
        summary_.gpu_span_s += s.gpu_span_s;
        summary_.kernels_preloaded += s.kernels_preloaded;
        summary_.cell_span_s += s.cell_span_s;
        summary_.worker_life_s += s.worker_life_s;
        summary_.warnings.insert(summary_.warnings.end(), s.warnings.begin(), s.warnings.end());
        summary_.gpus.push_back(s.summary);
    }

    // `slot` is the GPU whose worker the cell went to; null for a cell no worker saw.
    ResultRow base_row(size_t cell_index, const BenchSlot* slot) const {
        const BenchCell& cell = plan_.cells[cell_index];
        const BenchKernel& kernel = plan_.kernels[cell.kernel];
        const BenchProblem& problem = plan_.problems[cell.problem];
        ResultRow row;
        row.kernel = kernel.name;
        row.problem_idx = problem.problem_idx;
        row.problem = problem.problem;
        row.variant = plan_.variant;
        row.dtype = plan_.dtype;
        row.arch = plan_.arch;
        row.device = slot && !slot->device.empty() ? slot->device : plan_.device;
        if (slot) row.device_index = slot->device_index;
        row.toolchain = plan_.toolchain;
        row.content_key = cell_content_key(plan_, cell);
        row.problem_key = problem.key;
        row.set = problem.set;
        row.warmup = plan_.warmup;
        row.repeat = plan_.repeat;
        return row;
    }

    void emit_unrun(size_t cell_index, CellStatus status, std::string error) {
        ResultRow row = base_row(cell_index, nullptr);
        row.status = status;
        row.error = clip_text(std::move(error));
        emit(row);
    }

    void emit(ResultRow& row) {
        row.timestamp = utc_timestamp_now();
        const std::lock_guard lock(mutex_);
        sink_.write(row);
        ++summary_.rows_written;
        ++summary_.by_status[row.status];
        if (row.status != CellStatus::Ok) ++failures_;
        report_progress(&row);
    }

    void report_progress(const ResultRow* row) {
        BenchProgress progress;
        progress.done = summary_.rows_written + summary_.skipped_done;
        progress.total = summary_.cells_total;
        progress.failures = failures_;
        progress.last = row;
        sink_.progress(progress);
    }

    const BenchPlan& plan_;
    const BenchOptions& options_;
    ResultSink& sink_;
    BenchSummary summary_;
    size_t failures_ = 0;

    std::mutex mutex_; // rows, counts, progress and the queue
    std::vector<std::vector<size_t>> batches_;
    size_t next_batch_ = 0;
    std::atomic<bool> stop_seen_{false}; // BenchOptions::stop was seen: the phase ends early
    std::atomic<bool> abort_{false};     // a slot failed: the others stop
    std::exception_ptr failure_;
};

} // namespace

std::string cell_content_key(const BenchPlan& plan, const BenchCell& cell) {
    return content_key(plan.kernels[cell.kernel].name, plan.problems[cell.problem].key, plan.arch,
                       plan.toolchain);
}

BenchSummary run_benchmarks(const BenchPlan& plan, const BenchOptions& options, ResultSink& sink) {
    return Runner(plan, options, sink).run();
}

} // namespace gconv
