#pragma once
// cuDNN as the side-by-side baseline (baseline.h): two searches run outside the timed region,
// the legacy API's cudnnFind*AlgorithmEx and the graph API's engine heuristics with gconv's own
// tuning of the top plans (cudnn_search.h); from each, the fastest candidate whose output
// verifies is timed, and the faster of the two is the baseline.
#include "worker/baseline.h"
#include "worker/cudnn_api.h"

#include <memory>
#include <string>

namespace gconv::worker {

class CudnnBaseline : public VendorBaseline {
public:
    // nullptr with `why` set when cuDNN cannot be loaded (CudnnApi::load). A library without
    // the graph API still loads; then the legacy path alone runs and the log says so.
    static std::unique_ptr<CudnnBaseline> load(std::string& why);
    ~CudnnBaseline() override;

    std::string library() const override { return "cuDNN"; }
    std::string description() const override;
    // Every candidate overwrites the result tensor (beta = 0).
    BaselineResult run(Variant variant, DataType dtype, const Problem& problem,
                       const BaselineTensors& tensors, hipStream_t stream, int warmup, int repeat,
                       const BaselineVerifier& verify) override;

    std::string version() const;
    bool has_graph() const;

private:
    explicit CudnnBaseline(std::unique_ptr<CudnnApi> api);
    std::unique_ptr<CudnnApi> api_;
};

} // namespace gconv::worker
