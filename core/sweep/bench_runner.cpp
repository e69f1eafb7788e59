#include "sweep/bench_runner.h"

#include "csv/content_key.h"
#include "sweep/process.h"
#include "sweep/worker_protocol.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace gconv {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// Keeps error texts readable in a CSV cell and a table view.
std::string clip(std::string text, size_t limit = 1500) {
    if (text.size() > limit) text = "..." + text.substr(text.size() - limit);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

class Runner {
public:
    Runner(const BenchPlan& plan, const BenchOptions& options, ResultSink& sink)
        : plan_(plan), options_(options), sink_(sink) {
        timeout_ = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(std::max(options.kernel_timeout_s, 0.001)));
    }

    BenchSummary run() {
        const auto start = Clock::now();
        summary_.cells_total = plan_.cells.size();
        if (options_.worker_command.empty())
            throw Error("benchmark phase: no worker command given");
        if (options_.batch_size == 0) throw Error("benchmark phase: batch size must be >= 1");

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
                emit_failure(i, CellStatus::CompileError, failed);
                continue;
            }
            if (options_.unsupported) {
                if (auto reason = options_.unsupported(plan_, cell)) {
                    emit_failure(i, CellStatus::Unsupported, *reason);
                    continue;
                }
            }
            runnable.push_back(i);
        }

        // Group by problem (stable), so one worker reuses its allocations across a batch.
        std::unordered_map<size_t, size_t> group_of;
        std::vector<std::vector<size_t>> groups;
        for (size_t i : runnable) {
            auto [it, fresh] = group_of.try_emplace(plan_.cells[i].problem, groups.size());
            if (fresh) groups.emplace_back();
            groups[it->second].push_back(i);
        }
        for (const auto& group : groups)
            for (size_t at = 0; at < group.size() && !stop_now(); at += options_.batch_size) {
                const size_t end = std::min(group.size(), at + options_.batch_size);
                run_batch(std::vector<size_t>(group.begin() + at, group.begin() + end));
            }
        retire_worker();

        summary_.wall_s = seconds_between(start, Clock::now());
        if (summary_.cells_measured) {
            summary_.overhead_per_cell_ms = 1e3 * (summary_.wall_s - summary_.timed_gpu_s) /
                                            static_cast<double>(summary_.cells_measured);
            summary_.in_cell_overhead_ms = 1e3 * (summary_.cell_span_s - summary_.timed_gpu_s) /
                                           static_cast<double>(summary_.cells_measured);
        }
        if (summary_.batches)
            summary_.overhead_per_batch_ms = 1e3 * (summary_.batch_span_s - summary_.cell_span_s) /
                                             static_cast<double>(summary_.batches);
        if (summary_.wall_s > 0) summary_.gpu_busy_share = summary_.timed_gpu_s / summary_.wall_s;
        return summary_;
    }

