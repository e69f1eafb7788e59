#pragma once
// Tensor-core K x K entries of the direct pipeline (`direct` with warp tile 16x8x16): 2D
// depthwise K x K (K = 3, 5, 7; dilation 1, stride 1 or 2 along H and W, the stride-2 entries
// named `_s2`): forward (tc_rows), bwd_data with stride 1 as the forward walk over dOut with the
// filter rotated by 180 degrees (gconv_direct.h says why that is exact) and with stride 2 as four
// phase convolutions (tc_data_s2), and bwd_weight (tc_weight). Forward and bwd_data entries have
// the filter size compiled in (`gconv_direct_k<K>`: the walk unrolls its filter rows) or, with
// the runtime_filter trait (`_kx` kernels), read it at run time (`gconv_direct_kx`: one entry per
// stride, the filter rows a loop; about half the compile time, each kernel timed against the
// other); bwd_weight's entries always read it at run time.
//
// Why: a depthwise channel reduces over nothing but its own taps, so a GEMM over channels leaves
// the tensor cores mostly idle (direct_mma's depthwise units are 1/8 useful) and the SIMT kernels
// spend their issue slots on FMAs and bf16 unpacks (5x5 and 7x7 filters). Along a row the filter
// is a Toeplitz matrix:
//   out[y][x0 + j] = sum_r sum_k in[y + r][x0 + k] * T_r[k][j],  T_r[k][j] = w[r][k - j]
// (0 <= k - j < K, else 0), so 16 output rows x 8 output columns of one channel are K mma.sync
// m16n8k16: A = 16 input rows x 16 input columns (rows y + r, columns x0 ... x0 + 15) and
// B = T_r (16 x 8: k - j reaches 15, so any K <= 9 fits).
//
// Block tile: TH = 16 x kTileK output rows x TW output columns (TW = min(kTileM / TH, dW rounded
// up to 16)) x kTileN channels of one image; grid x = tiles x channel blocks, the channel block
// fastest (gconv_direct.h), tiles = N x ceil(dH / TH) x ceil(dW / TW), column tile fastest
// (codegen/direct_plan.h direct_tc_geometry() is the same formula).
// The block copies the tile's source rows (TH + K - 1 rows x TW + 8 columns, zeros outside the
// image) into shared memory transposed to one plane per channel, so a row of 8 columns of one
// channel is one 16-byte ldmatrix row; a plane row is TW + 8 elements, an odd number of 16-byte
// units, so the eight rows of an ldmatrix phase hit distinct banks. The filter is staged as B
// rows: per (channel, filter row) two zero-padded copies of the row, the second shifted by one
// element, so every lane reads its pair of T_r with aligned 32-bit loads.
// A warp item is 16 rows x 16 columns (two n8 column tiles) x 8 channels; warps take items in
// turn. Per channel and filter row: one ldmatrix.x4 and one .x2 (three 8-column blocks; the two
// column tiles share the middle one), two 32-bit B loads and two MMAs. The 8 channels of a pixel
// end in one thread, so the epilogue stores 16-byte vectors straight to global memory.
// Dynamic shared memory (stride 1): kTileN planes of (TH + K - 1) x (TW + 8) elements, then the
// B rows (kTileN x K x 96 bytes); codegen/direct_plan.h direct_shared_bytes() has every case.
#include "gconv_direct.h"
#include "gconv_direct_tc_layout.h"
#include "gconv_mma_sync.h"

#if !defined(GCONV_NV)
#error "gconv_direct_tc.h uses ldmatrix and mma.sync: NVIDIA only (rule direct_pipeline)"
#endif

