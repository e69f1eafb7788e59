#pragma once
// The direct bwd_weight kernels (direct, direct_mma, the tensor-core K x K entries) add the fp32
// sums of a run of channels (a channel block) into the fp32 dW of the workspace from many blocks.
// The block that adds last to a run converts the run's slice into dW itself, so no second kernel
// runs: one ticket per run follows dW in the workspace, zeroed with it by the launch
// (codegen/direct_plan.h direct_weight_workspace_bytes). The GEMM pipelines' split-K tiles
// (forward and bwd_weight with atomic adds) finish the same way, per output tile, through the
// team pieces here (gconv_fwd.h, gconv_bwd_weight.h finish_tile).
#include "gconv_arch.h"
#include "gconv_convert.h"

namespace gconv {

// The tickets: after the K x taps x C/G floats of dW.
GCONV_DEVICE unsigned* weight_run_tickets(void* workspace, int weight_elements) {
    return reinterpret_cast<unsigned*>(static_cast<float*>(workspace) + weight_elements);
}

// The threads that finish a tile or run together: a whole block (the mma.sync and direct
// pipelines), or the consumer warpgroups of a wgmma block (gconv_wgmma.h ConsumerTeam: its
// producer warps may have left, so no block-wide barrier is met after the main loop).
// kBatch: loads in flight per thread while converting (batched_elements).
template <int THREADS> struct BlockTeam {
    static constexpr int kThreads = THREADS, kBatch = 8;
    GCONV_DEVICE int rank() const { return static_cast<int>(threadIdx.x); }
    GCONV_DEVICE void sync() const { arch::barrier(); }
};

// Visits elements e = team.rank(), + THREADS, ... < count in batches of Team::kBatch per
// thread: place(e) maps an element to where it is read and written (negative: nowhere), and
// every load(at) of a batch is issued before the batch's first store(at, value), so a thread
// waits for one L2 round trip per batch instead of one per element (the last block of a run or
// tile does this alone, after the other blocks are done: its wait is the kernel's tail).
template <class Team, class Place, class Load, class Store>
GCONV_DEVICE void batched_elements(Team team, int count, Place place, Load load, Store store) {
    constexpr int THREADS = Team::kThreads, BATCH = Team::kBatch;
    for (int e0 = team.rank(); e0 < count; e0 += BATCH * THREADS) {
        i64 at[BATCH];
        float v[BATCH];
#pragma unroll
        for (int i = 0; i < BATCH; ++i) {
            at[i] = e0 + i * THREADS < count ? place(e0 + i * THREADS) : -1;
            v[i] = at[i] >= 0 ? load(at[i]) : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < BATCH; ++i)
            if (at[i] >= 0) store(at[i], v[i]);
    }
}

// Called by every thread of a team once its adds are issued, `arrivals` teams (one per block)
// adding to the same sums: fences the adds, the team's first thread alone evaluates `ticket()`
// (so the ticket's address costs the other threads no registers) and takes it; true in every
// thread of the team that arrives last, after a fence that makes every other team's adds
// visible to it. `flag` is one int of shared memory no thread of the team still uses.
template <class Team, class Ticket>
GCONV_DEVICE bool team_arrives_last(Team team, int* flag, unsigned arrivals, Ticket ticket) {
    __threadfence();
    team.sync();
    if (team.rank() == 0) *flag = atomicAdd(ticket(), 1u) == arrivals - 1;
    team.sync();
    if (!*flag) return false;
    __threadfence();
    return true;
}

// With a workspace kept zero (gconv_params.h keep_workspace_zero), the team that arrived last
// at a ticket resets it for the next run: every other team has taken it already.
template <class Team, class Ticket>
GCONV_DEVICE void release_ticket(Team team, Ticket ticket, bool keep_zero) {
    if (keep_zero && team.rank() == 0) *ticket() = 0u;
}

// The conversion by the team that arrived last at `ticket`: `count` fp32 sums converted into
// out where place(e) says (negative: nowhere); keep_zero writes zeros back over the sums read
// and resets the ticket.
template <class Team, class T, class Place, class Ticket>
GCONV_DEVICE void convert_sums(Team team, int count, Place place, float* sums, T* out,
                               Ticket ticket, bool keep_zero) {
    batched_elements(
        team, count, place, [&](i64 at) { return arch::load_l2(sums + at); },
        [&](i64 at, float v) {
            out[at] = from_float<T>(v);
            if (keep_zero) sums[at] = 0.f;
        });
    release_ticket(team, ticket, keep_zero);
}

// convert_sums over runs of 4 consecutive 16-bit results: place(r) maps run r to its first
// element (a multiple of 4, so the sums' loads and the 8-byte store are aligned; negative:
// nowhere). One index computation per 4 elements keeps the code small where rows are whole runs
// (the wgmma bwd_weight tiles: C/G a multiple of 32).
template <class Team, class T, class Place, class Ticket>
GCONV_DEVICE void convert_sums_runs4(Team team, int runs, Place place, float* sums, T* out,
                                     Ticket ticket, bool keep_zero) {
    static_assert(sizeof(T) == 2, "16-bit results: 4 in one 8-byte store");
    constexpr int THREADS = Team::kThreads, BATCH = Team::kBatch / 4;
    for (int r0 = team.rank(); r0 < runs; r0 += BATCH * THREADS) {
        i64 at[BATCH];
        float v[BATCH][4];
#pragma unroll
        for (int i = 0; i < BATCH; ++i) {
            at[i] = r0 + i * THREADS < runs ? place(r0 + i * THREADS) : -1;
#pragma unroll
            for (int e = 0; e < 4; ++e)
                v[i][e] = at[i] >= 0 ? arch::load_l2(sums + at[i] + e) : 0.f;
        }
#pragma unroll
        for (int i = 0; i < BATCH; ++i) {
            if (at[i] < 0) continue;
            GCONV_ALIGN(8) T y[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) y[e] = from_float<T>(v[i][e]);
            *reinterpret_cast<unsigned long long*>(out + at[i]) =
                *reinterpret_cast<const unsigned long long*>(y);
            if (keep_zero) {
#pragma unroll
                for (int e = 0; e < 4; ++e) sums[at[i] + e] = 0.f;
            }
        }
    }
    release_ticket(team, ticket, keep_zero);
}

// Called by every thread of a block once its adds to the run's slice sums[0 .. elems) are
// issued; `blocks` blocks add to the run. The last of them converts the slice into out (and,
// keep_zero, leaves the slice and the ticket zero).
template <class T, int THREADS>
GCONV_DEVICE void convert_run_when_last(float* sums, T* out, int elems, unsigned* ticket,
                                        unsigned blocks, bool keep_zero) {
    __shared__ int last;
    const BlockTeam<THREADS> block;
    const auto take = [&] { return ticket; };
    if (!team_arrives_last(block, &last, blocks, take)) return;
    convert_sums(
        block, elems, [](int e) { return static_cast<i64>(e); }, sums, out, take, keep_zero);
}

} // namespace gconv
