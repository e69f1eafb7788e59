#include "sweep/progress_reporter.h"

#include "csv/result_row_json.h"

#include <cmath>

namespace gconv {

ProgressReporter::ProgressReporter(ProgressMode mode, std::FILE* bar_stream)
    : mode_(mode), bar_(bar_stream) {}

void ProgressReporter::emit(nlohmann::json event) {
    const std::string line = event.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

void ProgressReporter::phase(const std::string& name, std::size_t total) {
    if (mode_ == ProgressMode::Bar && !phase_.empty()) draw(true);
    phase_ = name;
    total_ = total;
    done_ = failures_ = 0;
    start_ = last_draw_ = std::chrono::steady_clock::now();
    if (mode_ == ProgressMode::Jsonl) emit({{"event", "phase"}, {"phase", name}, {"total", total}});
}

void ProgressReporter::item(const nlohmann::json& details, bool failed) {
    ++done_;
    if (failed) ++failures_;
    if (mode_ == ProgressMode::Jsonl) {
        nlohmann::json e = {{"event", phase_ == "build" ? "compile" : "cell"},
                            {"done", done_},
                            {"total", total_},
                            {"failures", failures_}};
        e.update(details);
        emit(std::move(e));
    } else if (mode_ == ProgressMode::Bar) {
        const auto now = std::chrono::steady_clock::now();
        if (done_ == total_ || now - last_draw_ > std::chrono::milliseconds(100)) {
            last_draw_ = now;
            draw(done_ == total_);
        }
    }
}

void ProgressReporter::message(const std::string& level, const std::string& text) {
    if (mode_ == ProgressMode::Jsonl)
        emit({{"event", "message"}, {"level", level}, {"text", text}});
    else if (mode_ == ProgressMode::Bar)
        std::fprintf(bar_, "\r\033[K%s: %s\n", level.c_str(), text.c_str());
}

void ProgressReporter::summary(const nlohmann::json& details) {
    if (mode_ == ProgressMode::Jsonl) {
        nlohmann::json e = {{"event", "summary"}};
        e.update(details);
        emit(std::move(e));
    }
}

void ProgressReporter::draw(bool final) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double rate = elapsed > 0 ? double(done_) / elapsed : 0.0;
    const double eta = rate > 0 ? double(total_ - std::min(done_, total_)) / rate : 0.0;
    const int width = 30;
    const int filled = total_ ? int(double(width) * double(done_) / double(total_)) : width;
    std::string bar(std::size_t(std::min(filled, width)), '#');
    bar.resize(std::size_t(width), '.');
    std::fprintf(bar_, "\r\033[K%-9s [%s] %zu/%zu  %.1f/s  ETA %.0fs  failures %zu%s",
                 phase_.c_str(), bar.c_str(), done_, total_, rate, std::ceil(eta), failures_,
                 final ? "\n" : "");
    std::fflush(bar_);
}

nlohmann::json cell_event_details(const ResultRow* row) {
    if (!row) return {{"status", "resumed"}};
    nlohmann::json details = {{"kernel", row->kernel},
                              {"problem_idx", row->problem_idx},
                              {"status", std::string(to_string(row->status))}};
    if (has_value(row->latency_ms)) details["latency_ms"] = row->latency_ms;
    if (has_value(row->tflops)) details["tflops"] = row->tflops;
    if (!row->error.empty()) details["error"] = row->error;
    if (!row->device_index.empty()) details["device"] = row->device_index;
    details["row"] = result_row_to_json(*row);
    return details;
}

bool counts_as_failure(const ResultRow& row) {
    return row.status != CellStatus::Ok && row.status != CellStatus::Unsupported;
}

} // namespace gconv
