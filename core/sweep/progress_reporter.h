#pragma once
// How a sweep tells the user where it is: a one-line progress bar on a terminal, one JSON
// event per line (--progress jsonl, for the explorer; docs/progress-events.md), or nothing.
#include "csv/result_row.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <string>

namespace gconv {

enum class ProgressMode { Bar, Jsonl, None };

class ProgressReporter {
public:
    // Bar output goes to `bar_stream` (stderr), JSON lines to stdout.
    explicit ProgressReporter(ProgressMode mode, std::FILE* bar_stream = stderr);

    void phase(const std::string& name, std::size_t total);
    // One finished item of the current phase; `failed` counts towards failures.
    void item(const nlohmann::json& details, bool failed);
    void message(const std::string& level, const std::string& text);
    void summary(const nlohmann::json& details);

    ProgressMode mode() const { return mode_; }

private:
    void emit(nlohmann::json event);
    void draw(bool final);

    ProgressMode mode_;
    std::FILE* bar_;
    std::string phase_;
    std::size_t total_ = 0, done_ = 0, failures_ = 0;
    std::chrono::steady_clock::time_point start_, last_draw_;
};

// The fields of the `cell` event for a written row: kernel, problem_idx, status, latency_ms,
// tflops, error and device (the GPU's device_index) when present, and `row` (every column of the
// full CSV form as the CSV writes it, csv/result_row_json.h); for a cell skipped by --resume
// (null): status "resumed" only.
nlohmann::json cell_event_details(const ResultRow* row);
// A row counts towards `failures` unless it is ok or unsupported.
bool counts_as_failure(const ResultRow& row);

} // namespace gconv
