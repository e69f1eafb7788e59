#include "sweep/worker_slot.h"

#include "util/error.h"

#include <cstdio>
#include <utility>

namespace gconv {
namespace {

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

std::string clip_text(std::string text, size_t limit) {
    if (text.size() > limit) text = "..." + text.substr(text.size() - limit);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

WorkerSlot::WorkerSlot(const BenchPlan& plan, const BenchOptions& options, BenchSlot slot,
                       SlotHost& host)
    : plan_(plan), options_(options), slot_(std::move(slot)), host_(host) {
    if (slot_.worker_log.empty()) slot_.worker_log = options_.worker_log;
    if (slot_.device.empty()) slot_.device = plan_.device;
    stats_.summary.device_index = slot_.device_index;
    timeout_ = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(options.kernel_timeout_s, 0.001)));
}

WorkerSlot::~WorkerSlot() {
    retire_worker();
}

void WorkerSlot::failure(size_t cell, CellStatus status, std::string error) {
    host_.emit_failure(cell, status, std::move(error), slot_);
    ++stats_.summary.rows_written;
}

// The worker's next line, waiting in slices of 100 ms to see whether the phase is to stop (a
// stop request, or another slot failed).
ChildProcess::ReadStatus WorkerSlot::read_line_or_stop(ChildProcess& child, std::string& line,
                                                       Clock::time_point deadline) {
    for (;;) {
        const auto slice = std::min(deadline, Clock::now() + std::chrono::milliseconds(100));
        const auto status = child.read_line(line, slice);
        if (status != ChildProcess::ReadStatus::Timeout || slice >= deadline || host_.stop_now())
            return status;
    }
}

WorkerRequest WorkerSlot::make_request(const std::vector<size_t>& cells) const {
    WorkerRequest request;
    request.variant = plan_.variant;
    request.dtype = plan_.dtype;
    request.warmup = plan_.warmup;
    request.repeat = plan_.repeat;
    request.flush_l2 = plan_.flush_l2;
    request.launch_hold = plan_.launch_hold;
    request.seed = plan_.seed;
    request.baseline = plan_.baseline;
    std::vector<bool> kernel_added(plan_.kernels.size()), problem_added(plan_.problems.size());
    for (size_t i : cells) {
        const BenchCell& cell = plan_.cells[i];
        if (!kernel_added[cell.kernel]) {
            kernel_added[cell.kernel] = true;
            const BenchKernel& k = plan_.kernels[cell.kernel];
            request.kernels.push_back({static_cast<int64_t>(cell.kernel), k.name, k.code_object,
                                       k.entry,
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

namespace {

std::string with_tail(std::string text, const ChildProcess& child) {
    std::string tail = clip_text(child.stderr_tail(1200), 1000);
    if (!tail.empty()) text += "; stderr tail: " + tail;
    return text;
}

} // namespace

// Workers are started until every cell of the batch has its row.
void WorkerSlot::run_batch(const std::vector<size_t>& batch) {
    ++stats_.summary.batches;
    size_t next = 0; // first cell of the batch without a row
    // Workers that ended with no cell to blame, per cell that was next in line.
    std::vector<int> unexplained(batch.size(), 0);
    while (next < batch.size() && !host_.stop_now()) {
        const std::vector<size_t> rest(batch.begin() + next, batch.end());
        const auto batch_start = Clock::now();
        if (!worker_) {
            const ProcessOptions process = worker_process_options(options_, slot_, serving());
            worker_spawned_ = Clock::now();
            preloads_ = {};
            try {
                worker_ = std::make_unique<ChildProcess>(process);
            } catch (const Error& e) {
                for (size_t i : rest) failure(i, CellStatus::Error, e.what());
                return;
            }
            ++stats_.summary.workers_started;
            worker_batches_ = 0;
        }
        ChildProcess* child = worker_.get();
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
        // The worker died or misbehaved while loading code objects ahead of the batch: no cell
        // ran, none is blamed, and the next worker takes the whole rest.
        bool preload_lost = false;
        auto lose_preload = [&](const std::string& what) {
            stats_.warnings.push_back(
                clip_text("the worker " + what + " while loading " + preloads_.loading() +
                          " ahead of its cells; a new worker takes the batch; stderr tail: " +
                          child->stderr_tail(800)));
            preload_lost = true;
        };
        std::string line;
        auto blame = [&](CellStatus status, std::string text) {
            failure(batch[*in_flight], status, std::move(text));
            next = *in_flight + 1;
            in_flight.reset();
        };
        auto kill_worker = [&] { child->terminate(options_.terminate_grace); };
        // A reply that breaks the protocol ends the worker; the cell in flight, if any, gets it.
        auto violation = [&](const std::string& what) {
            kill_worker();
            if (in_flight) {
                stats_.cell_span_s += seconds_between(began, Clock::now());
                blame(CellStatus::Error, what);
            } else {
                reason = what;
            }
        };

        for (bool done = false; !done && !host_.stop_now();) {
            const auto status = read_line_or_stop(*child, line, Clock::now() + timeout_);
            // Stopping (a Ctrl-C reaches the worker too): the cell in flight gets no row.
            if (status != ChildProcess::ReadStatus::Line && host_.stop_now()) break;
            if (status == ChildProcess::ReadStatus::Timeout) {
                kill_worker();
                char seconds[32];
                std::snprintf(seconds, sizeof seconds, "%g", options_.kernel_timeout_s);
                const std::string what = std::string("no word from the worker for ") + seconds +
                                         " s (--kernel-timeout); killed";
                if (in_flight) {
                    stats_.cell_span_s += seconds_between(began, Clock::now());
                    blame(CellStatus::Timeout, with_tail(what, *child));
                } else if (!preloads_.empty()) {
                    lose_preload("said nothing for the --kernel-timeout and was killed");
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
                    stats_.cell_span_s += seconds_between(began, Clock::now());
                    if (exit.signal || partial.empty()) {
                        std::string what = "worker died during the cell: " + exit.describe();
                        if (exit.code == k_worker_exit_sticky) what += " (sticky GPU error)";
                        blame(CellStatus::Crash, with_tail(what, *child));
                    } else {
                        blame(CellStatus::Error,
                              with_tail("truncated worker output (" + exit.describe() + "): \"" +
                                            clip_text(partial, 200) + "\"",
                                        *child));
                    }
                } else if (!preloads_.empty()) {
                    lose_preload("died (" + exit.describe() + ")");
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
                    stats_.cell_span_s += seconds_between(began, Clock::now());
                    blame(CellStatus::Error, "invalid worker output: " + parsed.error);
                    break;
                }
                stats_.warnings.push_back("invalid worker output outside a cell (ignored): " +
                                          parsed.error);
                continue;
            }
            const WorkerEvent& event = *parsed.event;
            if (!preloads_.empty()) {
                // The worker answers its preloads before it reads the batch's request.
                if (const auto wrong = preloads_.take(event)) {
                    kill_worker();
                    lose_preload("was ended (" + *wrong + ")");
                    break;
                }
                keep_preload_results();
                continue;
            }
            switch (event.kind) {
            case WorkerEvent::Kind::Loaded:
                violation("protocol violation: \"loaded\" for kernel " +
                          std::to_string(event.kernel) + " with no preload sent");
                done = true;
                break;
            case WorkerEvent::Kind::Begin:
                if (in_flight || next >= batch.size() ||
                    event.cell != static_cast<int64_t>(batch[next])) {
                    violation(
                        "protocol violation: \"begin\" for cell " + std::to_string(event.cell) +
                        (in_flight
                             ? " before the result of cell " + std::to_string(batch[*in_flight])
                             : " out of order"));
                    done = true;
                    break;
                }
                in_flight = next;
                began = Clock::now();
                break;
            case WorkerEvent::Kind::Result:
                if (!in_flight || event.cell != static_cast<int64_t>(batch[*in_flight])) {
                    violation("protocol violation: \"result\" for cell " +
                              std::to_string(event.cell) + " that was not announced");
                    done = true;
                    break;
                }
                stats_.cell_span_s += seconds_between(began, Clock::now());
                ++stats_.summary.cells_measured;
                if (has_value(event.result.latency_ms))
                    stats_.timed_gpu_s += event.result.latency_ms * plan_.repeat / 1e3;
                if (has_value(event.result.gpu_span_ms))
                    stats_.gpu_span_s += event.result.gpu_span_ms / 1e3;
                host_.emit_result(batch[*in_flight], event.result, slot_);
                ++stats_.summary.rows_written;
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
        stats_.summary.busy_s += seconds_between(batch_start, Clock::now());
        if (!keep_worker) {
            if (child->running()) kill_worker();
            if (!host_.stop_now() && next == next_at_start && reason.empty() && !preload_lost)
                reason = "the worker (" + child->terminate(options_.terminate_grace).describe() +
                         ") ended without reporting any cell";
            retire_worker();
        }
        if (host_.stop_now()) return;
        if (give_up_rest) {
            for (size_t k = next; k < batch.size(); ++k)
                failure(batch[k], CellStatus::Error, reason);
            return;
        }
        // No cell to blame: retry the rest once in a new worker; if the next cell is
        // again the one no worker got to, it gets the row and the rest go on.
        if (!reason.empty() && next < batch.size() && ++unexplained[next] >= 2) {
            failure(batch[next], reason_status, reason + " (second worker in a row)");
            ++next;
        }
    }
}

void WorkerSlot::adopt(StartedWorker worker) {
    retire_worker();
    worker_ = std::move(worker.process);
    worker_spawned_ = worker.spawned;
    preloads_ = std::move(worker.preloads);
    keep_preload_results();
    ++stats_.summary.workers_started;
    worker_batches_ = 0;
}

void WorkerSlot::keep_preload_results() {
    stats_.kernels_preloaded += std::exchange(preloads_.loaded, 0);
    for (std::string& e : preloads_.load_errors)
        stats_.warnings.push_back(clip_text(
            "a code object did not load ahead of its cells (each of its cells says so): " + e));
    preloads_.load_errors.clear();
}

void WorkerSlot::retire_worker() {
    if (!worker_) return;
    if (worker_->running()) worker_->wait(Clock::now() + options_.terminate_grace);
    stats_.worker_life_s += seconds_between(worker_spawned_, Clock::now());
    worker_.reset();
    preloads_ = {};
}

} // namespace gconv
