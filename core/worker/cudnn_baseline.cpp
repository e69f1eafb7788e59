#include "worker/cudnn_baseline.h"

#include "worker/launch_timer.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace gconv::worker {

namespace {

// A verified candidate of one path, timed like a kernel cell.
struct Settled {
    std::string name;
    std::vector<float> launch_ms;
    double mean_ms = 0;
    double max_rel_err = 0;
};

// A path whose first few candidates all fail verification has a systematic problem; the rest
// would fail the same way.
constexpr int k_max_verifications = 4;

bool settle(const char* path, CudnnSearch& search, hipStream_t stream, int warmup, int repeat,
            const BaselineVerifier& verify, std::vector<std::string>& log, Settled& out) {
    for (const std::string& line : search.log) log.push_back(std::string(path) + ": " + line);
    if (!search.error.empty()) log.push_back(std::string(path) + ": " + search.error);
    int verified = 0;
    for (CudnnCandidate& c : search.candidates) {
        if (verified++ == k_max_verifications) {
            log.push_back(std::string(path) + ": no verified candidate among the first " +
                          std::to_string(k_max_verifications));
            break;
        }
        cudnn::Status status = cudnn::k_success;
        auto launch = [&] {
            const cudnn::Status s = c.launch();
            if (s != cudnn::k_success && status == cudnn::k_success) status = s;
        };
        const BaselineCheck check = verify(launch);
        if (status != cudnn::k_success || !check.passed) {
            log.push_back(std::string(path) + ": " + c.name + " not eligible: " +
                          (status != cudnn::k_success
                               ? "its launch failed (status " + std::to_string(status) + ")"
                               : "output did not verify: " + check.detail));
            continue;
        }
        // The verification launch is the first warm-up launch, as for kernel cells.
        for (int i = 1; i < warmup; ++i) launch();
        LaunchTimer timer(std::max(repeat, 1));
        std::vector<float> ms = timer.run(stream, launch);
        if (status != cudnn::k_success) {
            log.push_back(std::string(path) + ": " + c.name + " failed in its timed launches " +
                          "(status " + std::to_string(status) + ")");
            continue;
        }
        out.name = c.name;
        out.mean_ms = std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
        out.launch_ms = std::move(ms);
        out.max_rel_err = check.max_rel_err;
        char line[96];
        std::snprintf(line, sizeof line, ": %.4f ms (search %.4f ms), max_rel_err %.2g, ",
                      out.mean_ms, double(c.search_ms), out.max_rel_err);
        log.push_back(std::string(path) + line + c.name);
        return true;
    }
    return false;
}

} // namespace

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

BaselineResult CudnnBaseline::run(Variant variant, DataType dtype, const Problem& p,
                                  const BaselineTensors& t, hipStream_t stream, int warmup,
                                  int repeat, const BaselineVerifier& verify) {
    BaselineResult result;
    CudnnApi& a = *api_;
    if (const cudnn::Status s = a.set_stream(a.handle, stream); s != cudnn::k_success) {
        result.error = a.failure("cudnnSetStream", s);
        return result;
    }

    // Both searches may use up to this much workspace; less when memory is short.
    CudnnWorkspace ws;
    ws.bytes = size_t(1) << 30;
    while (ws.bytes >= (size_t(1) << 20) && hipMalloc(&ws.data, ws.bytes) != hipSuccess) {
        (void)hipGetLastError();
        ws.data = nullptr;
        ws.bytes /= 4;
    }
    struct FreeWorkspace {
        void*& p;
        ~FreeWorkspace() {
            if (p) (void)hipFree(p);
        }
    } free_workspace{ws.data};
    if (!ws.data) ws.bytes = 0;

    Settled legacy, graph;
    CudnnSearch legacy_found = legacy_search(a, variant, dtype, p, t, ws);
    const bool have_legacy =
        settle("legacy", legacy_found, stream, warmup, repeat, verify, result.log, legacy);
    CudnnSearch graph_found = graph_search(a, variant, dtype, p, t, ws, stream);
    const bool have_graph =
        settle("graph", graph_found, stream, warmup, repeat, verify, result.log, graph);
    if (!have_legacy && !have_graph) {
        result.error = "neither the legacy nor the graph API gave a verified algorithm";
        return result;
    }
    Settled& kept = !have_graph                                      ? legacy
                    : !have_legacy || graph.mean_ms < legacy.mean_ms ? graph
                                                                     : legacy;
    result.ok = true;
    result.algorithm = kept.name;
    result.launch_ms = std::move(kept.launch_ms);
    result.max_rel_err = kept.max_rel_err;
    return result;
}

} // namespace gconv::worker
