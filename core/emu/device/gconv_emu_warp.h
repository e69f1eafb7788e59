#pragma once
// Warp-collective instructions: every lane deposits its operands, the warp waits for all 32,
// then each lane computes its own result (ldmatrix, mma.sync m16n8k16, shfl.xor), with the
// fragment layouts of the PTX ISA.
#include "gconv_emu_block.h"
#include "gconv_emu_numbers.h"
#include "gconv_emu_shared.h"

namespace gconv_emu {

struct NoSnapshot {
    void operator()(WarpExchange&, int) const {}
};

// Deposits this lane's operands of collective KIND and waits for the whole warp; returns the
// 32 lanes' operands. Two slot sets alternate: a lane can be one collective ahead of another
// (the next one cannot be released before every lane has left this one). The lane that
// completes the warp runs snapshot(exchange, set) before any lane goes on: what the instruction
// reads from memory is read at one moment, as the hardware's warp reads it, whatever a lane that
// resumes first stores afterwards.
template <class Snapshot = NoSnapshot>
inline unsigned char (*exchange(Collective kind, const void* mine, int bytes,
                                Snapshot snapshot = {}))[32] {
    Fiber* f = g_block->current;
    WarpExchange& w = g_block->warps[f->warp];
    const int set = f->collectives & 1;
    if (w.arrived == 0)
        w.kind[set] = kind;
    else if (w.kind[set] != kind)
        fail("the lanes of warp " + std::to_string(f->warp) +
             " reached different collective instructions");
    std::memcpy(w.slots[set][f->lane], mine, bytes);
    if (++w.arrived == w.live) snapshot(w, set);
    f->state = State::AtWarp;
    yield();
    ++f->collectives;
    return w.slots[set];
}

inline int lane() {
    return g_block->current->lane;
}

// ldmatrix .m8n8 .x1/.x2/.x4 (.trans): lanes 8i..8i+7 address the rows of matrix i.
template <int NUM, bool TRANS> inline void ldmatrix(u32* r, u32 row_address) {
    const WarpExchange& w = g_block->warps[g_block->current->warp];
    const int set = g_block->current->collectives & 1;
    exchange(TRANS ? Collective::LdmatrixTrans : Collective::Ldmatrix, &row_address, 4,
             [](WarpExchange& x, int s) {
                 for (int row = 0; row < 8 * NUM; ++row)
                     std::memcpy(x.rows[s][row],
                                 shared_at(load_u32(x.slots[s][row]), 16, 16, "ldmatrix row"), 16);
             });
    const int l = lane();
    for (int i = 0; i < NUM; ++i) {
        if (!TRANS) {
            r[i] = load_u32(w.rows[set][8 * i + l / 4] + 4 * (l % 4));
        } else {
            const u16 lo = load_u16(w.rows[set][8 * i + 2 * (l % 4)] + 2 * (l / 4));
            const u16 hi = load_u16(w.rows[set][8 * i + 2 * (l % 4) + 1] + 2 * (l / 4));
            r[i] = static_cast<u32>(lo) | static_cast<u32>(hi) << 16;
        }
    }
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

} // namespace gconv_emu