namespace gconv {
namespace direct {

template <class Cfg> struct TcShape {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    static constexpr int WARPS = Cfg::kWarps;
    static constexpr int THREADS = WARPS * GCONV_WARP_SIZE;
    static constexpr int TN = Cfg::kTileN; // channel_block() reads it
    static constexpr int OCT = TN / 8;     // 8-channel vectors of a pixel
    static constexpr int TH = 16 * Cfg::kTileK;
    static constexpr int MAX_TW = Cfg::kTileM / TH;
    static constexpr bool IS_HALF = Cfg::kDType == 1;
    static_assert(sizeof(T) == 2, "the tensor-core entries multiply bf16 / fp16");
    static_assert(TN % 8 == 0 && TN > 0, "tile_n is whole 8-channel vectors");
    static_assert(Cfg::kTileK == 1 || Cfg::kTileK == 2 || Cfg::kTileK == 4, "tile_k: 1, 2 or 4");
    static_assert(Cfg::kTileM % TH == 0 && MAX_TW % 16 == 0 && MAX_TW <= direct_tc::kMaxCols,
                  "tile_m / (16 x tile_k) is the widest tile: a multiple of 16 up to 64");
};

// Unit u of a staging walk over staged rows q x column phases f (P) x `pairs` element pairs x
// OCT 8-channel vectors (vector fastest): its vector o, first element x of the pair, phase f and
// row q, and the 16-byte vectors of elements x, x + 1 (and x + 2 with COLS = 3: the pair one
// element to the right, which bwd_weight's shifted copy stores), element m of phase f being
// source pixel (hi0 + q, wi0 + P m + f) of image n. Zeros outside the image, past the channels,
// at or past element `used`, and for a unit out of range (!live).
template <int COLS = 2> struct SourceUnit {
    int o, x, f, q;
    Raw<16> v[COLS];
};
template <class S, int P, int COLS = 2>
GCONV_DEVICE SourceUnit<COLS> load_source_unit(const typename S::T* src, int u, bool live,
                                               int pairs, int n, int sH, int sW, int C, int hi0,
                                               int wi0, int ch0, int used) {
    SourceUnit<COLS> t;
    t.o = u % S::OCT;
    int px = u / S::OCT;
    t.x = 2 * (px % pairs);
    px /= pairs;
    t.f = px % P, t.q = px / P;
    const int hi = hi0 + t.q, c = ch0 + t.o * 8;
    const bool row_ok = live && inside(hi, sH) && c < C;
#pragma unroll
    for (int i = 0; i < COLS; ++i) {
        const int wi = wi0 + P * (t.x + i) + t.f;
        const bool ok = row_ok && inside(wi, sW) && t.x + i < used;
        t.v[i] = ok ? *reinterpret_cast<const Raw<16>*>(src + ((n * sH + hi) * sW + wi) * C + c)
                    : Raw<16>::zero();
    }
    return t;
}

// A loaded unit: the 16-byte vectors of elements x and x + 1 of 8 channels, and where the
// element pair of its first channel goes.
struct PlaneUnit {
    Raw<16> v[2];
    u32* at;
};

// Stores a unit's eight element pairs as 32-bit words, one per channel plane, `plane_words` words
// apart.
GCONV_DEVICE void store_unit_planes(u32* at, const Raw<16>& lo, const Raw<16>& hi,
                                    int plane_words) {
#pragma unroll
    for (int j = 0; j < 8; ++j)
        at[j * plane_words] = mma::prmt(lo.v[j / 2], hi.v[j / 2], (j & 1) ? 0x7632u : 0x5410u);
}

// Units per staging step: 8 16-byte loads in flight per thread. The staging walks are not where
// these entries' register peak is (ptxas gives forward and bwd_data the same counts with 2 and 4;
// bwd_weight, whose MMA walk holds only 80, goes to 95-127), and no entry spills.
constexpr int kStagingStep = 4;

// A staging walk of `units` units, kStagingStep of them per step of a thread: every load of a
// step is issued before the first store, so 2 kStagingStep 16-byte loads are in flight instead
// of the two of one unit. load(u, unit) must accept u >= units (a unit of zeros, never stored).
template <class S, class Unit, class Load, class Store>
GCONV_DEVICE void stage_units(int units, Load load, Store store) {
#pragma unroll 1
    for (int u = static_cast<int>(threadIdx.x); u < units; u += kStagingStep * S::THREADS) {
        Unit t[kStagingStep];
#pragma unroll
        for (int i = 0; i < kStagingStep; ++i) load(u + i * S::THREADS, t[i]);
#pragma unroll
        for (int i = 0; i < kStagingStep; ++i)
            if (i == 0 || u + i * S::THREADS < units) store(t[i]);
    }
}

// Copies source rows into the channel planes, transposed: element m of column phase f of staged
// row q is source pixel (hi0 + q, wi0 + P m + f) of image n; row q lands at row (q % SH) x
// phase_rows + q / SH (row phases, gconv_direct_tc_layout.h). Pairs (m, m + 1) of one 8-channel
// vector become eight 32-bit words, one per channel plane. Elements at or past `used` meet only
// zeros of T_r; they are zero-filled so that an Inf or NaN there cannot leak. A thread copies
// kStagingStep units per step (stage_units).
template <class S, int SH, int P>
GCONV_DEVICE void stage_source(const typename S::T* src, int sH, int sW, int C, int n, int hi0,
                               int wi0, int ch0, const direct_tc::Geometry<int>& g, int used,
                               u16* planes, int plane) {
    const int pairs = g.row_stride / 2;
    const int units = g.in_rows * P * pairs * S::OCT;
    auto load = [&](int u, PlaneUnit& t) {
        const SourceUnit<> s =
            load_source_unit<S, P>(src, u, u < units, pairs, n, sH, sW, C, hi0, wi0, ch0, used);
        t.v[0] = s.v[0], t.v[1] = s.v[1];
        const int row = (s.q % SH) * g.phase_rows + s.q / SH;
        t.at =
            reinterpret_cast<u32*>(planes + (s.o * 8 * P + s.f) * plane + row * g.row_stride + s.x);
    };
    auto store = [&](const PlaneUnit& t) {
        store_unit_planes(t.at, t.v[0], t.v[1], P * plane / 2);
    };
    stage_units<S, PlaneUnit>(units, load, store);
}

// The MMAs of one item for its 8 channels: filter rows r < rows, A of channel c at a0 + c x
// a_channel + row_bytes(r) (ldmatrix rows from the lane's address), B (T_r) at b0 + c x b_channel
// + r x one staged filter row. ROWS > 0 (the filter size compiled in): every row unrolled, rows
// >= ROWS skipped, so the loads of the next rows overlap this row's MMAs. ROWS 0 (runtime_filter):
// the rows are a loop whose step is one filter row of all 8 channels, 16 independent MMAs (each
// channel's two accumulators), one body for every filter size.
template <class S, int ROWS, class RowBytes>
GCONV_DEVICE void item_mmas(float (&acc)[8][2][4], u32 a0, u32 a_channel, u32 b0, u32 b_channel,
                            int rows, RowBytes row_bytes) {
    auto mmas = [&](int c, int r) {
        const u32 a_at = a0 + c * a_channel + row_bytes(r);
        u32 a[4], e[2];
        mma::ldsm_x4(a, a_at);
        mma::ldsm_x2_at<32>(e, a_at);
        const u32 b_at = b0 + c * b_channel + static_cast<u32>(r * direct_tc::kBRowBytes);
        const u32 b[2] = {mma::lds_u32<0>(b_at), mma::lds_u32<16>(b_at)};
        const u32 a1[4] = {a[2], a[3], e[0], e[1]};
        arch::mma_16816<S::IS_HALF>(acc[c][0], a, b);
        arch::mma_16816<S::IS_HALF>(acc[c][1], a1, b);
    };
    if constexpr (ROWS > 0) {
#pragma unroll
        for (int c = 0; c < 8; ++c) {
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                if (r >= rows) continue;
                mmas(c, r);
            }
        }
    } else {
#pragma unroll 1
        for (int r = 0; r < rows; ++r) {
#pragma unroll
            for (int c = 0; c < 8; ++c) mmas(c, r);
        }
    }
}

template <class S> GCONV_DEVICE void zero(float (&acc)[8][2][4]) {
#pragma unroll
    for (int c = 0; c < 8; ++c)
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[c][j][q] = 0.0f;
}

// The block's tile: image n, first destination row h0 and column w0, first channel ch0; live is
// false past the last tile (a block that must still reach its barriers).
struct TcTile {
    int n, h0, w0, ch0;
    bool live;
};
template <class S>
GCONV_DEVICE TcTile tc_tile(const ConvParams& p, const direct_tc::Geometry<int>& g) {
    const int tile = pixel_block<S>(p);
    const int rest = tile / g.col_tiles;
    return {rest / g.bands, (rest % g.bands) * S::TH, tile % g.col_tiles * g.cols,
            channel_block<S>(p) * S::TN, tile < g.tiles};
}

// Stages the block's filter rows: `rows` rows (ROWS when the filter size is compiled in, else 0)
// of 2 kBRow elements per channel, [channel][row][element]; element i of row `row` holds the
// filter tap tap(row, i) (r x K + s of the stored filter of `taps` elements) or zero for -1 and
// past C. A thread builds whole rows: with the element index a constant of the unrolled loop,
// tap() folds to a few compares per element, and a row leaves as six 16-byte stores. (One
// element per thread spent most of a small tile's instructions on index arithmetic and 2-byte
// stores: about 5,600 per warp of a 2-warp block, against 112 MMAs.)
template <class S, int ROWS, class Tap>
GCONV_DEVICE void stage_filter_rows(const ConvParams& p, u16* brows, int ch0, int rows, int taps,
                                    Tap tap) {
    constexpr int ROW = 2 * direct_tc::kBRow;
    static_assert(ROW % 8 == 0, "a staged filter row is whole 16-byte vectors");
    const int R = ROWS > 0 ? ROWS : rows;
    const u16* wei = static_cast<const u16*>(p.wei);
    for (int pair = static_cast<int>(threadIdx.x); pair < S::TN * R; pair += S::THREADS) {
        const int cl = pair / R, row = pair - cl * R;
        const bool live = ch0 + cl < p.C;
        const u16* w = wei + (live ? ch0 + cl : 0) * taps;
        Raw<16>* out = reinterpret_cast<Raw<16>*>(brows + pair * ROW);
#pragma unroll
        for (int v = 0; v < ROW / 8; ++v) {
            Raw<16> vec;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int i = v * 8 + 2 * k, lo = tap(row, i), hi = tap(row, i + 1);
                const u32 a = live && lo >= 0 ? w[lo] : 0u, b = live && hi >= 0 ? w[hi] : 0u;
                vec.v[k] = a | b << 16;
            }
            out[v] = vec;
        }
    }
}

