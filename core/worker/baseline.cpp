#include "worker/baseline.h"

#include "worker/cudnn_baseline.h"
#include "worker/launch_timer.h"
#include "worker/miopen_baseline.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace gconv::worker {

namespace {

// A path whose first few candidates all fail verification has a systematic problem; the rest
// would fail the same way.
constexpr int k_max_verifications = 4;

} // namespace

std::unique_ptr<VendorBaseline> load_baseline(const std::string& name, std::string& why) {
    if (name == "cudnn") return CudnnBaseline::load(why);
    if (name == "miopen") return MiopenBaseline::load(why);
    why = "unknown baseline provider \"" + name + "\" (cudnn or miopen)";
    return nullptr;
}

bool settle_candidates(const std::string& path, BaselineSearch& search, hipStream_t stream,
                       int warmup, int repeat, const BaselineVerifier& verify,
                       std::vector<std::string>& log, SettledCandidate& out) {
    for (const std::string& line : search.log) log.push_back(path + ": " + line);
    if (!search.error.empty()) log.push_back(path + ": " + search.error);
    int verified = 0;
    for (BaselineCandidate& c : search.candidates) {
        if (verified++ == k_max_verifications) {
            log.push_back(path + ": no verified candidate among the first " +
                          std::to_string(k_max_verifications));
            break;
        }
        int status = 0;
        auto launch = [&] {
            const int s = c.launch();
            if (s != 0 && status == 0) status = s;
        };
        const BaselineCheck check = verify(launch);
        if (status != 0 || !check.passed) {
            log.push_back(path + ": " + c.name + " not eligible: " +
                          (status != 0 ? "its launch failed (status " + std::to_string(status) + ")"
                                       : "output did not verify: " + check.detail));
            continue;
        }
        // The verification launch is the first warm-up launch, as for kernel cells.
        for (int i = 1; i < warmup; ++i) launch();
        LaunchTimer timer(std::max(repeat, 1));
        std::vector<float> ms = timer.run(stream, launch);
        if (status != 0) {
            log.push_back(path + ": " + c.name + " failed in its timed launches (status " +
                          std::to_string(status) + ")");
            continue;
        }
        out.name = c.name;
        out.mean_ms = std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
        out.launch_ms = std::move(ms);
        out.max_rel_err = check.max_rel_err;
        char line[96];
        std::snprintf(line, sizeof line, ": %.4f ms (search %.4f ms), max_rel_err %.2g, ",
                      out.mean_ms, double(c.search_ms), out.max_rel_err);
        log.push_back(path + line + c.name);
        return true;
    }
    return false;
}

SearchWorkspace::SearchWorkspace() {
    ws_.bytes = size_t(1) << 30;
    while (ws_.bytes >= (size_t(1) << 20) && hipMalloc(&ws_.data, ws_.bytes) != hipSuccess) {
        (void)hipGetLastError();
        ws_.data = nullptr;
        ws_.bytes /= 4;
    }
    if (!ws_.data) ws_.bytes = 0;
}

SearchWorkspace::~SearchWorkspace() {
    if (ws_.data) (void)hipFree(ws_.data);
}

} // namespace gconv::worker
