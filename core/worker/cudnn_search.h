#pragma once
// The two ways gconv asks cuDNN for its best convolution: the legacy API's own search
// (cudnnFind*AlgorithmEx) and the graph (backend) API's engine heuristics, whose top engine
// configurations gconv builds into plans and times itself. Each gives runnable candidates,
// fastest first by its own measurement; the baseline verifies and times them (cudnn_baseline.h).
#include "config/enums.h"
#include "problem/problem.h"
#include "worker/baseline.h"
#include "worker/cudnn_api.h"

namespace gconv::worker {

BaselineSearch legacy_search(CudnnApi& api, Variant variant, DataType dtype, const Problem& problem,
                             const BaselineTensors& tensors, const BaselineWorkspace& workspace);

// Tunes on `stream` (the handle's): every plan it keeps has run and been timed briefly.
BaselineSearch graph_search(CudnnApi& api, Variant variant, DataType dtype, const Problem& problem,
                            const BaselineTensors& tensors, const BaselineWorkspace& workspace,
                            hipStream_t stream);

} // namespace gconv::worker