// What a warp needs to walk a tile's items (16 rows x 16 columns x 8 channels): its lane's
// ldmatrix row and filter-row word offsets, the shared-window addresses of the planes and the
// filter rows, and how the items split.
struct TcWalk {
    int warp;
    u32 a_lane, b_lane, planes, brows;
    int col_pairs, items;
};
template <class S>
GCONV_DEVICE TcWalk tc_walk(const direct_tc::Geometry<int>& g, const u16* planes,
                            const u16* brows) {
    const int lane = static_cast<int>(threadIdx.x) % GCONV_WARP_SIZE;
    TcWalk w;
    w.warp = static_cast<int>(threadIdx.x) / GCONV_WARP_SIZE;
    w.a_lane = static_cast<u32>(direct_tc::a_lane_bytes(lane, g.row_stride));
    w.b_lane = static_cast<u32>(direct_tc::b_lane_bytes(lane));
    w.planes = arch::shared_address(planes);
    w.brows = arch::shared_address(brows);
    w.col_pairs = g.cols / 16;
    w.items = S::TH / 16 * w.col_pairs * S::OCT;
    return w;
}

// Lane (g, t) holds item rows g and g + 8, columns 2t and 2t + 1 of each column tile, for the
// 8 channels from c on: one 16-byte store per pixel; pixel(row, col) is the destination pixel
// index or -1 where there is none.
template <class S, class Pixel>
GCONV_DEVICE void store_item(const float (&acc)[8][2][4], typename S::T* dst, int C, int c,
                             Pixel pixel) {
    const int lane = static_cast<int>(threadIdx.x) % GCONV_WARP_SIZE;
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int at = pixel(lane / 4 + (q >> 1) * 8, j * 8 + 2 * (lane % 4) + (q & 1));
            if (at < 0) continue;
            Raw<16> out;
#pragma unroll
            for (int k = 0; k < 4; ++k)
                out.v[k] = mma::pack2<S::IS_HALF>(acc[2 * k][j][q], acc[2 * k + 1][j][q]);
            *reinterpret_cast<Raw<16>*>(dst + at * C + c) = out;
        }
}

