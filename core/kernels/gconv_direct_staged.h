#pragma once
// Staged K x K entries of the direct pipeline (`direct` with double_smem_buffer): depthwise 2D,
// K = 3, 5, 7, dilation 1 along H and W; forward with stride 1 or 2 along both (the stride-2
// entries `gconv_direct_k<K>_s2`), and bwd_data with stride 1 as the forward walk over dOut with
// the filter rotated by 180 degrees (gconv_direct.h says why that is exact).
//
// The register windows of sliding_rows keep only one row per thread in flight, and their
// registers cap occupancy, so the memory-bound 3x3 shapes stall on L1TEX at about 35-40% of copy
// bandwidth. Here a block copies whole input tiles into shared memory with cp.async (zero-filled
// outside the image and past C), two tiles in flight per block (double_smem_buffer: tile t + 1
// lands while tile t is computed), and the threads compute from shared memory, so the bytes in
// flight no longer cost registers.
//
// Block tile: tile_n channels x `cols` output columns x `rows` output rows of one image, whose
// (rows - 1) x STRIDE + K input rows of (cols - 1) x STRIDE + K columns are staged. A thread
// owns one channel vector (VEC channels, lane cl) and walks items (a column and a run of kTileK
// rows): it reads the (kTileK - 1) x STRIDE + K staged rows under the run, K vectors of each,
// once, and feeds every tap of every row of the run from them (a sliding window down the
// column; with stride 2 each input row serves at most two output rows). Consecutive lanes of a
// warp take consecutive columns, so a warp's shared-memory reads and global stores are contiguous.
// Geometry (codegen/launch_plan_direct.cpp direct_staged_geometry() is the same formula):
//   cols = min(dW, kStagedMaxCols); rows = kTileK x clamp(ROWS x pixel lanes / cols, 1,
//   ceil(dH / kTileK)); tiles = N x ceil(dH / rows) x ceil(dW / cols), column tile fastest.
// Grid: x = ceil(tiles / kStagedWalk) pixel blocks (a block walks kStagedWalk consecutive tiles)
// x ceil(C / tile_n) channel blocks, the channel block fastest (gconv_direct.h), y = 1. Dynamic
// shared memory: the fp32 filter slice (K*K x tile_n, rounded to 16 bytes) and two buffers of
// in_rows x in_cols x tile_n elements (each rounded to 16 bytes).
#include "gconv_direct.h"

