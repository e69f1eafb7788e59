#pragma once
// The grid loop of an emulated module, compiled after the generated kernel source: blocks one
// after another, the threads of a block as fibers (gconv_emu_device.h).
#include "gconv_emu_abi.h"
#include "gconv_emu_pages.h"

#include <cstdio>

#if defined(__x86_64__)
// gconv_emu_swap(save_sp, load_sp) (gconv_emu_context.h): push the callee-saved registers, store
// the stack pointer, load the other one, pop its registers, return where it left off.
asm(R"(
    .text
    .p2align 4
    .globl gconv_emu_swap
    .hidden gconv_emu_swap
    .type gconv_emu_swap, @function
gconv_emu_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size gconv_emu_swap, .-gconv_emu_swap
)");
#endif

namespace gconv_emu {

constexpr std::size_t k_stack_bytes = 512 * 1024;

inline void fiber_main() {
    Block* b = g_block;
    b->body(b->body_args);
    Fiber* f = b->current;
    // Copies still in flight complete when the thread exits.
    for (const auto& group : f->committed) land(group);
    land(f->open_group);
    f->state = State::Done;
    switch_fiber(f->context, b->scheduler);
}

inline void run_entry(void* args) {
    const GconvEmuLaunch* l = static_cast<const GconvEmuLaunch*>(args);
    if (l->with_workspace)
        reinterpret_cast<void (*)(gconv::ConvParams, void*)>(l->entry)(l->params, l->workspace);
    else
        reinterpret_cast<void (*)(gconv::ConvParams)>(l->entry)(l->params);
}

inline std::string describe_stall(const Block& b) {
    int barrier = 0, warp = 0, done = 0;
    for (const Fiber& f : b.fibers) {
        barrier += f.state == State::AtBarrier || f.state == State::AtNamed;
        warp += f.state == State::AtWarp;
        done += f.state == State::Done;
    }
    return "block " + std::to_string(b.index.x) + "," + std::to_string(b.index.y) + "," +
           std::to_string(b.index.z) + " can never finish: " + std::to_string(barrier) +
           " threads wait at a barrier, " + std::to_string(warp) + " at a warp collective, " +
           std::to_string(done) + " have exited";
}

// Releases the barrier once every live thread waits there, and a warp's collective once all
// its lanes reached it; returns the lowest scheduling position it made runnable (n: none), or
// -1 (with b.error) for a collective that lanes left by exiting.
inline int release(Block& b, bool descending) {
    const int n = static_cast<int>(b.fibers.size());
    int first = n;
    auto wake = [&](Fiber& f, int i) {
        f.state = State::Runnable;
        const int position = descending ? n - 1 - i : i;
        first = position < first ? position : first;
    };
    if (b.at_barrier > 0 && b.at_barrier == b.live) {
        for (int i = 0; i < n; ++i)
            if (b.fibers[i].state == State::AtBarrier) wake(b.fibers[i], i);
        b.at_barrier = 0;
    }
    for (int id = 1; id < 16; ++id) {
        NamedBarrier& nb = b.named[id];
        if (nb.arrived == 0 || nb.arrived < nb.expected) continue;
        for (int i = 0; i < n; ++i)
            if (b.fibers[i].state == State::AtNamed && b.fibers[i].named == id)
                wake(b.fibers[i], i);
        nb.arrived = 0;
    }
    for (std::size_t w = 0; w < b.warps.size(); ++w) {
        WarpExchange& x = b.warps[w];
        if (x.arrived == 0 || x.arrived < x.live) continue;
        if (x.live < 32) {
            b.error = "warp " + std::to_string(w) + " runs a collective instruction with " +
                      std::to_string(32 - x.live) + " lanes exited";
            return -1;
        }
        for (int i = 0; i < n; ++i)
            if (b.fibers[i].warp == static_cast<int>(w) && b.fibers[i].state == State::AtWarp)
                wake(b.fibers[i], i);
        x.arrived = 0;
    }
    return first;
}

inline bool run_block(Block& b, const GuardedPages& shared, std::vector<GuardedPages*>& stacks,
                      bool descending) {
    const int n = static_cast<int>(b.fibers.size());
    for (int i = 0; i < n; ++i) {
        Fiber& f = b.fibers[i];
        f = Fiber{};
        f.index = {static_cast<unsigned>(i), 0, 0};
        f.warp = i / 32;
        f.lane = i % 32;
        start_fiber(f.context, stacks[i]->data(), k_stack_bytes, fiber_main);
    }
    for (WarpExchange& w : b.warps) w = WarpExchange{};
    for (NamedBarrier& nb : b.named) nb = NamedBarrier{};
    for (int i = 0; i < n; ++i) ++b.warps[i / 32].live;
    b.live = n;
    b.at_barrier = 0;
    // Shared memory starts as NaN patterns: a read of bytes nobody wrote shows in the result.
    shared.fill_all(0xff);
    // The first runnable thread in scheduling order runs next: a warp released from a barrier
    // or a collective goes on before any later thread has moved, so it reads whatever the
    // later threads have not yet written.
    int k = 0;
    bool progress = false;
    while (b.live > 0) {
        if (k >= n) {
            if (!progress) {
                b.error = describe_stall(b);
                return false;
            }
            progress = false;
            k = 0;
            continue;
        }
        Fiber& f = b.fibers[descending ? n - 1 - k : k];
        if (f.state != State::Runnable) {
            ++k;
            continue;
        }
        b.current = &f;
        switch_fiber(b.scheduler, f.context);
        progress = true;
        if (!b.error.empty()) return false;
        if (f.state == State::Done) {
            --b.live;
            --b.warps[f.warp].live;
        }
        const int first = release(b, descending);
        if (first < 0) return false;
        k = first < k + 1 ? first : k + 1;
    }
    return true;
}

} // namespace gconv_emu

