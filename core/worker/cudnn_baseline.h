#pragma once
// The cuDNN side of a side-by-side run: the same problem on the same device buffers, cuDNN's
// own search (cudnnFind*AlgorithmEx, outside the timed region) picks its fastest algorithm,
// then it is timed exactly as gconv's kernels are (warm-up, then back-to-back launches between
// events). cuDNN is loaded at run time (dlopen), so gconv neither links nor needs it unless a
// baseline is asked for.
#include "config/enums.h"
#include "problem/problem.h"

#include <hip/hip_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

namespace gconv::worker {

struct BaselineTensors {
    void* in = nullptr;  // NHWGC (dIn for bwd_data)
    void* wei = nullptr; // GKYXC (dWeight for bwd_weight)
    void* out = nullptr; // NHWGK (dOut for the backward directions)
};

struct BaselineResult {
    bool ok = false;
    std::vector<float> launch_ms; // each timed launch
    std::string algorithm;        // e.g. "cudnn fwd algo 1 (tensor ops, 0 MB workspace)"
    std::string error;            // when !ok
};

class CudnnBaseline {
public:
    // nullptr with `why` set when cuDNN cannot be loaded (not installed, no symbol, not NVIDIA).
    // Searches GCONV_CUDNN_LIBRARY, then libcudnn.so.9 / libcudnn.so on the loader's path, then
    // the nvidia-cudnn wheels of the system's Python.
    static std::unique_ptr<CudnnBaseline> load(std::string& why);
    ~CudnnBaseline();

    // Runs the problem's result tensor computation for `variant` once per launch. The result
    // tensor is overwritten (beta = 0), so a later verification sees cuDNN's output.
    BaselineResult run(Variant variant, DataType dtype, const Problem& problem,
                       const BaselineTensors& tensors, hipStream_t stream, int warmup, int repeat);

    std::string version() const;

    struct Api; // the loaded library's entry points (opaque)

private:
    explicit CudnnBaseline(std::unique_ptr<Api> api);
    std::unique_ptr<Api> api_;
};

} // namespace gconv::worker
