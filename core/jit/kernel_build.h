#pragma once
// The build phase of a sweep: a kernel pool compiled in parallel through the cache. The
// process never touches the GPU here; the code objects are files in the cache that workers
// load.
#include "codegen/kernel_source.h"
#include "config/kernel_config.h"
#include "jit/build_pool.h"
#include "jit/cache.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace gconv::jit {

struct BuiltKernel {
    std::string name;
    bool ok = false;
    std::filesystem::path code_object; // cache file holding the code object (when ok)
    std::string log_head;              // first lines of the compiler log (failures)
    double compile_seconds = 0.0;
    bool from_cache = false;
};

struct KernelBuildResult {
    std::vector<BuiltKernel> kernels; // in the order of the configs given
    BuildStats stats;
    std::string toolchain; // identity of the compiler, for provenance and content keys
};

CompileRequest kernel_compile_request(const KernelConfig& config, const std::string& arch,
                                      const ModuleEntries& entries = {});

// Called once per kernel that built (compiled or from the cache) with its code object's cache
// file, as soon as it is there (before on_progress for it; never concurrently): a sweep can hand
// it to a worker while the rest still compiles.
using KernelBuilt =
    std::function<void(std::size_t index, const std::filesystem::path& code_object)>;

// entries: per config, the optional entries its module holds (null: every one).
KernelBuildResult build_kernels(const std::vector<KernelConfig>& configs, const std::string& arch,
                                const KernelCache& cache, int workers,
                                const std::function<void(const BuildProgress&)>& on_progress = {},
                                std::atomic<bool>* cancel = nullptr,
                                const KernelBuilt& on_built = {},
                                const std::vector<ModuleEntries>* entries = nullptr);

} // namespace gconv::jit