extern "C" __attribute__((visibility("default"))) int
gconv_emu_launch(const GconvEmuLaunch* launch, char* error, int error_size) {
    using namespace gconv_emu;
    auto report = [&](const std::string& why) {
        std::snprintf(error, static_cast<std::size_t>(error_size), "%s", why.c_str());
        return 1;
    };
    if (launch->threads == 0 || launch->threads > 1024)
        return report("block of " + std::to_string(launch->threads) + " threads");
    GuardedPages shared(launch->shared_bytes, false);
    if (!shared.ok()) return report("no memory for the block's shared memory");
    std::vector<GuardedPages*> stacks;
    struct Release {
        std::vector<GuardedPages*>& s;
        ~Release() {
            for (GuardedPages* p : s) delete p;
        }
    } release_stacks{stacks};
    for (unsigned i = 0; i < launch->threads; ++i) {
        stacks.push_back(new GuardedPages(k_stack_bytes, true));
        if (!stacks.back()->ok()) return report("no memory for the fiber stacks");
    }
    Block b;
    b.grid = {launch->grid[0], launch->grid[1], launch->grid[2]};
    b.block = {launch->threads, 1, 1};
    b.shared = shared.data();
    b.shared_bytes = launch->shared_bytes;
    b.fibers.resize(launch->threads);
    b.warps.resize((launch->threads + 31) / 32);
    b.body = run_entry;
    // cp.async may land any time between its issue and its wait: at the wait in one order
    // (a read before the wait sees old bytes), at once in the other (a buffer the copy overwrites
    // while others still read it shows).
    b.land_at_issue = launch->descending != 0;
    b.body_args = const_cast<GconvEmuLaunch*>(launch);
    g_block = &b;
    for (unsigned z = 0; z < b.grid.z; ++z)
        for (unsigned y = 0; y < b.grid.y; ++y)
            for (unsigned x = 0; x < b.grid.x; ++x) {
                b.index = {x, y, z};
                if (!run_block(b, shared, stacks, launch->descending != 0)) {
                    g_block = nullptr;
                    return report(b.error);
                }
            }
    g_block = nullptr;
    return 0;
}
