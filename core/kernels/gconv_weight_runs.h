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
// place(e) maps an element to where it is read and written (negative: nowhere), and every
// load(at) of a batch is issued before the batch's first store(at, value), so a thread waits for
// one L2 round trip per batch instead of one per element (the last block of a run or tile does
// this alone, after the other blocks are done: its wait is the kernel's tail).
constexpr int kConvertBatch = 8;
template <int THREADS, class Place, class Load, class Store>
GCONV_DEVICE void batched_elements(int count, Place place, Load load, Store store) {
    for (int e0 = static_cast<int>(threadIdx.x); e0 < count; e0 += kConvertBatch * THREADS) {
        i64 at[kConvertBatch];
        float v[kConvertBatch];
#pragma unroll
        for (int i = 0; i < kConvertBatch; ++i) {
            at[i] = e0 + i * THREADS < count ? place(e0 + i * THREADS) : -1;
            v[i] = at[i] >= 0 ? load(at[i]) : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < kConvertBatch; ++i)
            if (at[i] >= 0) store(at[i], v[i]);
    }
}

// Called by every thread of a block once its adds are issued, `arrivals` blocks adding to the
// same sums: fences the adds, thread 0 alone evaluates `ticket()` (so the ticket's address costs
// the other threads no registers) and takes it; true in every thread of the block that arrives
// last, after a fence that makes every other block's adds visible to it. `flag` is one int of
// shared memory no thread still uses.
template <class Ticket>
GCONV_DEVICE bool block_arrives_last(int* flag, unsigned arrivals, Ticket ticket) {
    __threadfence();
    arch::barrier();
    if (threadIdx.x == 0) *flag = atomicAdd(ticket(), 1u) == arrivals - 1;
    arch::barrier();
    if (!*flag) return false;
    __threadfence();
    return true;
}

// Called by every thread of a block once its adds to the run's slice sums[0 .. elems) are
// issued; `blocks` blocks add to the run. The last of them converts the slice into out.
template <class T, int THREADS>
GCONV_DEVICE void convert_run_when_last(const float* sums, T* out, int elems, unsigned* ticket,
                                        unsigned blocks) {
    __shared__ int last;
    if (!block_arrives_last(&last, blocks, [&] { return ticket; })) return;
    batched_elements<THREADS>(
        elems, [](int e) { return static_cast<i64>(e); },
        [&](i64 e) { return arch::load_l2(sums + e); },
        [&](i64 e, float v) { out[e] = from_float<T>(v); });
}

} // namespace gconv
