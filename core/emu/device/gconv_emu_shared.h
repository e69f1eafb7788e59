#pragma once
// The shared-memory window: a shared address is a byte offset into the block's dynamic shared
// memory; every emulated access checks its alignment and that it lies inside the launch's bytes.
#include "gconv_emu_block.h"

namespace gconv_emu {

// ---- shared memory window: addresses are byte offsets from the dynamic shared memory ----

inline u32 shared_offset(const void* p) {
    const unsigned char* c = static_cast<const unsigned char*>(p);
    if (c < g_block->shared || c > g_block->shared + g_block->shared_bytes)
        fail("shared address of a pointer outside the dynamic shared memory");
    return static_cast<u32>(c - g_block->shared);
}
inline unsigned char* shared_at(u32 offset, int bytes, int align, const char* what) {
    if (offset % align != 0)
        fail(std::string(what) + ": shared address " + std::to_string(offset) + " not aligned to " +
             std::to_string(align) + " bytes");
    if (static_cast<std::size_t>(offset) + bytes > g_block->shared_bytes)
        fail(std::string(what) + ": shared bytes " + std::to_string(offset) + ".." +
             std::to_string(offset + bytes) + " past the " + std::to_string(g_block->shared_bytes) +
             " bytes launched");
    return g_block->shared + offset;
}

inline u32 load_u32(const unsigned char* p) {
    u32 v;
    std::memcpy(&v, p, 4);
    return v;
}
inline u16 load_u16(const unsigned char* p) {
    u16 v;
    std::memcpy(&v, p, 2);
    return v;
}

} // namespace gconv_emu
