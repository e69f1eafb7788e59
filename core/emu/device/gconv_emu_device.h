#pragma once
// The device as the host compiler sees it: force-included (before anything else) into every
// module the CPU emulator builds (core/emu/emulated_module.cpp), with GCONV_EMU defined.
//
// The threads of a block are fibers on one OS thread. A fiber runs until it reaches a block
// barrier or a warp-collective instruction (ldmatrix, mma.sync, shfl) or returns; the scheduler
// then runs the next one, so between two synchronisation points every thread runs alone, in
// the order the launch asks for (ascending or descending thread index). A kernel that reads
// shared memory another thread writes without a barrier in between sees stale data in one of
// the two orders. cp.async copies land at cp.async.wait_group, not before. Shared memory ends
// at a guard page. What the hardware would fault or hang on (a barrier some threads never
// reach, a collective with lanes missing or at a different instruction, a misaligned or
// out-of-window shared address) stops the launch with a message.
#include "gconv_emu_async.h"
#include "gconv_emu_block.h"
#include "gconv_emu_numbers.h"
#include "gconv_emu_shared.h"
#include "gconv_emu_warp.h"

#define __global__ __attribute__((visibility("default")))
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __grid_constant__
#define threadIdx (::gconv_emu::thread_index())
#define blockIdx (::gconv_emu::block_index())
#define blockDim (::gconv_emu::block_dim())
#define gridDim (::gconv_emu::grid_dim())
#define __syncthreads() ::gconv_emu::sync_threads()
#define __threadfence() ((void)0)
#define __trap() ::gconv_emu::fail("__trap() reached")

#define __shfl_xor_sync(mask, value, lane_mask) ::gconv_emu::shuffle_xor((value), (lane_mask))
#define atomicAdd(p, v) ::gconv_emu::atomic_add((p), (v))
#define atomicMax(p, v) ::gconv_emu::atomic_max((p), (v))
#define __ldcg(p) (*(p))

inline unsigned __float_as_uint(float f) {
    return ::gconv_emu::float_to_bits(f);
}
inline float __uint_as_float(unsigned u) {
    return ::gconv_emu::bits_to_float(u);
}
