#pragma once
// The emulated block: its fibers (one per thread), their states, the block and named barriers,
// the dynamic shared memory and the error that stops a launch. g_block is the block running now.
#include "gconv_emu_context.h"
#include "gconv_emu_numbers.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace gconv_emu {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
};

enum class State { Runnable, AtBarrier, AtNamed, AtWarp, Done };
// The warp-collective instructions: every lane of a warp must reach the same one.
enum class Collective { None, Ldmatrix, LdmatrixTrans, Mma, Shuffle };

struct PendingCopy {
    void* dst;
    unsigned char bytes[16];
    unsigned char before[16]; // the destination when the copy was issued
    int size;
};

struct Fiber {
    FiberContext context;
    State state = State::Runnable;
    Dim3 index;
    int warp = 0, lane = 0;
    unsigned collectives = 0; // warp collectives this thread passed (picks the exchange slot)
    int named = 0;            // the named barrier it waits at (AtNamed)
    std::vector<PendingCopy> open_group;
    std::vector<std::vector<PendingCopy>> committed;
};

struct WarpExchange {
    alignas(16) unsigned char slots[2][32][32];
    alignas(16) unsigned char rows[2][32][16]; // ldmatrix: the rows, read when the warp is complete
    Collective kind[2] = {Collective::None, Collective::None};
    int arrived = 0;
    int live = 0;
};

// bar.sync id, threads (id 1-15): released when `expected` threads arrived.
struct NamedBarrier {
    int arrived = 0;
    int expected = 0;
};

struct Block {
    Dim3 grid, block, index;
    unsigned char* shared = nullptr;
    std::size_t shared_bytes = 0;
    std::vector<Fiber> fibers;
    std::vector<WarpExchange> warps;
    Fiber* current = nullptr;
    FiberContext scheduler;
    int live = 0, at_barrier = 0;
    bool land_at_issue = false; // cp.async writes at once instead of at its wait
    NamedBarrier named[16];
    std::string error;
    void (*body)(void*) = nullptr; // runs the entry with the launch's arguments
    void* body_args = nullptr;
};

inline Block* g_block = nullptr;

inline Dim3& thread_index() {
    return g_block->current->index;
}
inline Dim3& block_index() {
    return g_block->index;
}
inline Dim3& block_dim() {
    return g_block->block;
}
inline Dim3& grid_dim() {
    return g_block->grid;
}
inline unsigned char* dynamic_shared() {
    return g_block->shared;
}

inline void yield() {
    Fiber* f = g_block->current;
    switch_fiber(f->context, g_block->scheduler);
}

// Stops the launch: the scheduler abandons every fiber (their stacks hold nothing to release).
[[noreturn]] inline void fail(const std::string& why) {
    Block* b = g_block;
    if (b->error.empty()) {
        const Fiber* f = b->current;
        b->error = why + " (block " + std::to_string(b->index.x) + "," +
                   std::to_string(b->index.y) + "," + std::to_string(b->index.z) + ", thread " +
                   std::to_string(f->index.x) + ")";
    }
    b->current->state = State::Done;
    switch_fiber(b->current->context, b->scheduler);
    __builtin_unreachable();
}

inline void sync_threads() {
    g_block->current->state = State::AtBarrier;
    ++g_block->at_barrier;
    yield();
}

inline void named_barrier(int id, int threads) {
    if (id < 1 || id > 15) fail("bar.sync " + std::to_string(id) + ": ids 1-15 (0 is the block's)");
    if (threads <= 0 || threads % 32 != 0)
        fail("bar.sync " + std::to_string(id) + " over " + std::to_string(threads) +
             " threads: whole warps only");
    NamedBarrier& b = g_block->named[id];
    if (b.arrived == 0)
        b.expected = threads;
    else if (b.expected != threads)
        fail("bar.sync " + std::to_string(id) + " with " + std::to_string(threads) +
             " threads while others wait for " + std::to_string(b.expected));
    ++b.arrived;
    g_block->current->state = State::AtNamed;
    g_block->current->named = id;
    yield();
}

} // namespace gconv_emu
