#pragma once
// cp.async: a copy is captured when issued and written at the cp.async.wait_group that covers
// its group (or when its thread exits), never earlier; and the atomics, which need nothing more
// (the fibers of a launch never run at the same time).
#include "gconv_emu_shared.h"

namespace gconv_emu {

// ---- cp.async: captured when issued, written at the wait that covers its group ----

template <int BYTES> inline void copy_async(void* smem, const void* gmem, bool valid) {
    const u32 offset = shared_offset(smem);
    shared_at(offset, BYTES, BYTES, "cp.async destination");
    if (valid && reinterpret_cast<std::uintptr_t>(gmem) % BYTES != 0)
        fail("cp.async source not aligned to " + std::to_string(BYTES) + " bytes");
    PendingCopy c;
    c.dst = smem;
    c.size = BYTES;
    if (valid)
        std::memcpy(c.bytes, gmem, BYTES);
    else
        std::memset(c.bytes, 0, BYTES);
    if (g_block->land_at_issue) {
        std::memcpy(smem, c.bytes, BYTES);
        return;
    }
    std::memcpy(c.before, smem, BYTES);
    g_block->current->open_group.push_back(c);
}
// Lands the copies; a destination written since its copy was issued is a race (the hardware
// may land the copy before or after that write).
inline void land(const std::vector<PendingCopy>& group) {
    for (const PendingCopy& c : group) {
        if (std::memcmp(c.dst, c.before, c.size) != 0)
            fail("shared bytes " + std::to_string(shared_offset(c.dst)) + ".." +
                 std::to_string(shared_offset(c.dst) + c.size) +
                 " were written while a cp.async into them was in flight");
        std::memcpy(c.dst, c.bytes, c.size);
    }
}
inline void async_commit() {
    Fiber* f = g_block->current;
    f->committed.push_back(std::move(f->open_group));
    f->open_group.clear();
}
inline void async_wait(int most_in_flight) {
    Fiber* f = g_block->current;
    while (static_cast<int>(f->committed.size()) > most_in_flight) {
        land(f->committed.front());
        f->committed.erase(f->committed.begin());
    }
}

// Global and shared atomics: the fibers of a launch never run at the same time.
template <typename T> inline T atomic_add(T* p, T v) {
    const T old = *p;
    *p = old + v;
    return old;
}
template <typename T> inline T atomic_max(T* p, T v) {
    const T old = *p;
    *p = old > v ? old : v;
    return old;
}

} // namespace gconv_emu