// Forward (stride 1 or 2 along H and W) and bwd_data with stride 1; filter size KF, or 0: read
// at run time (p.X).
template <class Cfg, int KF, bool BWD, int STRIDE = 1>
GCONV_DEVICE void tc_rows(const ConvParams& p) {
    typedef TcShape<Cfg> S;
    const int KS = KF > 0 ? KF : p.X;
    const int sH = BWD ? p.Ho : p.Hi, sW = BWD ? p.Wo : p.Wi;
    const int dH = BWD ? p.Hi : p.Ho, dW = BWD ? p.Wi : p.Wo;
    const int pad_h = BWD ? KS - 1 - p.pad_h : p.pad_h;
    const int pad_w = BWD ? KS - 1 - p.pad_w : p.pad_w;
    // Forward with stride 2 along H and W (an entry of its own, `_s2`): the source rows are
    // staged by parity (row phases), the columns as P = 2 phases (every other column), each a
    // Toeplitz product of its own filter taps.
    static_assert(STRIDE == 1 || (STRIDE == 2 && !BWD), "forward strides 1 and 2");
    constexpr int SH = STRIDE, P = STRIDE;
    const direct_tc::Geometry<int> g =
        direct_tc::geometry<int>(Cfg::kTileM, Cfg::kTileK, KS, SH, p.N, dH, dW);
    const TcTile t = tc_tile<S>(p, g);
    if (!t.live) return;
    const int n = t.n, h0 = t.h0, w0 = t.w0, ch0 = t.ch0;
    const int plane = g.plane_rows * g.row_stride; // one (channel, column phase) plane

    // Planes [channel][column phase], then the filter rows [channel][phase][filter row].
    u16* planes = reinterpret_cast<u16*>(gconv_dynamic_smem);
    u16* brows = planes + S::TN * P * plane;
    stage_source<S, SH, P>(static_cast<const typename S::T*>(BWD ? p.out : p.in), sH, sW, p.C, n,
                           h0 * SH - pad_h, w0 * P - pad_w, ch0, g, g.cols + (KS - 1) / P, planes,
                           plane);
    // [phase f][filter row r]: tap (r, stride x d + f) at Toeplitz offset d; bwd_data rotated.
    // With stride 1 the row is the filter row itself: taps fold to constants per element.
    stage_filter_rows<S, P * KF>(p, brows, ch0, P * KS, KS * KS, [&](int row, int i) {
        const int f = P == 1 ? 0 : row / KS, r = P == 1 ? row : row % KS;
        const int s = direct_tc::b_row_tap(i, KS, P, f);
        if (s < 0) return -1;
        return BWD ? (KS - 1 - r) * KS + KS - 1 - s : r * KS + s;
    });
    arch::barrier();

    const TcWalk wk = tc_walk<S>(g, planes, brows);
    typename S::T* dst = static_cast<typename S::T*>(BWD ? const_cast<void*>(p.in) : p.out);
    // Output row y reads source row y x SH + r: row r / SH + y of row phase r % SH, so the
    // rows of one ldmatrix are consecutive staged rows.
    auto row_bytes = [&](int r) {
        return static_cast<u32>(((r % SH) * g.phase_rows + r / SH) * g.row_stride * 2);
    };

#pragma unroll 1
    for (int item = wk.warp; item < wk.items; item += S::WARPS) {
        const int o = item % S::OCT;
        const int cp = (item / S::OCT) % wk.col_pairs;
        const int rb = item / (S::OCT * wk.col_pairs);
        float acc[8][2][4];
        zero<S>(acc);
        // One column phase at a time: unrolled, the two phases' operands in flight take ~190
        // registers.
#pragma unroll 1
        for (int f = 0; f < P; ++f)
            item_mmas<S, KF>(
                acc,
                wk.planes + wk.a_lane +
                    static_cast<u32>(((o * 8 * P + f) * plane + rb * 16 * g.row_stride + cp * 16) *
                                     2),
                static_cast<u32>(P * plane * 2),
                wk.brows + wk.b_lane +
                    static_cast<u32>((o * 8 * P + f) * KS * direct_tc::kBRowBytes),
                static_cast<u32>(P * KS * direct_tc::kBRowBytes), KS, row_bytes);
        if (ch0 + o * 8 >= p.C) continue;
        const int y0 = h0 + rb * 16, x0 = w0 + cp * 16;
        store_item<S>(acc, dst, p.C, ch0 + o * 8, [&](int row, int col) {
            const int y = y0 + row, x = x0 + col;
            return y < dH && x < dW ? (n * dH + y) * dW + x : -1;
        });
    }
}

