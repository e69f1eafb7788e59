#include "jit/kernel_build.h"

#include "codegen/kernel_source.h"
#include "config/kernel_name.h"
#include "jit/compiler.h"

namespace gconv::jit {

CompileRequest kernel_compile_request(const KernelConfig& config, const std::string& arch,
                                      const ModuleEntries& entries) {
    CompileRequest request;
    request.name = kernel_name(config) + ".hip";
    request.source = generate_kernel_source(config, entries);
    request.headers = embedded_headers();
    request.arch = arch;
    return request;
}

KernelBuildResult build_kernels(const std::vector<KernelConfig>& configs, const std::string& arch,
                                const KernelCache& cache, int workers,
                                const std::function<void(const BuildProgress&)>& on_progress,
                                std::atomic<bool>* cancel, const KernelBuilt& on_built,
                                const std::vector<ModuleEntries>* entries) {
    std::vector<CompileRequest> requests;
    requests.reserve(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i)
        requests.push_back(kernel_compile_request(
            configs[i], arch, entries && i < entries->size() ? (*entries)[i] : ModuleEntries{}));

    const Toolchain toolchain = native_toolchain();
    BuildOptions options;
    options.workers = workers;
    // Paths found while the pool runs (for on_built) are not hashed again afterwards.
    std::vector<std::filesystem::path> paths(configs.size());
    auto path_of = [&](std::size_t i) {
        return cache.entry_path(KernelCache::key(requests[i], toolchain.identity), ".bin");
    };
    options.on_progress = on_progress;
    if (on_built)
        options.on_progress = [&](const BuildProgress& p) {
            if (p.status != BuildStatus::failed) {
                paths[p.index] = path_of(p.index);
                on_built(p.index, paths[p.index]);
            }
            if (on_progress) on_progress(p);
        };
    options.cancel = cancel;
    std::vector<CompileResult> results;
    KernelBuildResult out;
    out.toolchain = toolchain.identity;
    out.stats = build_all(requests, cache, toolchain, options, &results);
    out.kernels.resize(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) {
        BuiltKernel& k = out.kernels[i];
        k.name = kernel_name(configs[i]);
        if (i >= results.size()) continue;
        const CompileResult& r = results[i];
        k.ok = r.ok;
        k.compile_seconds = r.seconds;
        k.from_cache = r.from_cache;
        k.log_head = r.ok ? std::string() : log_head(r.log);
        if (r.ok) k.code_object = paths[i].empty() ? path_of(i) : paths[i];
    }
    return out;
}

} // namespace gconv::jit
