#include "jit/kernel_build.h"

#include "codegen/kernel_source.h"
#include "config/kernel_name.h"
#include "jit/compiler.h"

namespace gconv::jit {

CompileRequest kernel_compile_request(const KernelConfig& config, const std::string& arch) {
    CompileRequest request;
    request.name = kernel_name(config) + ".hip";
    request.source = generate_kernel_source(config);
    request.headers = embedded_headers();
    request.arch = arch;
    return request;
}

KernelBuildResult build_kernels(const std::vector<KernelConfig>& configs, const std::string& arch,
                                const KernelCache& cache, int workers,
                                const std::function<void(const BuildProgress&)>& on_progress,
                                std::atomic<bool>* cancel) {
    std::vector<CompileRequest> requests;
    requests.reserve(configs.size());
    for (const auto& c : configs) requests.push_back(kernel_compile_request(c, arch));

    const Toolchain toolchain = native_toolchain();
    BuildOptions options;
    options.workers = workers;
    options.on_progress = on_progress;
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
        if (r.ok)
            k.code_object =
                cache.entry_path(KernelCache::key(requests[i], toolchain.identity), ".bin");
    }
    return out;
}

} // namespace gconv::jit