// bwd_data with stride 2 along H and W (`gconv_direct_k<K>_s2`): destination pixel (2a + py,
// 2b + px) of phase (py, px) is a forward convolution over dOut with that phase's taps
// (gconv_direct_tc_layout.h data_s2_axis: at most (K + 1) / 2 per axis). A block tile covers
// TH x TW positions (a, b) of all four phases: it stages dOut once (TH + span rows, zeros outside
// the image) and runs the four phases over it, each with its own filter rows (the column offset
// of a phase is folded into its Toeplitz rows, so every A read stays 16-byte aligned).
template <class Cfg, int KF> GCONV_DEVICE void tc_data_s2(const ConvParams& p) {
    typedef TcShape<Cfg> S;
    const int KS = KF > 0 ? KF : p.X;
    constexpr int EMF = (KF + 1) / 2;
    const int EM = (KS + 1) / 2; // most taps of a phase along an axis
    const direct_tc::DataS2Axis ay = direct_tc::data_s2_axis(KS, p.pad_h);
    const direct_tc::DataS2Axis ax = direct_tc::data_s2_axis(KS, p.pad_w);
    // Per-phase values by selection: indexed at run time the axes' arrays would live in local
    // memory.
    auto pick = [](const int(&v)[2], int phase) { return phase ? v[1] : v[0]; };

    const direct_tc::Geometry<int> g =
        direct_tc::data_s2_geometry<int>(Cfg::kTileM, Cfg::kTileK, KS, p.pad_h, p.N, p.Hi, p.Wi);
    const TcTile t = tc_tile<S>(p, g);
    if (!t.live) return;
    const int n = t.n, h0 = t.h0, w0 = t.w0, ch0 = t.ch0;
    const int plane = g.plane_rows * g.row_stride;

    // Planes [channel], then the filter rows [channel][phase py * 2 + px][tap row e' < EM].
    u16* planes = reinterpret_cast<u16*>(gconv_dynamic_smem);
    u16* brows = planes + S::TN * plane;
    stage_source<S, 1, 1>(static_cast<const typename S::T*>(p.out), p.Ho, p.Wo, p.C, n,
                          h0 - ay.lead, w0 - ax.lead, ch0, g, g.cols + ax.span, planes, plane);
    // [phase py * 2 + px][tap row e'y]: tap e'x of the phase at Toeplitz offset offset + e'x.
    stage_filter_rows<S, 4 * EMF>(p, brows, ch0, 4 * EM, KS * KS, [&](int row, int i) {
        const int ph = row / EM, py = ph >> 1, px = ph & 1, ey = row % EM;
        const int ex = direct_tc::b_row_offset(i) - pick(ax.offset, px);
        const int ty = pick(ay.taps, py), tx = pick(ax.taps, px);
        if (ey >= ty || ex < 0 || ex >= tx) return -1;
        return (2 * (ty - 1 - ey) + pick(ay.rho, py)) * KS + 2 * (tx - 1 - ex) + pick(ax.rho, px);
    });
    arch::barrier();

    const TcWalk wk = tc_walk<S>(g, planes, brows);
    typename S::T* dst = static_cast<typename S::T*>(const_cast<void*>(p.in));
    auto row_bytes = [&](int r) { return static_cast<u32>(r * g.row_stride * 2); };

#pragma unroll 1
    for (int item = wk.warp; item < wk.items; item += S::WARPS) {
        const int o = item % S::OCT;
        const int cp = (item / S::OCT) % wk.col_pairs;
        const int rb = item / (S::OCT * wk.col_pairs);
        const bool live = ch0 + o * 8 < p.C;
#pragma unroll 1
        for (int ph = 0; ph < 4; ++ph) {
            const int py = ph >> 1, px = ph & 1;
            float acc[8][2][4];
            zero<S>(acc);
            item_mmas<S, EMF>(
                acc,
                wk.planes + wk.a_lane +
                    static_cast<u32>(((o * 8) * plane +
                                      (rb * 16 + pick(ay.offset, py)) * g.row_stride + cp * 16) *
                                     2),
                static_cast<u32>(plane * 2),
                wk.brows + wk.b_lane +
                    static_cast<u32>(((o * 8) * 4 + ph) * EM * direct_tc::kBRowBytes),
                static_cast<u32>(4 * EM * direct_tc::kBRowBytes), pick(ay.taps, py), row_bytes);
            if (!live) continue;
            const int a0 = h0 + rb * 16, b0 = w0 + cp * 16;
            store_item<S>(acc, dst, p.C, ch0 + o * 8, [&](int row, int col) {
                const int y = 2 * (a0 + row) + py, x = 2 * (b0 + col) + px;
                return y < p.Hi && x < p.Wi ? (n * p.Hi + y) * p.Wi + x : -1;
            });
        }
    }
}

