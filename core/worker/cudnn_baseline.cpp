#include "worker/cudnn_baseline.h"

#include "worker/cudnn_search.h"

namespace gconv::worker {

std::unique_ptr<CudnnBaseline> CudnnBaseline::load(std::string& why) {
    std::unique_ptr<CudnnApi> api = CudnnApi::load(why);
    if (!api) return nullptr;
    return std::unique_ptr<CudnnBaseline>(new CudnnBaseline(std::move(api)));
}

CudnnBaseline::CudnnBaseline(std::unique_ptr<CudnnApi> api) : api_(std::move(api)) {}
CudnnBaseline::~CudnnBaseline() = default;

std::string CudnnBaseline::version() const {
    return api_->version();
}
bool CudnnBaseline::has_graph() const {
    return api_->has_graph();
}
std::string CudnnBaseline::description() const {
    return "cuDNN " + version() + " (" +
           (has_graph() ? "legacy and graph API" : "legacy API only: no graph API symbols") + ")";
}

BaselineResult CudnnBaseline::run(Variant variant, DataType dtype, const Problem& p,
                                  const BaselineTensors& t, hipStream_t stream, int warmup,
                                  int repeat, const BaselineVerifier& verify) {
    BaselineResult result;
    CudnnApi& a = *api_;
    if (const cudnn::Status s = a.set_stream(a.handle, stream); s != cudnn::k_success) {
        result.error = a.failure("cudnnSetStream", s);
        return result;
    }
    // Both searches may use the same workspace.
    const SearchWorkspace workspace;
    const BaselineWorkspace& ws = workspace.get();

    SettledCandidate legacy, graph;
    BaselineSearch legacy_found = legacy_search(a, variant, dtype, p, t, ws);
    const bool have_legacy = settle_candidates("legacy", legacy_found, stream, warmup, repeat,
                                               verify, result.log, legacy);
    BaselineSearch graph_found = graph_search(a, variant, dtype, p, t, ws, stream);
    const bool have_graph =
        settle_candidates("graph", graph_found, stream, warmup, repeat, verify, result.log, graph);
    if (!have_legacy && !have_graph) {
        result.error = "neither the legacy nor the graph API gave a verified algorithm";
        return result;
    }
    SettledCandidate& kept = !have_graph                                      ? legacy
                             : !have_legacy || graph.mean_ms < legacy.mean_ms ? graph
                                                                              : legacy;
    result.ok = true;
    result.algorithm = kept.name;
    result.launch_ms = std::move(kept.launch_ms);
    result.max_rel_err = kept.max_rel_err;
    return result;
}

} // namespace gconv::worker
