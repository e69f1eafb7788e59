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
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

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

namespace gconv_emu {

typedef std::uint16_t u16;
typedef std::uint32_t u32;

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
};

enum class State { Runnable, AtBarrier, AtNamed, AtWarp, Done };
// The warp-collective instructions: every lane of a warp must reach the same one.
enum class Collective { None, Ldmatrix, LdmatrixTrans, Mma, Shuffle };

struct PendingCopy {
    void* dst;
    unsigned char bytes[16];
    int size;
};

struct Fiber {
    ucontext_t context;
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
    ucontext_t scheduler;
    int live = 0, at_barrier = 0;
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
    swapcontext(&f->context, &g_block->scheduler);
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
    swapcontext(&b->current->context, &b->scheduler);
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

// Deposits this lane's operands of collective KIND and waits for the whole warp; returns the
// 32 lanes' operands. Two slot sets alternate: a lane can be one collective ahead of another
// (the next one cannot be released before every lane has left this one).
inline unsigned char (*exchange(Collective kind, const void* mine, int bytes))[32] {
    Fiber* f = g_block->current;
    WarpExchange& w = g_block->warps[f->warp];
    const int set = f->collectives & 1;
    if (w.arrived == 0)
        w.kind[set] = kind;
    else if (w.kind[set] != kind)
        fail("the lanes of warp " + std::to_string(f->warp) +
             " reached different collective instructions");
    std::memcpy(w.slots[set][f->lane], mine, bytes);
    ++w.arrived;
    f->state = State::AtWarp;
    yield();
    ++f->collectives;
    return w.slots[set];
}

inline int lane() {
    return g_block->current->lane;
}

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

// ldmatrix .m8n8 .x1/.x2/.x4 (.trans): lanes 8i..8i+7 address the rows of matrix i.
template <int NUM, bool TRANS> inline void ldmatrix(u32* r, u32 row_address) {
    auto rows = exchange(TRANS ? Collective::LdmatrixTrans : Collective::Ldmatrix, &row_address, 4);
    const int l = lane();
    for (int i = 0; i < NUM; ++i) {
        for (int j = 0; j < 8; ++j) shared_at(load_u32(rows[8 * i + j]), 16, 16, "ldmatrix row");
        if (!TRANS) {
            const u32 row = load_u32(rows[8 * i + l / 4]);
            r[i] = load_u32(g_block->shared + row + 4 * (l % 4));
        } else {
            const u32 row0 = load_u32(rows[8 * i + 2 * (l % 4)]);
            const u32 row1 = load_u32(rows[8 * i + 2 * (l % 4) + 1]);
            const u16 lo = load_u16(g_block->shared + row0 + 2 * (l / 4));
            const u16 hi = load_u16(g_block->shared + row1 + 2 * (l / 4));
            r[i] = static_cast<u32>(lo) | static_cast<u32>(hi) << 16;
        }
    }
}

inline float bits_to_float(u32 u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline u32 float_to_bits(float f) {
    u32 u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float half_to_float(u16 h) {
    const u32 sign = static_cast<u32>(h & 0x8000u) << 16;
    const u32 e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        const float v = static_cast<float>(m) * 5.9604644775390625e-8f; // m x 2^-24, exact
        return bits_to_float(sign | float_to_bits(v));
    }
    if (e == 31) return bits_to_float(sign | 0x7f800000u | m << 13);
    return bits_to_float(sign | (e + 112) << 23 | m << 13);
}
// Round to nearest even, as cvt.rn.f16.f32.
inline u16 float_to_half(float f) {
    const u32 x = float_to_bits(f);
    const u32 sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) return static_cast<u16>(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (a >= 0x477ff000u) return static_cast<u16>(sign | 0x7c00u); // 65520 and up: infinity
    if (a < 0x38800000u) {                                         // below 2^-14: subnormal
        const int e = static_cast<int>(a >> 23);
        if (e < 102) return static_cast<u16>(sign);
        const u32 m = (a & 0x7fffffu) | 0x800000u;
        const int shift = 126 - e;
        u32 q = m >> shift;
        const u32 rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1))) ++q;
        return static_cast<u16>(sign | q);
    }
    u32 q = (a - 0x38000000u) >> 13;
    const u32 rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1))) ++q;
    return static_cast<u16>(sign | q);
}
inline u16 float_to_bf16(float f) {
    const u32 u = float_to_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<u16>((u >> 16) | 0x40u);
    return static_cast<u16>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}: lane l = 4g + t holds A rows g and g + 8
// (columns 2t, 2t + 1 and 2t + 8, 2t + 9), B column g (rows 2t, 2t + 1 and 2t + 8, 2t + 9)
// and D rows g, g + 8 at columns 2t, 2t + 1.
template <bool IS_HALF> inline void mma_16816(float* d, const u32* a, const u32* b) {
    u32 mine[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
    auto ops = exchange(Collective::Mma, mine, sizeof mine);
    auto element = [&](u32 word, int high) {
        const u16 h = static_cast<u16>(high ? word >> 16 : word & 0xffffu);
        return IS_HALF ? half_to_float(h) : bits_to_float(static_cast<u32>(h) << 16);
    };
    auto a_at = [&](int row, int k) {
        const int reg = (row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0);
        return element(load_u32(ops[(row % 8) * 4 + (k % 8) / 2] + 4 * reg), k % 2);
    };
    auto b_at = [&](int k, int col) {
        const int reg = 4 + (k >= 8 ? 1 : 0);
        return element(load_u32(ops[col * 4 + (k % 8) / 2] + 4 * reg), k % 2);
    };
    const int g = lane() / 4, t = lane() % 4;
    for (int i = 0; i < 4; ++i) {
        const int row = g + 8 * (i / 2), col = 2 * t + i % 2;
        float sum = d[i];
        for (int k = 0; k < 16; ++k) sum += a_at(row, k) * b_at(k, col);
        d[i] = sum;
    }
}

template <typename T> inline T shuffle_xor(T value, int mask) {
    static_assert(sizeof(T) <= 32, "one exchange slot");
    auto values = exchange(Collective::Shuffle, &value, sizeof(T));
    T out;
    std::memcpy(&out, values[(lane() ^ mask) & 31], sizeof(T));
    return out;
}

// prmt.b32 (default mode): byte i of the result is byte (selector nibble i & 7) of {b, a},
// replicated sign bit when the nibble's bit 3 is set.
inline u32 permute(u32 a, u32 b, u32 selector) {
    const unsigned long long both = static_cast<unsigned long long>(b) << 32 | a;
    u32 d = 0;
    for (int i = 0; i < 4; ++i) {
        const u32 nibble = (selector >> (4 * i)) & 0xfu;
        u32 byte = static_cast<u32>(both >> (8 * (nibble & 7u))) & 0xffu;
        if (nibble & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
        d |= byte << (8 * i);
    }
    return d;
}

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
    g_block->current->open_group.push_back(c);
}
inline void land(const std::vector<PendingCopy>& group) {
    for (const PendingCopy& c : group) std::memcpy(c.dst, c.bytes, c.size);
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
