#pragma once
// Compiles many kernels on N threads through the cache, reporting each finished item.
#include "jit/cache.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gconv::jit {

enum class BuildStatus { compiled, cached, failed };
const char* to_string(BuildStatus status);

struct BuildProgress {
    std::size_t index = 0; // position in the request list
    BuildStatus status = BuildStatus::failed;
    double seconds = 0.0; // this item's wall time in the pool (near 0 for a cache hit)
    std::string log_head; // the first lines of the compiler log (failures, warnings)
    std::size_t done = 0; // items finished so far, this one included
    std::size_t total = 0;
};

struct BuildStats {
    std::size_t compiled = 0;
    std::size_t cached = 0;  // successful cache hits
    std::size_t failed = 0;  // compile errors, fresh or cached
    std::size_t skipped = 0; // not started because of cancellation
    double wall_seconds = 0.0;
};

struct BuildOptions {
    int workers = 1;
    // Called once per finished item, never concurrently (the pool serialises the calls);
    // it must not throw.
    std::function<void(const BuildProgress&)> on_progress;
    // Set to true (from any thread, the callback included) to stop handing out new items;
    // items already compiling finish.
    std::atomic<bool>* cancel = nullptr;
};

// results, when given, is resized to requests.size(); skipped items stay default (ok = false,
// empty log). Exceptions (e.g. a bad arch, an unwritable cache) count as failures with the
// message as log.
BuildStats build_all(const std::vector<CompileRequest>& requests, const KernelCache& cache,
                     const Toolchain& toolchain, const BuildOptions& options,
                     std::vector<CompileResult>* results = nullptr);

// The first `max_lines` lines of a log, at most `max_chars` characters.
std::string log_head(const std::string& log, int max_lines = 6, std::size_t max_chars = 600);

} // namespace gconv::jit
