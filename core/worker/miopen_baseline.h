#pragma once
// MIOpen as the side-by-side baseline on ROCm (baseline.h): miopenFindConvolution*Algorithm
// runs and times MIOpen's solutions on the real tensors outside the timed region (without its
// exhaustive tuning unless GCONV_MIOPEN_EXHAUSTIVE=1: that can take minutes per shape), and the
// fastest whose output verifies is timed like a kernel cell.
#include "worker/baseline.h"
#include "worker/miopen_api.h"

#include <memory>
#include <string>

namespace gconv::worker {

class MiopenBaseline : public VendorBaseline {
public:
    // nullptr with `why` set when MIOpen cannot be loaded (MiopenApi::load).
    static std::unique_ptr<MiopenBaseline> load(std::string& why);
    ~MiopenBaseline() override;

    std::string library() const override { return "MIOpen"; }
    std::string description() const override;
    BaselineResult run(Variant variant, DataType dtype, const Problem& problem,
                       const BaselineTensors& tensors, hipStream_t stream, int warmup, int repeat,
                       const BaselineVerifier& verify) override;

private:
    explicit MiopenBaseline(std::unique_ptr<MiopenApi> api);
    std::unique_ptr<MiopenApi> api_;
};

// MIOpen's search on one problem: the descriptors (channels-last through the strides, the
// groups as a count) and miopenFind*Algorithm, its results as runnable candidates.
BaselineSearch miopen_search(MiopenApi& api, Variant variant, DataType dtype,
                             const Problem& problem, const BaselineTensors& tensors,
                             const BaselineWorkspace& workspace, bool exhaustive);

} // namespace gconv::worker
