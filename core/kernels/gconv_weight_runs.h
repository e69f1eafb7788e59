#pragma once
// The direct bwd_weight kernels (direct, direct_mma, the tensor-core K x K entries) add the fp32
// sums of a run of channels (a channel block) into the fp32 dW of the workspace from many blocks.
// The block that adds last to a run converts the run's slice into dW itself, so no second kernel
// runs: one ticket per run follows dW in the workspace, zeroed with it by the launch
// (codegen/direct_plan.h direct_weight_workspace_bytes).
#include "gconv_arch.h"
#include "gconv_convert.h"

namespace gconv {

// The tickets: after the K x taps x C/G floats of dW.
GCONV_DEVICE unsigned* weight_run_tickets(void* workspace, int weight_elements) {
    return reinterpret_cast<unsigned*>(static_cast<float*>(workspace) + weight_elements);
}

// Called by every thread of a block once its adds to the run's slice sums[0 .. elems) are
// issued; `blocks` blocks add to the run. The last of them converts the slice into out.
template <class T, int THREADS>
GCONV_DEVICE void convert_run_when_last(const float* sums, T* out, int elems, unsigned* ticket,
                                        unsigned blocks) {
    __threadfence();
    arch::barrier();
    __shared__ int last;
    if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == blocks - 1;
    arch::barrier();
    if (!last) return;
    __threadfence();
    for (int e = static_cast<int>(threadIdx.x); e < elems; e += THREADS)
        out[e] = from_float<T>(arch::load_l2(sums + e));
}

} // namespace gconv
