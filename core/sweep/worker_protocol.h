#pragma once
// The contract between gconv-bench and gconv-worker (docs/worker-protocol.md).
// The worker reads ONE request document on stdin, runs its cells in the order given, and writes
// one JSON line per event on stdout: "begin", flushed before a cell's first launch (so a crash
// is pinned on exactly that cell), "result" after it (flushed with the next "begin" or at the
// end), "end" once all are done.
#include "csv/result_row.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

inline constexpr int k_worker_protocol_version = 1;
inline constexpr int k_worker_exit_ok = 0;
inline constexpr int k_worker_exit_bad_request = 2;
// The GPU is unusable (sticky error): exits after reporting the cell; a new worker goes on.
inline constexpr int k_worker_exit_sticky = 3;

// The vendor libraries a batch can time beside its kernels: cuDNN (NVIDIA), MIOpen (ROCm).
const std::vector<std::string>& baseline_providers();
// "none" or one of baseline_providers().
bool is_baseline_choice(const std::string& name);

struct WorkerKernel {
    int64_t id = 0;
    std::string name;
    std::string code_object; // path of the compiled code object
    std::string entry;       // the kernel's entry symbol
    nlohmann::json config = nlohmann::json::object();
};

struct WorkerProblem {
    int64_t id = 0;
    nlohmann::json problem = nlohmann::json::object(); // the Problem's fields
};

struct WorkerCell {
    int64_t cell = 0; // the orchestrator's cell id, echoed in every event
    int64_t kernel = 0;
    int64_t problem = 0;
};

struct WorkerRequest {
    int protocol = k_worker_protocol_version;
    std::string variant;
    std::string dtype;
    int warmup = 3;
    int repeat = 10;
    bool flush_l2 = false;
    // Every timed run waits behind a stream hold until it is all queued (worker/stream_hold.h);
    // optional in the JSON, true when absent.
    bool launch_hold = true;
    uint64_t seed = 0;
    // A vendor library timed on every problem of the batch beside the kernels ("none" or one
    // of baseline_providers()); optional in the JSON, "none" when absent.
    std::string baseline = "none";
    std::vector<WorkerKernel> kernels;
    std::vector<WorkerProblem> problems;
    std::vector<WorkerCell> cells;
};

nlohmann::json to_json(const WorkerRequest& request);
// Strict: unknown keys, wrong types, a missing field, a cell naming an unknown kernel or problem
// id, repeated ids: throws gconv::Error naming the JSON path ("request.cells[3].kernel: ...").
WorkerRequest worker_request_from_json(const nlohmann::json& document);
WorkerRequest parse_worker_request(std::string_view text);

// A serving worker's other request: load these kernels' code objects now, ahead of the cells
// that need them (gconv-bench sends it while its build phase still compiles, so the loads do
// not keep the GPU idle later). Answered by one "loaded" event per kernel, in the order given,
// then "end". A kernel that fails to load is reported in its "loaded" event and again, as the
// result of each of its cells.
struct WorkerPreload {
    int protocol = k_worker_protocol_version;
    std::vector<WorkerKernel> kernels;
};
nlohmann::json to_json(const WorkerPreload& preload);
// True for a document with a "preload" key (the rest is checked by worker_preload_from_json).
bool is_preload_request(const nlohmann::json& document);
// Strict as worker_request_from_json; paths start with "preload".
WorkerPreload worker_preload_from_json(const nlohmann::json& document);

// What a worker may report for a cell. crash, timeout and compile_error are the orchestrator's.
bool worker_may_report(CellStatus status);

struct WorkerCellResult {
    CellStatus status = CellStatus::Ok;
    double latency_ms = k_no_value; // mean of `repeat` timed launches
    double latency_median_ms = k_no_value;
    double tflops = k_no_value;
    double gbps = k_no_value;
    double cv = k_no_value; // coefficient of variation of the timed launches
    std::optional<bool> non_zero;
    double max_rel_err = k_no_value;
    std::optional<bool> verified;
    // Mean latency of the baseline provider on the cell's problem (same data, same timing).
    double baseline_ms = k_no_value;
    // The GPU's span of the cell's own work, from an event before its first launch (the
    // poisoning, verified launch and check, warm-ups, timed launches) to the last timed
    // launch's event; absent from workers that predate it.
    double gpu_span_ms = k_no_value;
    std::string error;
};

struct WorkerEvent {
    enum class Kind { Begin, Result, End, Loaded };
    Kind kind = Kind::End;
    int64_t cell = 0;        // Begin and Result
    WorkerCellResult result; // Result
    int64_t kernel = 0;      // Loaded: the kernel's id in the preload request
    std::string load_error;  // Loaded: empty when the code object loaded
};

// One line, no line break. Absent numbers (NaN) and flags are left out.
std::string format_worker_event(const WorkerEvent& event);

struct WorkerLine {
    std::optional<WorkerEvent> event;
    std::string error; // when !event: what was wrong with the line
};
// Never throws: garbage, a wrong type, a missing or unknown field, a status a worker may not
// report, an ok result without a positive latency: an error saying what was wrong.
WorkerLine parse_worker_line(std::string_view line);

} // namespace gconv
