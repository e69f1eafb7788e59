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

// Visits elements e = threadIdx.x, + THREADS, ... < count in batches of kConvertBatch per thread:
// every load(e) of a batch is issued before the batch's first store(e, value), so a thread waits
// for one L2 round trip per batch instead of one per element (the last block of a run or tile
// does this alone, after the other blocks are done: its wait is the kernel's tail).
constexpr int kConvertBatch = 8;
template <int THREADS, class Load, class Store>
GCONV_DEVICE void batched_elements(int count, Load load, Store store) {
    for (int e0 = static_cast<int>(threadIdx.x); e0 < count; e0 += kConvertBatch * THREADS) {
        float v[kConvertBatch];
#pragma unroll
        for (int i = 0; i < kConvertBatch; ++i)
            v[i] = e0 + i * THREADS < count ? load(e0 + i * THREADS) : 0.0f;
#pragma unroll
        for (int i = 0; i < kConvertBatch; ++i)
            if (e0 + i * THREADS < count) store(e0 + i * THREADS, v[i]);
    }
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
    batched_elements<THREADS>(
        elems, [&](int e) { return arch::load_l2(sums + e); },
        [&](int e, float v) { out[e] = from_float<T>(v); });
}

} // namespace gconv