private:
    bool stop_now() {
        if (options_.stop && options_.stop->load()) summary_.stopped = true;
        return summary_.stopped;
    }

    // The worker's next line; with a stop flag, waits in slices of 100 ms to look at it.
    ChildProcess::ReadStatus read_line_or_stop(ChildProcess& child, std::string& line,
                                               Clock::time_point deadline) {
        for (;;) {
            const auto slice =
                options_.stop ? std::min(deadline, Clock::now() + std::chrono::milliseconds(100))
                              : deadline;
            const auto status = child.read_line(line, slice);
            if (status != ChildProcess::ReadStatus::Timeout || slice >= deadline || stop_now())
                return status;
        }
    }

    ResultRow base_row(size_t cell_index) const {
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
        row.device = plan_.device;
        row.toolchain = plan_.toolchain;
        row.content_key = cell_content_key(plan_, cell);
        row.problem_key = problem.key;
        row.set = problem.set;
        row.warmup = plan_.warmup;
        row.repeat = plan_.repeat;
        return row;
    }

    void emit(ResultRow& row) {
        row.timestamp = utc_timestamp_now();
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

    void emit_failure(size_t cell_index, CellStatus status, std::string error) {
        ResultRow row = base_row(cell_index);
        row.status = status;
        row.error = clip(std::move(error));
        emit(row);
    }

    void emit_result(size_t cell_index, const WorkerCellResult& result) {
        ResultRow row = base_row(cell_index);
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
        row.error = clip(result.error);
        emit(row);
    }

    WorkerRequest make_request(const std::vector<size_t>& cells) const {
        WorkerRequest request;
        request.variant = plan_.variant;
        request.dtype = plan_.dtype;
        request.warmup = plan_.warmup;
        request.repeat = plan_.repeat;
        request.flush_l2 = plan_.flush_l2;
        request.seed = plan_.seed;
        request.baseline = plan_.baseline;
        std::vector<bool> kernel_added(plan_.kernels.size()), problem_added(plan_.problems.size());
        for (size_t i : cells) {
            const BenchCell& cell = plan_.cells[i];
            if (!kernel_added[cell.kernel]) {
                kernel_added[cell.kernel] = true;
                const BenchKernel& k = plan_.kernels[cell.kernel];
                request.kernels.push_back(
                    {static_cast<int64_t>(cell.kernel), k.name, k.code_object, k.entry,
                     k.config.is_null() ? nlohmann::json::object() : k.config});
            }
            if (!problem_added[cell.problem]) {
                problem_added[cell.problem] = true;
                request.problems.push_back(
                    {static_cast<int64_t>(cell.problem), plan_.problems[cell.problem].json});
            }
            request.cells.push_back({static_cast<int64_t>(i), static_cast<int64_t>(cell.kernel),
                                     static_cast<int64_t>(cell.problem)});
        }
        return request;
    }

    std::string with_tail(std::string text, const ChildProcess& child) const {
        std::string tail = clip(child.stderr_tail(1200), 1000);
        if (!tail.empty()) text += "; stderr tail: " + tail;
        return text;
    }

    // One batch: workers are started until every cell of it has its row.
    void run_batch(const std::vector<size_t>& batch) {
        ++summary_.batches;
        size_t next = 0; // first cell of the batch without a row
        // Workers that ended with no cell to blame, per cell that was next in line.
        std::vector<int> unexplained(batch.size(), 0);
        while (next < batch.size() && !stop_now()) {
            const std::vector<size_t> rest(batch.begin() + next, batch.end());
            const auto batch_start = Clock::now();
            if (!worker_) {
                ProcessOptions process;
                process.argv = options_.worker_command;
                if (serving()) process.argv.push_back("--serve");
                process.environment = options_.worker_environment;
                process.stderr_log = options_.worker_log;
                worker_spawned_ = Clock::now();
                try {
                    worker_.emplace(process);
                } catch (const Error& e) {
                    for (size_t i : rest) emit_failure(i, CellStatus::Error, e.what());
                    return;
                }
                ++summary_.workers_started;
                worker_batches_ = 0;
            }
            ChildProcess* child = &*worker_;
            const std::string request = to_json(make_request(rest)).dump() + "\n";
            if (serving())
                child->send(request);
            else
                child->send_and_close_stdin(request);
            bool keep_worker = false; // it answered the whole batch and may serve the next
            const size_t next_at_start = next;
            std::optional<size_t> in_flight; // index into batch
            Clock::time_point began{};
            std::string reason; // set when the worker ended with no cell to blame
            CellStatus reason_status = CellStatus::Error;
            bool give_up_rest = false;
            std::string line;
            auto blame = [&](CellStatus status, std::string text) {
                emit_failure(batch[*in_flight], status, std::move(text));
                next = *in_flight + 1;
                in_flight.reset();
            };
            auto kill_worker = [&] { child->terminate(options_.terminate_grace); };

            for (bool done = false; !done && !stop_now();) {
                const auto status = read_line_or_stop(*child, line, Clock::now() + timeout_);
                // Stopping (a Ctrl-C reaches the worker too): the cell in flight gets no row.
                if (status != ChildProcess::ReadStatus::Line && stop_now()) break;
                if (status == ChildProcess::ReadStatus::Timeout) {
                    kill_worker();
                    char seconds[32];
                    std::snprintf(seconds, sizeof seconds, "%g", options_.kernel_timeout_s);
                    const std::string what = std::string("no word from the worker for ") + seconds +
                                             " s (--kernel-timeout); killed";
                    if (in_flight) {
                        summary_.cell_span_s += seconds_between(began, Clock::now());
                        blame(CellStatus::Timeout, with_tail(what, *child));
                    } else {
                        reason = what + " before it announced the cell";
                        reason_status = CellStatus::Timeout;
                    }
                    break;
                }
                if (status == ChildProcess::ReadStatus::EndOfFile) {
                    const ProcessExit exit = child->wait(Clock::now() + options_.terminate_grace);
                    const std::string partial = child->partial_line();
                    if (in_flight) {
                        summary_.cell_span_s += seconds_between(began, Clock::now());
                        if (exit.signal || partial.empty()) {
                            std::string what = "worker died during the cell: " + exit.describe();
                            if (exit.code == k_worker_exit_sticky) what += " (sticky GPU error)";
                            blame(CellStatus::Crash, with_tail(what, *child));
                        } else {
                            blame(CellStatus::Error,
                                  with_tail("truncated worker output (" + exit.describe() +
                                                "): \"" + clip(partial, 200) + "\"",
                                            *child));
                        }
                    } else if (exit.code == k_worker_exit_bad_request && !exit.signal) {
                        reason = with_tail("the worker rejected the request (exit code 2)", *child);
                        give_up_rest = true;
                    } else if (next < batch.size() && exit.code != k_worker_exit_sticky) {
                        reason = with_tail("the worker exited (" + exit.describe() +
                                               ") before reporting the cell",
                                           *child);
                    }
                    break;
                }
                const WorkerLine parsed = parse_worker_line(line);
                if (!parsed.event) {
                    if (in_flight) {
                        kill_worker();
                        summary_.cell_span_s += seconds_between(began, Clock::now());
                        blame(CellStatus::Error, "invalid worker output: " + parsed.error);
                        break;
                    }
                    summary_.warnings.push_back("invalid worker output outside a cell (ignored): " +
                                                parsed.error);
                    continue;
                }
                const WorkerEvent& event = *parsed.event;
                switch (event.kind) {
                case WorkerEvent::Kind::Begin:
                    if (in_flight || next >= batch.size() ||
                        event.cell != static_cast<int64_t>(batch[next])) {
                        kill_worker();
                        const std::string what =
                            "protocol violation: \"begin\" for cell " + std::to_string(event.cell) +
                            (in_flight
                                 ? " before the result of cell " + std::to_string(batch[*in_flight])
                                 : " out of order");
                        if (in_flight) {
                            summary_.cell_span_s += seconds_between(began, Clock::now());
                            blame(CellStatus::Error, what);
                        } else {
                            reason = what;
                        }
                        done = true;
                        break;
                    }
                    in_flight = next;
                    began = Clock::now();
                    break;
                case WorkerEvent::Kind::Result:
                    if (!in_flight || event.cell != static_cast<int64_t>(batch[*in_flight])) {
                        kill_worker();
                        const std::string what = "protocol violation: \"result\" for cell " +
                                                 std::to_string(event.cell) +
                                                 " that was not announced";
                        if (in_flight) {
                            summary_.cell_span_s += seconds_between(began, Clock::now());
                            blame(CellStatus::Error, what);
                        } else {
                            reason = what;
                        }
                        done = true;
                        break;
                    }
                    summary_.cell_span_s += seconds_between(began, Clock::now());
                    ++summary_.cells_measured;
                    if (has_value(event.result.latency_ms))
                        summary_.timed_gpu_s += event.result.latency_ms * plan_.repeat / 1e3;
                    emit_result(batch[*in_flight], event.result);
                    next = *in_flight + 1;
                    in_flight.reset();
                    break;
                case WorkerEvent::Kind::End:
                    if (next < batch.size()) {
                        reason = "the worker said \"end\" before reporting the cell";
                        kill_worker();
                    } else if (serving() && (options_.batches_per_worker == 0 ||
                                             ++worker_batches_ < options_.batches_per_worker)) {
                        keep_worker = true;
                    } else {
                        child->wait(Clock::now() + options_.terminate_grace);
                    }
                    done = true;
                    break;
                }
            }
            summary_.batch_span_s += seconds_between(batch_start, Clock::now());
            if (!keep_worker) {
                if (child->running()) kill_worker();
                if (!summary_.stopped && next == next_at_start && reason.empty())
                    reason = "the worker (" +
                             child->terminate(options_.terminate_grace).describe() +
                             ") ended without reporting any cell";
                retire_worker();
            }
            if (summary_.stopped) return;
            if (give_up_rest) {
                for (size_t k = next; k < batch.size(); ++k)
                    emit_failure(batch[k], CellStatus::Error, reason);
                return;
            }
            // No cell to blame: retry the rest once in a new worker; if the next cell is
            // again the one no worker got to, it gets the row and the rest go on.
            if (!reason.empty() && next < batch.size() && ++unexplained[next] >= 2) {
                emit_failure(batch[next], reason_status, reason + " (second worker in a row)");
                ++next;
            }
        }
    }

    // A worker serves batches (--serve) unless each batch is to get a fresh one.
    bool serving() const { return options_.batches_per_worker != 1; }

    // Ends the worker (closing its stdin lets a serving worker exit by itself) and books its life.
    void retire_worker() {
        if (!worker_) return;
        if (worker_->running()) {
            worker_->wait(Clock::now() + options_.terminate_grace);
        }
        summary_.worker_life_s += seconds_between(worker_spawned_, Clock::now());
        worker_.reset();
    }

    const BenchPlan& plan_;
    const BenchOptions& options_;
    ResultSink& sink_;
    Clock::duration timeout_{};
    BenchSummary summary_;
    size_t failures_ = 0;
    std::optional<ChildProcess> worker_;
    Clock::time_point worker_spawned_{};
    size_t worker_batches_ = 0; // batches the live worker has finished
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