namespace gconv {
namespace direct {

struct StagedGeometry {
    int cols, col_tiles; // output columns per tile, tiles along W
    int rows, bands;     // output rows per tile, tiles along H
    int tiles;           // per channel block
    int in_rows, in_cols;
};

template <class Cfg, int KS, int STRIDE>
GCONV_DEVICE StagedGeometry staged_geometry(int N, int dH, int dW) {
    typedef Shape<Cfg> S;
    StagedGeometry g;
    g.cols = dW < Cfg::kStagedMaxCols ? dW : Cfg::kStagedMaxCols;
    g.col_tiles = (dW + g.cols - 1) / g.cols;
    int runs = S::ROWS * S::PL / g.cols;
    const int max_runs = (dH + S::PIX - 1) / S::PIX;
    runs = runs < 1 ? 1 : runs > max_runs ? max_runs : runs;
    g.rows = runs * S::PIX;
    g.bands = (dH + g.rows - 1) / g.rows;
    g.tiles = N * g.bands * g.col_tiles;
    g.in_rows = (g.rows - 1) * STRIDE + KS;
    g.in_cols = (g.cols - 1) * STRIDE + KS;
    return g;
}

GCONV_DEVICE int round16(int bytes) {
    return (bytes + 15) / 16 * 16;
}

// Whether a thread keeps every tap's weights of its vector in registers (K*K x VEC fp32); else
// it reads them from shared memory at each use (a broadcast: the pixel lanes of a warp share
// them).
template <class Cfg, int KS> struct StagedWeightsInRegisters {
    static constexpr bool value = KS * KS * Cfg::kVec <= Cfg::kStagedRegisterWeights;
};

template <class Cfg, int KS, bool BWD, int STRIDE>
GCONV_DEVICE void staged_rows(const ConvParams& p) {
    static_assert(STRIDE == 1 || (STRIDE == 2 && !BWD), "stride 2: forward only");
    typedef Shape<Cfg> S;
    typedef typename S::T T;
    constexpr int VEC = S::VEC, RUN = S::PIX, TN = S::TN, CL = S::CL, PL = S::PL;
    constexpr int TAPS = KS * KS, IN_RUN = (RUN - 1) * STRIDE + KS;
    constexpr int BYTES = VEC * static_cast<int>(sizeof(T));
    constexpr bool WREG = StagedWeightsInRegisters<Cfg, KS>::value;

    // Source (read, staged) and destination (written) extents, and the pads that map one onto
    // the other (bwd_data: the view's pad (K - 1) - pad).
    const int sH = BWD ? p.Ho : p.Hi, sW = BWD ? p.Wo : p.Wi;
    const int dH = BWD ? p.Hi : p.Ho, dW = BWD ? p.Wi : p.Wo;
    const int pad_h = BWD ? KS - 1 - p.pad_h : p.pad_h;
    const int pad_w = BWD ? KS - 1 - p.pad_w : p.pad_w;
    const T* src = static_cast<const T*>(BWD ? p.out : p.in);
    T* dst = static_cast<T*>(BWD ? const_cast<void*>(p.in) : p.out);

    const StagedGeometry g = staged_geometry<Cfg, KS, STRIDE>(p.N, dH, dW);
    const int filter_bytes = round16(TAPS * TN * 4);
    const int buffer_elems = round16(g.in_rows * g.in_cols * TN * static_cast<int>(sizeof(T))) /
                             static_cast<int>(sizeof(T));
    float* ws = reinterpret_cast<float*>(gconv_dynamic_smem);
    T* buffers = reinterpret_cast<T*>(gconv_dynamic_smem + filter_bytes);

    const int tid = static_cast<int>(threadIdx.x);
    const int ch0 = channel_block<S>(p) * TN;
    const int first = pixel_block<S>(p) * Cfg::kStagedWalk;
    const int left = g.tiles - first;
    const int count = left < Cfg::kStagedWalk ? left : Cfg::kStagedWalk;
    if (count <= 0) return;

    struct Tile {
        int n, h0, c0, width;
    };
    auto tile_at = [&](int t) {
        Tile tile;
        const int ct = t % g.col_tiles;
        const int rest = t / g.col_tiles;
        tile.h0 = (rest % g.bands) * g.rows;
        tile.n = rest / g.bands;
        tile.c0 = ct * g.cols;
        tile.width = dW - tile.c0 < g.cols ? dW - tile.c0 : g.cols;
        return tile;
    };
    // Every thread copies vectors e = tid, tid + THREADS, ...: channel lane fastest, then
    // column, then row, so consecutive threads copy consecutive bytes of a pixel run. CL divides
    // the threads (the direct_pipeline rule), so a thread's lane is fixed and its pixel advances
    // by THREADS / CL a step: the row and column advance by adding, not by a division per
    // vector (the divisions were a third of the kernel's integer instructions).
    constexpr int STEP = S::THREADS / CL;
    static_assert(S::THREADS % CL == 0, "channel lanes divide the threads");
    const int cl = tid % CL, pl = tid / CL;
    const int ch = ch0 + cl * VEC;
    auto copy_tile = [&](const Tile& tile, T* buf) {
        const int cols_in = (tile.width - 1) * STRIDE + KS;
        const int hi0 = tile.h0 * STRIDE - pad_h, wi0 = tile.c0 * STRIDE - pad_w;
        const int step_q = STEP / cols_in, step_x = STEP - step_q * cols_in;
        int q = pl / cols_in, x = pl - q * cols_in;
        while (q < g.in_rows) {
            const int hi = hi0 + q, wi = wi0 + x;
            const bool ok = inside(hi, sH) && inside(wi, sW) && ch < p.C;
            const T* from = ok ? src + ((tile.n * sH + hi) * sW + wi) * p.C + ch : src;
            arch::copy_async<BYTES>(buf + (q * g.in_cols + x) * TN + cl * VEC, from, ok);
            q += step_q;
            x += step_x;
            if (x >= cols_in) {
                x -= cols_in;
                ++q;
            }
        }
        arch::async_commit();
    };

    copy_tile(tile_at(first), buffers);
    stage_filter<Cfg, 1, BWD, TAPS, BWD>(p, ws, ch0, TAPS);

    float wreg[WREG ? TAPS : 1][VEC];

#pragma unroll 1
    for (int i = 0; i < count; ++i) {
        if (i + 1 < count) {
            copy_tile(tile_at(first + i + 1), buffers + ((i + 1) & 1) * buffer_elems);
            arch::async_wait<1>();
        } else {
            arch::async_wait<0>();
        }
        arch::barrier();
        if constexpr (WREG) {
            if (i == 0) {
#pragma unroll
                for (int t = 0; t < TAPS; ++t) load_f32(wreg[t], ws + t * TN + cl * VEC);
            }
        }
        const Tile tile = tile_at(first + i);
        const T* buf = buffers + (i & 1) * buffer_elems;
        const int rows_here = dH - tile.h0 < g.rows ? dH - tile.h0 : g.rows;
        const int runs = (rows_here + RUN - 1) / RUN;
        // Items (a column and a run of rows) item = pl, pl + PL, ...: the run and column
        // advance by adding, as in copy_tile.
        const int step_r = PL / tile.width, step_c = PL - step_r * tile.width;
        int run = pl / tile.width, col = pl - run * tile.width;
        if (ch < p.C) {
#pragma unroll 1
            while (run < runs) {
                const T* base =
                    buf + (run * RUN * STRIDE * g.in_cols + col * STRIDE) * TN + cl * VEC;
                float acc[RUN][VEC];
#pragma unroll
                for (int o = 0; o < RUN; ++o)
#pragma unroll
                    for (int j = 0; j < VEC; ++j) acc[o][j] = 0.0f;
                // Staged row r of the run feeds output row o at filter row r - o x STRIDE.
                auto feed_row = [&](int r) {
                    float win[KS][VEC];
#pragma unroll
                    for (int kx = 0; kx < KS; ++kx)
                        unpack_vec<VEC, T>(win[kx], *reinterpret_cast<const Raw<BYTES>*>(
                                                        base + (r * g.in_cols + kx) * TN));
#pragma unroll
                    for (int o = 0; o < RUN; ++o) {
                        const int ky = r - o * STRIDE;
                        if (ky < 0 || ky >= KS) continue;
#pragma unroll
                        for (int kx = 0; kx < KS; ++kx) {
                            float wv[VEC];
                            if constexpr (WREG) {
#pragma unroll
                                for (int j = 0; j < VEC; ++j) wv[j] = wreg[ky * KS + kx][j];
                            } else {
                                load_f32(wv, ws + (ky * KS + kx) * TN + cl * VEC);
                            }
#pragma unroll
                            for (int j = 0; j < VEC; ++j) acc[o][j] += win[kx][j] * wv[j];
                        }
                    }
                };
                // Weights in registers need every filter row index at compile time: the rows
                // unroll. Otherwise the rows stay a loop, so the compiler cannot hoist every
                // row's loads at once (K = 5, 7 spilled that way).
                if constexpr (WREG) {
#pragma unroll
                    for (int r = 0; r < IN_RUN; ++r) feed_row(r);
                } else {
#pragma unroll 1
                    for (int r = 0; r < IN_RUN; ++r) feed_row(r);
                }
                T* out =
                    dst + ((tile.n * dH + tile.h0 + run * RUN) * dW + tile.c0 + col) * p.C + ch;
#pragma unroll
                for (int o = 0; o < RUN; ++o)
                    if (tile.h0 + run * RUN + o < dH) store_vec<VEC>(out + o * dW * p.C, acc[o]);
                run += step_r;
                col += step_c;
                if (col >= tile.width) {
                    col -= tile.width;
                    ++run;
                }
            }
        }
        // The copy issued at the top of iteration i + 1 writes buffer (i + 2) & 1, the one just
        // read.
        if (i + 2 < count) arch::barrier();
    }
}

template <class Cfg, int KS, int STRIDE = 1> GCONV_DEVICE void staged_forward(const ConvParams& p) {
    staged_rows<Cfg, KS, false, STRIDE>(p);
}
template <class Cfg, int KS> GCONV_DEVICE void staged_bwd_data(const ConvParams& p) {
    staged_rows<Cfg, KS, true, 1>(p);
}

} // namespace direct
} // namespace gconv
