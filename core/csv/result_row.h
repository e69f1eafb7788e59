#pragma once
// One row of the results CSV: one (kernel, problem) cell of a sweep, whatever became of it.
#include "problem/problem.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

// What became of a cell. `fail` means it ran but verification failed.
enum class CellStatus { Ok, Fail, CompileError, Unsupported, Crash, Timeout, Oom, Error };

std::string_view to_string(CellStatus status);
std::optional<CellStatus> cell_status_from_string(std::string_view text);
std::vector<std::string> cell_status_names();

inline constexpr double k_no_value = std::numeric_limits<double>::quiet_NaN();
inline bool has_value(double x) {
    return !std::isnan(x);
}

struct ResultRow {
    std::string kernel;
    int64_t problem_idx = 0;
    // Sizes, ndim_spatial (the `ndim` column) and layer (the `layer` column).
    Problem problem;

    // NaN is written as "N/A" (the seed's marker for a failed cell).
    double latency_ms = k_no_value;
    double tflops = 0.0;
    bool non_zero = false;

    CellStatus status = CellStatus::Ok;
    std::optional<bool> verified;
    // NaN is written as an empty field.
    double max_rel_err = k_no_value;
    double latency_median_ms = k_no_value;
    double cv = k_no_value;
    double gbps = k_no_value;
    double baseline_ms = k_no_value;
    double speedup = k_no_value;
    std::string error;

    std::string variant;
    std::string dtype;
    std::string arch;
    std::string device;
    // The GPU that ran the cell, as named to gconv-bench --devices (its index among the
    // devices the sweep saw); empty for a cell no GPU ran (compile_error, unsupported).
    std::string device_index;
    std::string toolchain;
    std::string content_key;
    std::string problem_key;
    std::string set; // problem-set registry key
    int warmup = 0;
    int repeat = 0;
    std::string timestamp; // ISO 8601 UTC, when the row was written

    bool operator==(const ResultRow&) const;
};

// "2026-01-31T12:34:56.789Z".
std::string utc_timestamp_now();

} // namespace gconv
