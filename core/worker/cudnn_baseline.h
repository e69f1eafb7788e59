#pragma once
// The cuDNN side of a side-by-side run: the same problem on the same device buffers. Two
// searches run outside the timed region: the legacy API's cudnnFind*AlgorithmEx and the graph
// API's engine heuristics with gconv's own tuning of the top plans (cudnn_search.h). From each,
// the fastest candidate whose output verifies is timed exactly as gconv's kernels are (warm-up,
// then back-to-back launches between events), and the faster of the two is the baseline.
// cuDNN is loaded at run time (dlopen), so gconv neither links nor needs it unless a baseline
// is asked for.
#include "config/enums.h"
#include "problem/problem.h"
#include "worker/cudnn_search.h"

#include <hip/hip_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gconv::worker {

struct BaselineCheck {
    bool passed = false;
    double max_rel_err = 0;
    std::string detail; // why it failed, for the log
};

// Poisons the result tensor, calls `launch_once` (one cuDNN run) and compares the result with
// the reference.
using BaselineVerifier = std::function<BaselineCheck(const std::function<void()>& launch_once)>;

struct BaselineResult {
    bool ok = false;
    std::vector<float> launch_ms; // each timed launch of the kept candidate
    std::string algorithm;        // e.g. "cudnn 9.14.0 graph engine 12 (tile=3 ...), 0 MB ..."
    double max_rel_err = 0;       // of the kept candidate's verified output
    std::vector<std::string> log; // what each path chose, timed, or left out, and why
    std::string error;            // when !ok
};

class CudnnBaseline {
public:
    // nullptr with `why` set when cuDNN cannot be loaded (CudnnApi::load). A library without
    // the graph API still loads; then the legacy path alone runs and the log says so.
    static std::unique_ptr<CudnnBaseline> load(std::string& why);
    ~CudnnBaseline();

    // Runs the problem's result tensor computation for `variant`; every candidate overwrites
    // the result tensor (beta = 0).
    BaselineResult run(Variant variant, DataType dtype, const Problem& problem,
                       const BaselineTensors& tensors, hipStream_t stream, int warmup, int repeat,
                       const BaselineVerifier& verify);

    std::string version() const;
    bool has_graph() const;

private:
    explicit CudnnBaseline(std::unique_ptr<CudnnApi> api);
    std::unique_ptr<CudnnApi> api_;
};

} // namespace gconv::worker