// bwd_weight: dW[r][s] = sum over images, output rows y and columns x of
// dOut[y][x] * In[S y - pad + r][S x - pad + s] (stride S = 1 or 2, `_s2` entries for 2). Per
// staged input row i of the tile and 16 output columns, one mma.sync m16n8k16 per channel and
// column phase f < S: A = the Hankel matrix of phase f of input row i (A[d][x] =
// In[i][S (x + d) + f], tap s = S d + f; rows d >= 8 are zero registers, K <= 7; with stride 1
// they hold input row i + 1, below), B = the dOut rows (i - r) / S for r = 0 .. 7 (B^T rows, one
// ldmatrix.x2; rows outside the tile, r >= K or i - r not a multiple of S read a zero row), so
// D[d][r] collects every (output row, filter row) pair that meets at input row i, each pair in
// exactly one tile; a warp item is 16 output columns x 4 channels over every input row of the
// tile. A lane's Hankel pairs start at 16j + 2t + g, odd for odd g: each phase of an input row
// is staged twice, the second copy shifted left by one element, so every pair is one aligned
// word.
// Shared memory (direct_tc::weight_planes): the dOut planes (tile_n x (TH + 1) x (TW + 8): a
// zero row after the TH rows), the input planes (tile_n x 2 copies x ((TH - 1) S + K) rows x S
// phases x (TW + 8)), both with a pad between 8-channel vectors, and the block's sums (tile_n x K x
// K fp32), added atomically into the zeroed fp32 workspace (bf16 / fp16; fp32 dW directly is
// excluded by the rules), whose last block per channel block converts it (finish_channel_block).
// The filter size K (3, 5 or 7: the launch plan admits no other) is read at run time: an MMA
// covers up to 8 taps whatever K is, so nothing here unrolls over taps, and one entry per stride
// (`gconv_direct_kx`, `gconv_direct_kx_s2`) serves every K; a constant K bought nothing but a
// module's compile time three times over.
template <class Cfg, int STRIDE = 1>
GCONV_DEVICE void tc_weight(const ConvParams& p, void* workspace) {
    typedef TcShape<Cfg> S;
    typedef typename S::T T;
    static_assert(STRIDE == 1 || STRIDE == 2, "strides 1 and 2");
    constexpr int P = STRIDE;
    const int KS = p.X;
    const direct_tc::Geometry<int> g =
        direct_tc::geometry<int>(Cfg::kTileM, Cfg::kTileK, KS, P, p.N, p.Ho, p.Wo);
    const TcTile t = tc_tile<S>(p, g);
    const int n = t.n, h0 = t.h0, w0 = t.w0, ch0 = t.ch0;
    const int tid = static_cast<int>(threadIdx.x);
    const bool live = t.live; // every thread reaches the barriers

    const direct_tc::WeightPlanes<int> wp = direct_tc::weight_planes<int>(g, P, S::TN);
    u16* douts = reinterpret_cast<u16*>(gconv_dynamic_smem);
    u16* ins = douts + wp.douts;
    float* sums = reinterpret_cast<float*>(ins + wp.ins);
    const T* in = static_cast<const T*>(p.in);
    const T* dout = static_cast<const T*>(p.out);

    for (int e = tid; e < S::TN * KS * KS; e += S::THREADS) sums[e] = 0.0f;
    if (live) {
        // dOut rows h0 .. h0 + TH - 1 (zeros past the image and the tile), then the zero row:
        // units of two columns of one 8-channel vector, as in stage_source.
        const int pairs = g.row_stride / 2;
        const int units = (S::TH + 1) * pairs * S::OCT;
        auto load_dout = [&](int u, PlaneUnit& t) {
            const int o = u % S::OCT, px = u / S::OCT;
            const int q = px / pairs, x = 2 * (px - q * pairs);
            const int y = h0 + q, c = ch0 + o * 8;
            const bool row_ok = u < units && q < S::TH && y < p.Ho && c < p.C;
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const bool ok = row_ok && x + i < g.cols && w0 + x + i < p.Wo;
                t.v[i] = ok ? *reinterpret_cast<const Raw<16>*>(
                                  dout + ((n * p.Ho + y) * p.Wo + w0 + x + i) * p.C + c)
                            : Raw<16>::zero();
            }
            t.at = reinterpret_cast<u32*>(douts + o * wp.d_group + q * g.row_stride + x);
        };
        auto store_dout = [&](const PlaneUnit& t) {
            store_unit_planes(t.at, t.v[0], t.v[1], wp.d_plane / 2);
        };
        stage_units<S, PlaneUnit>(units, load_dout, store_dout);
        // Input rows h0 S - pad_h ...: element m of phase f, copy 0, is column w0 S - pad_w +
        // S m + f; copy 1 holds copy 0's element m + 1 at m. Elements at or past TW + (K - 1) / S
        // meet only discarded Hankel rows or zero dOut columns; they are zero-filled so that no
        // Inf or NaN can leak. A unit loads elements x .. x + 2, so both copies' pairs at x leave
        // as whole words (copy 1's last element, row_stride in copy 0, is past `used`: zero).
        const int used = g.cols + (KS - 1) / P;
        const int in_units = g.in_rows * P * pairs * S::OCT;
        const int hi0 = h0 * P - p.pad_h, wi0 = w0 * P - p.pad_w;
        auto load_in = [&](int u, SourceUnit<3>& t) {
            t = load_source_unit<S, P, 3>(in, u, u < in_units, pairs, n, p.Hi, p.Wi, p.C, hi0, wi0,
                                          ch0, used);
        };
        auto store_in = [&](const SourceUnit<3>& s) {
            u16* row0 = ins + s.o * wp.i_group + s.q * wp.i_row + s.f * g.row_stride + s.x;
            store_unit_planes(reinterpret_cast<u32*>(row0), s.v[0], s.v[1], wp.i_plane / 2);
            store_unit_planes(reinterpret_cast<u32*>(row0 + wp.i_copy), s.v[1], s.v[2],
                              wp.i_plane / 2);
        };
        stage_units<S, SourceUnit<3>>(in_units, load_in, store_in);
    }
    arch::barrier();

    const int lane = tid % GCONV_WARP_SIZE, warp = tid / GCONV_WARP_SIZE;
    const int gq = lane / 4, tq = lane % 4;
    const u32 douts_addr = arch::shared_address(douts);
    const u32 ins_addr = arch::shared_address(ins);
    // This lane's Hankel word: elements 2t + g and + 1 of copy 0 (even g) or the same pair at
    // 2t + g - 1 of copy 1 (odd g); + 16 bytes for columns + 8.
    const u32 a_lane =
        static_cast<u32>((direct_tc::hankel_lane_element(lane) + ((gq & 1) ? wp.i_copy : 0)) * 2);
    // ldmatrix.x2 rows: lanes 0-7 filter rows 0-7 of columns 0-7, lanes 8-15 of columns 8-15.
    const int b_r = lane & 7;
    const u32 b_col = static_cast<u32>(((lane >> 3) & 1) * 16);
    // A warp item is 16 columns x 4 channels (8 would hold 8 channels' operands of a row in
    // flight: over 128 registers).
    constexpr int CPI = 4;
    const int col_chunks = g.cols / 16;
    const int items = col_chunks * (S::TN / CPI);
    // Stride 1 walks input rows in pairs: A's rows 8-15, empty for one row (K <= 7 taps), hold
    // the Hankel matrix of input row i + 1, and B's columns n are dOut rows i + 1 - n, so one MMA
    // gives rows 0-7 filter row n - 1 of input row i and rows 8-15 filter row n of input row
    // i + 1: every pair of an input row and a dOut row K apart or less still meets once, at half
    // the MMAs and B loads.
    constexpr bool PAIRED = P == 1;
    constexpr int STEP = PAIRED ? 2 : 1;
    if (live) {
#pragma unroll 1
        for (int item = warp; item < items; item += S::WARPS) {
            const int cb = item % (S::TN / CPI) * CPI, j = item / (S::TN / CPI);
            float acc[CPI][P][4];
#pragma unroll
            for (int c = 0; c < CPI; ++c)
#pragma unroll
                for (int f = 0; f < P; ++f)
#pragma unroll
                    for (int q = 0; q < 4; ++q) acc[c][f][q] = 0.0f;
            // cb is a multiple of CPI = 4: the item's channels are in one 8-channel vector.
            const int group = cb / 8, in_group = cb % 8;
            const u32 a_item =
                ins_addr +
                static_cast<u32>((group * wp.i_group + in_group * wp.i_plane + j * 16) * 2) +
                a_lane;
            const u32 b_item =
                douts_addr +
                static_cast<u32>((group * wp.d_group + in_group * wp.d_plane + j * 16) * 2) + b_col;
#pragma unroll 1
            for (int i = 0; i < g.in_rows; i += STEP) {
                // dOut row (i - r) / S meets input row i at filter row r (staged indices); paired:
                // B column n is dOut row i + 1 - n.
                const int q = PAIRED ? i + 1 - b_r : i - b_r;
                const bool meets =
                    (PAIRED ? b_r <= KS : b_r < KS) && q >= 0 && q % P == 0 && q / P < S::TH;
                const u32 b_at =
                    b_item + static_cast<u32>((meets ? q / P : S::TH) * g.row_stride * 2);
                const u32 a_at = a_item + static_cast<u32>(i * wp.i_row * 2);
                const bool second = PAIRED && i + 1 < g.in_rows; // the same for the whole warp
#pragma unroll
                for (int c = 0; c < CPI; ++c) {
                    u32 b[2];
                    mma::ldsm_x2(b, b_at + static_cast<u32>(c * wp.d_plane * 2));
#pragma unroll
                    for (int f = 0; f < P; ++f) {
                        const u32 a_word =
                            a_at + static_cast<u32>((c * wp.i_plane + f * g.row_stride) * 2);
                        const u32 next = a_word + static_cast<u32>(wp.i_row * 2);
                        const u32 a[4] = {
                            mma::lds_u32<0>(a_word), second ? mma::lds_u32<0>(next) : 0u,
                            mma::lds_u32<16>(a_word), second ? mma::lds_u32<16>(next) : 0u};
                        arch::mma_16816<S::IS_HALF>(acc[c][f], a, b);
                    }
                }
            }
            // Lane (g, t) holds D[d = g][n = 2t, 2t + 1] (and paired D[8 + g][n]) of each channel
            // and phase: tap S g + f of filter row n (paired: n - 1, and n for rows 8-15).
#pragma unroll
            for (int c = 0; c < CPI; ++c)
#pragma unroll
                for (int f = 0; f < P; ++f)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int n = 2 * tq + h, sx = P * gq + f;
                        float* tap = sums + (cb + c) * KS * KS + sx;
                        if (sx >= KS) continue;
                        if (PAIRED) {
                            if (n >= 1 && n - 1 < KS) atomicAdd(tap + (n - 1) * KS, acc[c][f][h]);
                            if (n < KS) atomicAdd(tap + n * KS, acc[c][f][2 + h]);
                        } else if (n < KS) {
                            atomicAdd(tap + n * KS, acc[c][f][h]);
                        }
                    }
        }
    }
    arch::barrier();
    float* dw = static_cast<float*>(workspace);
    const int present = (p.C - ch0 < S::TN ? p.C - ch0 : S::TN) * KS * KS;
    if (live)
        for (int e = tid; e < present; e += S::THREADS)
            arch::atomic_add(dw + ch0 * KS * KS + e, sums[e]);
    finish_channel_block<Cfg, S::THREADS>(p, workspace, ch0, KS * KS, S::TN);
}

// KF: the filter size compiled in (an entry per size, `gconv_direct_k<K>`), or 0: read at run
// time (runtime_filter, one entry per stride, `gconv_direct_kx`).
template <class Cfg, int KF, int STRIDE = 1> GCONV_DEVICE void tc_forward(const ConvParams& p) {
    tc_rows<Cfg, KF, false, STRIDE>(p);
}
template <class Cfg, int KF, int STRIDE = 1> GCONV_DEVICE void tc_bwd_data(const ConvParams& p) {
    if constexpr (STRIDE == 2)
        tc_data_s2<Cfg, KF>(p);
    else
        tc_rows<Cfg, KF, true>(p);
}
template <class Cfg, int STRIDE = 1>
GCONV_DEVICE void tc_bwd_weight(const ConvParams& p, void* workspace) {
    tc_weight<Cfg, STRIDE>(p, workspace);
}

} // namespace direct
} // namespace gconv
