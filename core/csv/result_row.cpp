#include "csv/result_row.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <utility>

namespace gconv {
namespace {

constexpr std::array<std::pair<CellStatus, std::string_view>, 8> k_status_names{{
    {CellStatus::Ok, "ok"},
    {CellStatus::Fail, "fail"},
    {CellStatus::CompileError, "compile_error"},
    {CellStatus::Unsupported, "unsupported"},
    {CellStatus::Crash, "crash"},
    {CellStatus::Timeout, "timeout"},
    {CellStatus::Oom, "oom"},
    {CellStatus::Error, "error"},
}};

bool same_number(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

bool same_shape(const Problem& a, const Problem& b) {
    return a.N == b.N && a.C == b.C && a.K == b.K && a.G == b.G && a.Di == b.Di && a.Hi == b.Hi &&
           a.Wi == b.Wi && a.Z == b.Z && a.Y == b.Y && a.X == b.X && a.stride_d == b.stride_d &&
           a.stride_h == b.stride_h && a.stride_w == b.stride_w && a.pad_d == b.pad_d &&
           a.pad_h == b.pad_h && a.pad_w == b.pad_w && a.dilation_d == b.dilation_d &&
           a.dilation_h == b.dilation_h && a.dilation_w == b.dilation_w &&
           a.ndim_spatial == b.ndim_spatial && a.layer == b.layer;
}

} // namespace

std::string_view to_string(CellStatus status) {
    for (const auto& [value, name] : k_status_names)
        if (value == status) return name;
    return "?";
}

std::optional<CellStatus> cell_status_from_string(std::string_view text) {
    for (const auto& [value, name] : k_status_names)
        if (name == text) return value;
    return std::nullopt;
}

std::vector<std::string> cell_status_names() {
    std::vector<std::string> names;
    for (const auto& entry : k_status_names) names.emplace_back(entry.second);
    return names;
}

bool ResultRow::operator==(const ResultRow& o) const {
    return kernel == o.kernel && problem_idx == o.problem_idx && same_shape(problem, o.problem) &&
           same_number(latency_ms, o.latency_ms) && same_number(tflops, o.tflops) &&
           non_zero == o.non_zero && status == o.status && verified == o.verified &&
           same_number(max_rel_err, o.max_rel_err) &&
           same_number(latency_median_ms, o.latency_median_ms) && same_number(cv, o.cv) &&
           same_number(gbps, o.gbps) && same_number(baseline_ms, o.baseline_ms) &&
           same_number(speedup, o.speedup) && error == o.error && variant == o.variant &&
           dtype == o.dtype && arch == o.arch && device == o.device &&
           device_index == o.device_index && toolchain == o.toolchain &&
           content_key == o.content_key && problem_key == o.problem_key && set == o.set &&
           warmup == o.warmup && repeat == o.repeat && timestamp == o.timestamp;
}

std::string utc_timestamp_now() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  static_cast<int>(millis));
    return buffer;
}

} // namespace gconv
