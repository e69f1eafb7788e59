#include "jit/build_pool.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

namespace gconv::jit {

const char* to_string(BuildStatus status) {
    switch (status) {
    case BuildStatus::compiled:
        return "compiled";
    case BuildStatus::cached:
        return "cached";
    case BuildStatus::failed:
        break;
    }
    return "failed";
}

std::string log_head(const std::string& log, int max_lines, std::size_t max_chars) {
    std::size_t end = 0;
    for (int line = 0; line < max_lines && end < log.size(); ++line) {
        const std::size_t newline = log.find('\n', end);
        end = newline == std::string::npos ? log.size() : newline + 1;
    }
    std::string head = log.substr(0, std::min(end, max_chars));
    while (!head.empty() && head.back() == '\n') head.pop_back();
    return head;
}

BuildStats build_all(const std::vector<CompileRequest>& requests, const KernelCache& cache,
                     const Toolchain& toolchain, const BuildOptions& options,
                     std::vector<CompileResult>* results) {
    using clock = std::chrono::steady_clock;
    const auto pool_start = clock::now();
    if (results) results->assign(requests.size(), CompileResult{});

    BuildStats stats;
    std::atomic<std::size_t> next{0};
    std::mutex report_mutex; // guards stats, done and the callback
    std::size_t done = 0;

    auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    auto work = [&] {
        for (;;) {
            if (cancelled()) return;
            const std::size_t index = next++;
            if (index >= requests.size()) return;

            const auto start = clock::now();
            CompileResult result;
            try {
                result = compile_cached(cache, toolchain, requests[index]);
            } catch (const std::exception& error) {
                result = CompileResult{};
                result.log = error.what();
            }
            const double seconds = std::chrono::duration<double>(clock::now() - start).count();
            const BuildStatus status = !result.ok          ? BuildStatus::failed
                                       : result.from_cache ? BuildStatus::cached
                                                           : BuildStatus::compiled;
            BuildProgress progress{index, status,         seconds, log_head(result.log),
                                   0,     requests.size()};
            if (results) (*results)[index] = std::move(result);

            std::lock_guard lock(report_mutex);
            switch (status) {
            case BuildStatus::compiled:
                ++stats.compiled;
                break;
            case BuildStatus::cached:
                ++stats.cached;
                break;
            case BuildStatus::failed:
                ++stats.failed;
                break;
            }
            progress.done = ++done;
            if (options.on_progress) options.on_progress(progress);
        }
    };

    const std::size_t workers = std::clamp<std::size_t>(
        std::size_t(std::max(options.workers, 1)), 1, std::max<std::size_t>(requests.size(), 1));
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < workers; ++i) threads.emplace_back(work);
    work();
    for (std::thread& thread : threads) thread.join();

    stats.skipped = requests.size() - done;
    stats.wall_seconds = std::chrono::duration<double>(clock::now() - pool_start).count();
    return stats;
}

} // namespace gconv::jit
