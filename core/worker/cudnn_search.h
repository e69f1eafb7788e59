#pragma once
// The two ways gconv asks cuDNN for its best convolution: the legacy API's own search
// (cudnnFind*AlgorithmEx) and the graph (backend) API's engine heuristics, whose top engine
// configurations gconv builds into plans and times itself. Each gives runnable candidates,
// fastest first by its own measurement; the baseline verifies and times them (cudnn_baseline.h).
#include "config/enums.h"
#include "problem/problem.h"
#include "worker/cudnn_api.h"

#include <functional>
#include <string>
#include <vector>

namespace gconv::worker {

struct BaselineTensors {
    void* in = nullptr;  // NHWGC (dIn for bwd_data)
    void* wei = nullptr; // GKYXC (dWeight for bwd_weight)
    void* out = nullptr; // NHWGK (dOut for the backward directions)
};

struct CudnnWorkspace {
    void* data = nullptr;
    size_t bytes = 0;
};

struct CudnnCandidate {
    std::string name;    // "cudnn graph engine 12 (...)" or "cudnn legacy fwd algo 1 (...)"
    float search_ms = 0; // the search's own time for one run
    // Queues one run on the handle's stream (the result tensor is overwritten, beta = 0).
    std::function<cudnn::Status()> launch;
};

struct CudnnSearch {
    std::vector<CudnnCandidate> candidates; // fastest first
    std::vector<std::string> log;           // why configurations were left out
    std::string error;                      // when the search itself failed
};

CudnnSearch legacy_search(CudnnApi& api, Variant variant, DataType dtype, const Problem& problem,
                          const BaselineTensors& tensors, const CudnnWorkspace& workspace);

// Tunes on `stream` (the handle's): every plan it keeps has run and been timed briefly.
CudnnSearch graph_search(CudnnApi& api, Variant variant, DataType dtype, const Problem& problem,
                         const BaselineTensors& tensors, const CudnnWorkspace& workspace,
                         hipStream_t stream);

} // namespace gconv::worker
