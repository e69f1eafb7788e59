#pragma once
// Tensor-core direct convolution for small groups (pipeline `direct_mma`, forward and stride-1
// bwd_data, 2D, NVIDIA): no im2col through global memory and no block-diagonal GEMM over merged
// groups. bwd_data runs as this forward kernel on its view (codegen/forward_view.h).
//
// Block: an output tile of TH rows x TW columns of one image (TW = min(Wo, kTileM), TH =
// kTileM / TW, both clipped to the image) x kTileN consecutive channels (whole groups).
//   1. cp.async copies the input halo of the tile, all kTileN channels of each pixel at once
//      (one contiguous run of NHWGC, 16-byte vectors, zero-filled outside the image), and the
//      filter of those channels (one contiguous run of GKYXC) into shared memory.
//   2. Each warp takes items of (kWarpTileM / 16 m16 fragments of tile pixels) x (one unit) and
//      reduces over every tap: per k16 step one ldmatrix.x4 per m16 fragment straight from the
//      halo (a matrix row is one output pixel's 8 channels of one tap: 16 contiguous bytes), the
//      filter fragments by ldmatrix, and mma.sync m16n8k16 with fp32 accumulators.
//   3. Accumulators are stored from registers (2 channels per lane and row).
// The filter is staged once per block. Blocks are read in launch order as (tile block, channel
// run) with the run fastest (launch_order_block). Without kDoubleBuffer a block computes one
// tile; with it tile block b walks tiles b, b + gridDim.x, ... with two halo buffers, copying the
// next tile's halo while the warps multiply the current one.
// A unit is one group when C/G >= 8 (C/G a multiple of 8), else 8 / (C/G) consecutive groups
// whose filter is staged block-diagonally (zeros between different groups), so every ldmatrix
// row is still 8 channels of one tap. The reduction index is tap * UC + channel of the unit,
// padded to whole k16 steps; the padding reads tap 0 (in the receptive field) times zero weights.
// Grid (codegen/launch_plan_direct_mma.cpp): x = tiles (N * Do * ceil(Ho / TH) *
// ceil(Wo / TW)), or ceil(tiles / T) with kDoubleBuffer (T from the plan; the kernel strides by
// gridDim.x; 3D: the tile columns of the plane walk, run_planes), y = ceil(C / kTileN). Offsets
// are 32-bit (is_supported checks).
#include "gconv_arch.h"
#include "gconv_convert.h"
#include "gconv_mma_sync.h"
#include "gconv_params.h"

#if !defined(GCONV_NV)
#error "gconv_direct_mma.h uses ldmatrix and mma.sync: NVIDIA only (rule pipeline_hardware)"
#endif

namespace gconv {

namespace direct_mma {

using namespace mma;

// Pipeline::DirectMma in config/enums.h.
enum { kPipelineCode = 8 };

template <class Cfg> struct Shape {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    static constexpr int CPG = Cfg::kCpg;             // C/G = K/G
    static constexpr int UC = CPG < 8 ? 8 : CPG;      // channels of one unit
    static constexpr int CB = Cfg::kTileN;            // channels of the block
    static constexpr int UPB = CB / UC;               // units of the block
    static constexpr int VPP = CB / 8;                // 16-byte vectors per halo pixel
    static constexpr int PAD = VPP % 2 == 0 ? 8 : 16; // odd count of 16-byte units per pixel
    static constexpr int PSTRIDE = CB + PAD;          // elements per halo pixel
    static constexpr int MF = Cfg::kWarpTileM / 16;   // m16 fragments per item
    static constexpr int NF = UC / 8;                 // n8 fragments per unit
    static constexpr int TM = Cfg::kTileM;
    static constexpr int THREADS = Cfg::kWarps * GCONV_WARP_SIZE;
    // wave_k 2: the warps form two halves, warp w and w + TEAM share an item, each reducing
    // half of its k16 steps; the second half's sums reach the first through shared memory.
    static constexpr int KSPLIT = Cfg::kKSplit;
    static constexpr int TEAM = Cfg::kWarps / KSPLIT;
    static constexpr int ACC = MF * NF * 4; // fp32 sums per lane and item
    static constexpr bool IS_HALF = Cfg::kDType == 1;
    static constexpr bool D3 = Cfg::kNdim == 3;
    // bwd_data's view: p.wei is the stored filter, read rotated and transposed (stage_tables).
    static constexpr bool VIEW_FILTER = Cfg::kViewFilter != 0;
    static_assert(sizeof(T) == 2, "bf16 / fp16 only");
    static_assert(CPG == 1 || CPG == 2 || CPG == 4 || CPG % 8 == 0, "C/G: 1, 2, 4 or 8k");
    static_assert(CB % UC == 0 && CB >= UC, "tile_n must hold whole units");
    static_assert(MF >= 1 && MF <= 4 && MF * 16 == Cfg::kWarpTileM, "warp_tile_m 16, 32, 64");
    static_assert(KSPLIT == 1 || (KSPLIT == 2 && TEAM * 2 == Cfg::kWarps && TEAM <= 15),
                  "wave_k 1, or 2 with a named barrier per pair of warps");
};

// Per-problem geometry; codegen/launch_plan_direct_mma.cpp computes the same formulas.
struct Geometry {
    int tw, th, tiles_w, tiles_h, tile_pixels, m_items;
    int hd, hh, hw;      // halo planes (1 in 2D), rows and columns
    int taps, kr, steps; // taps, reduction per unit padded to k16, k16 steps
    int wstride;         // elements per staged filter row (kr + 8)
};

template <class S> GCONV_DEVICE Geometry geometry(const ConvParams& p) {
    Geometry g;
    g.tw = p.Wo < S::TM ? p.Wo : S::TM;
    g.th = S::TM / g.tw;
    if (g.th > p.Ho) g.th = p.Ho;
    if (g.th < 1) g.th = 1;
    g.tiles_w = (p.Wo + g.tw - 1) / g.tw;
    g.tiles_h = (p.Ho + g.th - 1) / g.th;
    g.tile_pixels = g.th * g.tw;
    g.m_items = ((g.tile_pixels + 15) / 16 + S::MF - 1) / S::MF;
    g.hh = (g.th - 1) * p.stride_h + (p.Y - 1) * p.dilation_h + 1;
    g.hw = (g.tw - 1) * p.stride_w + (p.X - 1) * p.dilation_w + 1;
    g.hd = S::D3 ? (p.Z - 1) * p.dilation_d + 1 : 1;
    g.taps = (S::D3 ? p.Z : 1) * p.Y * p.X;
    g.kr = (g.taps * S::UC + 15) / 16 * 16;
    g.steps = g.kr / 16;
    g.wstride = g.kr + 8;
    return g;
}

// Where tile `tile` lies: image, output plane (0 in 2D), first output row and column. Tiles run
// column tiles fastest, then row tiles, planes, images.
struct TileCoord {
    int n, od, oh0, ow0;
};
template <class S>
GCONV_DEVICE TileCoord tile_coord(const ConvParams& p, const Geometry& g, int tile) {
    TileCoord t;
    const int tw_i = tile % g.tiles_w;
    tile /= g.tiles_w;
    const int th_i = tile % g.tiles_h;
    tile /= g.tiles_h;
    if constexpr (S::D3) {
        t.od = tile % p.Do;
        t.n = tile / p.Do;
    } else {
        t.od = 0;
        t.n = tile;
    }
    t.oh0 = th_i * g.th;
    t.ow0 = tw_i * g.tw;
    return t;
}

// Output pixel index of (row oh, column ow) of the tile's plane, NDHW order (Do = 1 in 2D).
template <class S>
GCONV_DEVICE int output_pixel(const ConvParams& p, const TileCoord& t, int oh, int ow) {
    const int plane = S::D3 ? t.n * p.Do + t.od : t.n;
    return (plane * p.Ho + oh) * p.Wo + ow;
}

// Where the view's outputs land and which stored taps its filter reads. Forward: the identity.
// bwd_data (the kernel's params are the bwd_data problem's; codegen/forward_view.h): dIn is the
// forward convolution of dOut, one per phase of the stride: phase (rh, rw) computes the dIn
// pixels (rh + sh * i, rw + sw * j) of an H x W plane from its view taps, view tap (tz, ty, tx)
// being stored tap (Z - 1 - tz, qh + sh * (Y' - 1 - ty), qw + sw * (X' - 1 - tx)) of the stored
// Z x Y x X filter (stride 1: one phase, the filter rotated by 180 degrees).
struct Phase {
    int rh, rw, sh, sw, qh, qw, H, W;
    int Z, Y, X; // the stored filter's taps
};

// One dimension of bwd_data's phase view: stride s, filter taps f, dilation d (1 when s > 1,
// codegen checks), pad, phase r, dIn extent n. Sets the view's taps, pad and output extent and
// the first stored tap q.
GCONV_DEVICE void view_dim(int s, int f, int d, int pad, int r, int n, int& taps, int& vpad,
                           int& vout, int& q) {
    if (s == 1) {
        taps = f, vpad = (f - 1) * d - pad, vout = n, q = 0;
        return;
    }
    q = (r + pad) % s;
    taps = (f - q + s - 1) / s;
    vpad = taps - 1 - (r + pad - q) / s;
    vout = n > r ? (n - r + s - 1) / s : 0;
}

// The view of phase `phase` (rh * stride_w + rw) of the bwd_data problem p.
GCONV_DEVICE void bwd_data_view(const ConvParams& p, int phase, ConvParams& v, Phase& ph) {
    v = p;
    v.C = p.K, v.K = p.C;
    v.c_per_group = p.k_per_group, v.k_per_group = p.c_per_group;
    v.Di = p.Do, v.Hi = p.Ho, v.Wi = p.Wo;
    v.Do = p.Di;
    v.pad_d = (p.Z - 1) * p.dilation_d - p.pad_d; // stride_d is 1 (codegen checks)
    ph.rh = phase / p.stride_w, ph.rw = phase - ph.rh * p.stride_w;
    ph.sh = p.stride_h, ph.sw = p.stride_w;
    view_dim(p.stride_h, p.Y, p.dilation_h, p.pad_h, ph.rh, p.Hi, v.Y, v.pad_h, v.Ho, ph.qh);
    view_dim(p.stride_w, p.X, p.dilation_w, p.pad_w, ph.rw, p.Wi, v.X, v.pad_w, v.Wo, ph.qw);
    v.stride_d = v.stride_h = v.stride_w = 1;
    ph.H = p.Hi, ph.W = p.Wi;
    ph.Z = p.Z, ph.Y = p.Y, ph.X = p.X;
}

GCONV_DEVICE Phase identity_phase(const ConvParams& p) {
    Phase ph;
    ph.rh = ph.rw = ph.qh = ph.qw = 0;
    ph.sh = ph.sw = 1;
    ph.H = p.Ho, ph.W = p.Wo;
    ph.Z = p.Z, ph.Y = p.Y, ph.X = p.X;
    return ph;
}

// Stored tap index of view tap vt of the view v (see Phase).
GCONV_DEVICE int stored_tap(const ConvParams& v, const Phase& ph, int vt) {
    if (ph.sh == 1 && ph.sw == 1) return v.Z * v.Y * v.X - 1 - vt; // the rotation
    const int tz = vt / (v.Y * v.X), rest = vt - tz * v.Y * v.X;
    const int ty = rest / v.X, tx = rest - ty * v.X;
    const int y = ph.qh + ph.sh * (v.Y - 1 - ty), x = ph.qw + ph.sw * (v.X - 1 - tx);
    return ((ph.Z - 1 - tz) * ph.Y + y) * ph.X + x;
}

// Halo columns. Under stride_w 2 the 8 rows of an ldmatrix (8 adjacent output columns of one
// tap) would read halo columns 2 apart, an even number of 16-byte units, so two rows would share
// a bank group; the halo then keeps the even input columns first and the odd ones after them
// (slot = (x & 1) * ceil(hw / 2) + x / 2): adjacent output columns of any tap sit in adjacent
// slots, and output column c of tap column x reads slot c + slot(x).
GCONV_DEVICE int halo_slot(const ConvParams& p, const Geometry& g, int hx) {
    return p.stride_w == 2 ? (hx & 1) * ((g.hw + 1) >> 1) + (hx >> 1) : hx;
}
// Halo slots between adjacent output columns.
GCONV_DEVICE int column_slots(const ConvParams& p) {
    return p.stride_w == 2 ? 1 : p.stride_w;
}
// Halo element offset of output pixel (row r, column c) of a tile, tap (0, 0).
GCONV_DEVICE int pixel_offset(const ConvParams& p, const Geometry& g, int r, int c, int pstride) {
    return (r * p.stride_h * g.hw + c * column_slots(p)) * pstride;
}

// Byte offset into the halo of the reduction's 8-channel half h (tap * UC + channel c0):
// taps run x fastest, then y, then z (GKZYXC); padding halves read tap 0.
template <class S> GCONV_DEVICE int tap_offset(const ConvParams& p, const Geometry& g, int h) {
    int tap = (h * 8) / S::UC, c0 = (h * 8) % S::UC;
    if (tap >= g.taps) tap = 0, c0 = 0;
    int tz = 0;
    if constexpr (S::D3) {
        tz = tap / (p.Y * p.X);
        tap -= tz * p.Y * p.X;
    }
    const int ty = tap / p.X, tx = tap - ty * p.X;
    return ((((tz * p.dilation_d) * g.hh + ty * p.dilation_h) * g.hw +
             halo_slot(p, g, tx * p.dilation_w)) *
                S::PSTRIDE +
            c0) *
           2;
}

// Calls f(row, v) for the 16-byte vectors v < per_row of `rows` rows, the block's threads
// taking them in turn: a thread steps its (row, v) by the block's stride instead of dividing
// per vector (these kernels are bound by instruction issue where a tile's MMAs are few).
template <int THREADS, class F> GCONV_DEVICE void for_each_vector(int rows, int per_row, F&& f) {
    const int tid = static_cast<int>(threadIdx.x);
    const int step_rows = THREADS / per_row, step_rem = THREADS - step_rows * per_row;
    int row = tid / per_row, v = tid - row * per_row;
    for (; row < rows; row += step_rows, v += step_rem) {
        if (v >= per_row) v -= per_row, ++row;
        if (row >= rows) break;
        f(row, v);
    }
}

// Copies input plane `id` of image n (0 in 2D; zeros when it lies outside the image) into one
// halo plane `dst`: rows ih0 ..., columns iw0 ..., each pixel's CB channels as VPP 16-byte
// vectors, zeros outside the image and past the present channels.
template <class S>
GCONV_DEVICE void load_plane(const ConvParams& p, const Geometry& g, typename S::T* dst, int n,
                             int id, int ih0, int iw0, int ch0, int present) {
    typedef typename S::T T;
    const bool plane_ok = !S::D3 || static_cast<unsigned>(id) < static_cast<unsigned>(p.Di);
    const int plane = S::D3 ? n * p.Di + (plane_ok ? id : 0) : n;
    const T* in = static_cast<const T*>(p.in) + plane * p.Hi * p.Wi * p.C + ch0;
    for_each_vector<S::THREADS>(g.hh, g.hw * S::VPP, [&](int hy, int rem) {
        const int hx = static_cast<int>(static_cast<unsigned>(rem) / S::VPP);
        const int v = rem - hx * S::VPP;
        const int ih = ih0 + hy, iw = iw0 + hx;
        const bool ok = plane_ok && static_cast<unsigned>(ih) < static_cast<unsigned>(p.Hi) &&
                        static_cast<unsigned>(iw) < static_cast<unsigned>(p.Wi) && v * 8 < present;
        arch::copy_async<16>(
            dst + (hy * g.hw + halo_slot(p, g, hx)) * S::PSTRIDE + v * 8,
            ok ? static_cast<const void*>(in + (ih * p.Wi + iw) * p.C + v * 8) : p.in, ok);
    });
}

// Copies the input halo of one tile into `halo`, plane by plane.
template <class S>
GCONV_DEVICE void load_halo(const ConvParams& p, const Geometry& g, typename S::T* halo, int tile,
                            int ch0, int present) {
    const TileCoord t = tile_coord<S>(p, g, tile);
    const int ih0 = t.oh0 * p.stride_h - p.pad_h, iw0 = t.ow0 * p.stride_w - p.pad_w;
    const int id0 = t.od * p.stride_d - p.pad_d; // 0 in 2D
    for (int hz = 0; hz < g.hd; ++hz)
        load_plane<S>(p, g, halo + hz * g.hh * g.hw * S::PSTRIDE, t.n, id0 + hz, ih0, iw0, ch0,
                      present);
}

// Filter rows of the block's output channels, [row][tap * UC + channel of the unit] (bwd_data's
// view: the stored filter rotated by 180 degrees with its channel axes swapped, read here instead
// of from a rotated copy, so the view needs no kernel before this one); the halo
// offsets of the reduction's 8-channel halves (tap and channel part); and per padded tile pixel
// its halo offset and (row << 16 | column) in the tile, -1 for padding rows. Rows go to
// warps and columns to lanes, so no index needs a run-time division.
template <class S>
GCONV_DEVICE void stage_tables(const ConvParams& p, const Phase& ph, const Geometry& g,
                               typename S::T* ws, int* koff, int* pix, int* rc, int ch0,
                               int present) {
    typedef typename S::T T;
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid % GCONV_WARP_SIZE, warp = tid / GCONV_WARP_SIZE;
    constexpr int WARPS = S::THREADS / GCONV_WARP_SIZE;
    const T* w = static_cast<const T*>(p.wei);
    const int krr = g.taps * S::CPG; // one output channel's filter in GKYXC
    if constexpr (S::CPG % 8 == 0 && S::VIEW_FILTER) {
        // The view's filter row (g, k) holds at column (tap t, channel c) the stored
        // w[(g, c)][stored_tap(t)][k]. A thread moves one 8 x 8 block: 8 stored rows (c0 + i,
        // stored tap) of 8 k's each, transposed in registers into 8 view rows (k0 + j) of 8 c's.
        constexpr int B8 = S::CPG / 8;
        const int units = present / S::UC;
        const int stored = ph.Z * ph.Y * ph.X;
        for_each_vector<S::THREADS>(units * B8 * g.taps, B8, [&](int row, int kb) {
            const int u = row / (B8 * g.taps), rest = row - u * B8 * g.taps;
            const int cb = rest / g.taps, vt = rest - cb * g.taps;
            const int st = stored_tap(p, ph, vt);
            const T* src = w + ((ch0 + u * S::UC + cb * 8) * stored + st) * S::CPG + kb * 8;
            Raw<16> a[8];
#pragma unroll
            for (int i = 0; i < 8; ++i)
                a[i] = *reinterpret_cast<const Raw<16>*>(src + i * stored * S::CPG);
            T* dst = ws + (u * S::UC + kb * 8) * g.wstride + vt * S::UC + cb * 8;
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                Raw<16> y;
#pragma unroll
                for (int m = 0; m < 4; ++m)
                    y.v[m] =
                        prmt(a[2 * m].v[j / 2], a[2 * m + 1].v[j / 2], (j & 1) ? 0x7632u : 0x5410u);
                *reinterpret_cast<Raw<16>*>(dst + j * g.wstride) = y;
            }
        });
        // Zeros past the reduction, and whole zero rows past the present channels.
        for_each_vector<S::THREADS>(S::CB, g.wstride / 8, [&](int row, int v) {
            if (row >= present || v >= krr / 8)
                *reinterpret_cast<Raw<16>*>(ws + row * g.wstride + v * 8) = Raw<16>::zero();
        });
    } else if constexpr (S::CPG % 8 == 0) {
        // Whole rows of 16-byte vectors: the filter's, then zeros up to the row stride.
        for_each_vector<S::THREADS>(S::CB, g.wstride / 8, [&](int row, int v) {
            T* dst = ws + row * g.wstride + v * 8;
            if (v < krr / 8) {
                const bool ok = row < present;
                arch::copy_async<16>(
                    dst, ok ? static_cast<const void*>(w + (ch0 + row) * krr + v * 8) : p.wei, ok);
            } else {
                *reinterpret_cast<Raw<16>*>(dst) = Raw<16>::zero();
            }
        });
    } else {
        // Block-diagonal unit filter: row r (group (r % 8) / CPG of the unit) against column
        // tap * 8 + c' is the filter value only when c' belongs to the same group. One
        // CPG-wide load per (row, tap) and one 16-byte store of its 8 columns.
        for (int row = warp; row < S::CB; row += WARPS) {
            T* dst = ws + row * g.wstride;
            const T* src = w + (ch0 + row) * krr;
            const bool ok = row < present;
            const int rg = (row % 8) / S::CPG;
            for (int tap = lane; tap < g.taps; tap += GCONV_WARP_SIZE) {
                Raw<16> v = Raw<16>::zero();
                if (ok && S::VIEW_FILTER) {
                    // The view's (row, tap, c) is the stored w[(g, c)][stored_tap(tap)][k].
                    const int ch = ch0 + row, gk = ch - ch % S::CPG, k = ch - gk;
                    const int stored = ph.Z * ph.Y * ph.X, st = stored_tap(p, ph, tap);
                    const u16* wb = reinterpret_cast<const u16*>(w);
#pragma unroll
                    for (int col = 0; col < 8; ++col)
                        if (col / S::CPG == rg)
                            v.v[col / 2] |=
                                u32{wb[((gk + col % S::CPG) * stored + st) * S::CPG + k]}
                                << ((col & 1) * 16);
                } else if (ok) {
                    const Raw<S::CPG* 2> r =
                        *reinterpret_cast<const Raw<S::CPG * 2>*>(src + tap * S::CPG);
                    // Column col (compile-time) holds value col % CPG when col / CPG == rg.
#pragma unroll
                    for (int col = 0; col < 8; ++col) {
                        const int c = col % S::CPG;
                        const u32 bits =
                            S::CPG == 1 ? r.v[0] : (r.v[c / 2] >> ((c & 1) * 16)) & 0xffffu;
                        if (col / S::CPG == rg) v.v[col / 2] |= bits << ((col & 1) * 16);
                    }
                }
                *reinterpret_cast<Raw<16>*>(dst + tap * 8) = v;
            }
            for (int k = g.taps * 8 + lane; k < g.wstride; k += GCONV_WARP_SIZE) dst[k] = T{0};
        }
    }
    for (int h = tid; h < g.kr / 8; h += S::THREADS) koff[h] = tap_offset<S>(p, g, h);
    const int rows = g.m_items * S::MF * 16;
    for (int r = warp; r * g.tw < rows; r += WARPS)
        for (int c = lane; c < g.tw; c += GCONV_WARP_SIZE) {
            const int ml = r * g.tw + c;
            if (ml >= rows) continue;
            const bool in_tile = ml < g.tile_pixels;
            pix[ml] = in_tile ? pixel_offset(p, g, r, c, S::PSTRIDE) : 0;
            rc[ml] = in_tile ? (r << 16) | c : -1;
        }
}

// One tile out of a loaded halo: items of (MF m16 fragments) x (one unit), every kWarps-th to
// this warp; the fragments of k16 step s + 1 are fetched before the MMAs of step s.
template <class Cfg>
GCONV_DEVICE void compute_tile(const ConvParams& p, const Phase& ph, const Geometry& g,
                               const typename Shape<Cfg>::T* halo, const typename Shape<Cfg>::T* ws,
                               const int* koff, const int* pix, const int* rc, float* red, int tile,
                               int ch0, int units) {
    typedef Shape<Cfg> S;
    typedef typename S::T T;
    const int lane = static_cast<int>(threadIdx.x) % GCONV_WARP_SIZE;
    const int warp_id = static_cast<int>(threadIdx.x) / GCONV_WARP_SIZE;
    // The warp's place in its half (its items) and which half of the steps it reduces.
    const int warp = S::KSPLIT == 1 ? warp_id : warp_id % S::TEAM;
    const int kpart = S::KSPLIT == 1 ? 0 : warp_id / S::TEAM;
    const int half_steps = (g.steps + 1) / 2;
    const int s_begin = kpart == 0 ? 0 : half_steps;
    const int s_end = S::KSPLIT == 1 || kpart == 1 ? g.steps : half_steps;
    const TileCoord t = tile_coord<S>(p, g, tile);
    const int oh0 = t.oh0, ow0 = t.ow0;
    // Output pixel of tile row 0, column 0, and the steps of a row and a column (NDHW order).
    const int plane = S::D3 ? t.n * p.Do + t.od : t.n;
    const int base = (plane * ph.H + ph.rh + ph.sh * oh0) * ph.W + ph.rw + ph.sw * ow0;
    const int row_step = ph.sh * ph.W, col_step = ph.sw;
    T* out = static_cast<T*>(p.out);
    const u32 hbase = arch::shared_address(halo), wbase = arch::shared_address(ws);
    const int items = g.m_items * units;
    // Items in the order (m item, unit); this warp starts at item `warp` and steps by TEAM.
    int mi = warp / units, u = warp - (warp / units) * units;
    for (int item = warp; item < items; item += S::TEAM) {
        u32 abase[S::MF]; // shared byte address of this lane's A row, tap 0
#pragma unroll
        for (int f = 0; f < S::MF; ++f)
            abase[f] = hbase + 2 * (pix[(mi * S::MF + f) * 16 + lane % 16] + u * S::UC);
        float acc[S::MF][S::NF][4];
#pragma unroll
        for (int f = 0; f < S::MF; ++f)
#pragma unroll
            for (int j = 0; j < S::NF; ++j)
#pragma unroll
                for (int q = 0; q < 4; ++q) acc[f][j][q] = 0.0f;

        // ldmatrix row addresses of the filter: lane l feeds row (l & 7) of matrix l / 8
        // (x4: two n8 fragments x two k halves; x2: lanes 0-15, one n8 fragment).
        const u32 wrow = wbase + 2 * ((u * S::UC + (lane >> 4) * 8 + (lane & 7)) * g.wstride +
                                      ((lane >> 3) & 1) * 8);
        const u32 wlast = wbase + 2 * ((u * S::UC + (S::NF - 1) * 8 + (lane & 7)) * g.wstride +
                                       ((lane >> 3) & 1) * 8);
        // Running shared addresses of step s: this lane's reduction half in koff (two ints per
        // step) and its filter rows (16 elements per step); step s + 1 is an immediate offset.
        u32 ka = arch::shared_address(koff) + 4 * (lane >> 4) + 8 * s_begin;
        u32 wa = wrow + 32 * s_begin, wl = wlast + 32 * s_begin;
        auto fetch = [&](auto next, u32(&a)[S::MF][4], u32(&b)[S::NF][2]) {
            constexpr int P = decltype(next)::value;
            const u32 ko = lds_u32<8 * P>(ka);
#pragma unroll
            for (int f = 0; f < S::MF; ++f) ldsm_x4(a[f], abase[f] + ko);
#pragma unroll
            for (int j = 0; j + 1 < S::NF; j += 2) {
                u32 r4[4];
                ldsm_x4_at<32 * P>(r4, wa + 16 * j * g.wstride);
                b[j][0] = r4[0], b[j][1] = r4[1], b[j + 1][0] = r4[2], b[j + 1][1] = r4[3];
            }
            if constexpr (S::NF % 2 == 1) {
                u32 r2[2];
                ldsm_x2_at<32 * P>(r2, wl);
                b[S::NF - 1][0] = r2[0], b[S::NF - 1][1] = r2[1];
            }
        };
        auto multiply = [&](const u32(&a)[S::MF][4], const u32(&b)[S::NF][2]) {
#pragma unroll
            for (int f = 0; f < S::MF; ++f)
#pragma unroll
                for (int j = 0; j < S::NF; ++j) arch::mma_16816<S::IS_HALF>(acc[f][j], a[f], b[j]);
        };
        // Steps in pairs, the fragments of the next step fetched before this step's MMAs.
        u32 a0[S::MF][4], b0[S::NF][2], a1[S::MF][4], b1[S::NF][2];
        if (S::KSPLIT == 1 || s_begin < s_end) {
            fetch(IntConst<0>{}, a0, b0);
            int s = s_begin;
            for (; s + 2 <= s_end; s += 2) {
                fetch(IntConst<1>{}, a1, b1);
                multiply(a0, b0);
                ka += 16, wa += 64, wl += 64;
                if (s + 2 < s_end) fetch(IntConst<0>{}, a0, b0);
                multiply(a1, b1);
            }
            if (s < s_end) multiply(a0, b0);
        }
        if constexpr (S::KSPLIT == 2) {
            // The second half hands its sums over (lane-fastest: conflict-free), the first adds
            // them; the pair meets again before the next item overwrites the slots.
            float* slots = red + warp * S::ACC * GCONV_WARP_SIZE + lane;
            float* flat = &acc[0][0][0];
            if (kpart == 1) {
#pragma unroll
                for (int e = 0; e < S::ACC; ++e) slots[e * GCONV_WARP_SIZE] = flat[e];
            }
            arch::named_barrier<2 * GCONV_WARP_SIZE>(1 + warp);
            if (kpart == 0) {
#pragma unroll
                for (int e = 0; e < S::ACC; ++e) flat[e] += slots[e * GCONV_WARP_SIZE];
            }
            arch::named_barrier<2 * GCONV_WARP_SIZE>(1 + warp);
        }

        // C fragment: rows lane / 4 and + 8, channels 2 * (lane % 4) + {0, 1} of each n8.
#pragma unroll
        for (int f = 0; f < S::MF && kpart == 0; ++f) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int packed = rc[(mi * S::MF + f) * 16 + lane / 4 + half * 8];
                const int r = packed >> 16, cc = packed & 0xffff;
                if (packed < 0 || oh0 + r >= p.Ho || ow0 + cc >= p.Wo) continue;
                T* dst = out + (base + r * row_step + cc * col_step) * p.K + ch0 + u * S::UC +
                         2 * (lane % 4);
#pragma unroll
                for (int j = 0; j < S::NF; ++j)
                    *reinterpret_cast<u32*>(dst + j * 8) =
                        pack2<S::IS_HALF>(acc[f][j][half * 2], acc[f][j][half * 2 + 1]);
            }
        }
        u += S::TEAM;
        while (u >= units) u -= units, ++mi;
    }
}

// Tile block `block` walks tiles block, + blocks, ... of channel run ch0 (one tile without dsb).
// With dsb the halo has two buffers and the copy of the next tile runs under the MMAs of this
// one; the filter is staged once per block either way.
template <class Cfg>
GCONV_DEVICE void run(const ConvParams& p, const Phase& ph, int block, int blocks, int ch0) {
    typedef Shape<Cfg> S;
    typedef typename S::T T;
    constexpr bool DSB = Cfg::kDoubleBuffer != 0;
    const Geometry g = geometry<S>(p);
    const int present = p.C - ch0 < S::CB ? p.C - ch0 : S::CB; // whole units (C % UC == 0)
    const int units = present / S::UC;
    const int tiles = p.N * (S::D3 ? p.Do : 1) * g.tiles_h * g.tiles_w;
    const int halo_elems = g.hd * g.hh * g.hw * S::PSTRIDE;

    T* halo0 = reinterpret_cast<T*>(gconv_dynamic_smem);
    T* halo1 = halo0 + (DSB ? halo_elems : 0);
    T* ws = halo1 + halo_elems;
    int* koff = reinterpret_cast<int*>(ws + S::CB * g.wstride);
    int* pix = koff + g.kr / 8;
    int* rc = pix + g.m_items * S::MF * 16;
    float* red = reinterpret_cast<float*>(rc + g.m_items * S::MF * 16);

    int tile = block;
    const int stride = blocks;
    stage_tables<S>(p, ph, g, ws, koff, pix, rc, ch0, present);
    if (tile < tiles) load_halo<S>(p, g, halo0, tile, ch0, present);
    arch::async_commit();
    for (int i = 0; tile < tiles; tile += stride, ++i) {
        T* cur = DSB && (i & 1) ? halo1 : halo0;
        if constexpr (DSB) {
            if (tile + stride < tiles)
                load_halo<S>(p, g, (i & 1) ? halo0 : halo1, tile + stride, ch0, present);
            arch::async_commit();
            arch::async_wait<1>();
        } else {
            arch::async_wait<0>();
        }
        arch::barrier();
        compute_tile<Cfg>(p, ph, g, cur, ws, koff, pix, rc, red, tile, ch0, units);
        arch::barrier(); // every warp is done with `cur` before a copy overwrites it
        if constexpr (!DSB) {
            if (tile + stride < tiles) load_halo<S>(p, g, halo0, tile + stride, ch0, present);
            arch::async_commit();
        }
    }
}

// The plane walk (3D with double_smem_buffer): a block takes columns of tiles (image, row tile,
// column tile) block, + blocks, ... and walks each one's output planes in order. Input
// planes live in a ring of halo_d + stride_d halo planes (input plane id in slot (id + pad_d) %
// ring), so a step copies only the stride_d planes the next output plane adds, under the MMAs
// of this one, and each input plane crosses L2 -> SM once per column instead of once per tap
// plane. A tap's halo offset is its in-plane part plus its plane's slot (slot_bytes).
template <class S> struct PlaneColumn {
    const ConvParams& p;
    const Geometry& g;
    typename S::T* halo;
    int ring, plane_elems, thw, n, rest, ih0, iw0, ch0, present;

    GCONV_DEVICE PlaneColumn(const ConvParams& p_, const Geometry& g_, typename S::T* halo_,
                             int col, int ch0_, int present_)
        : p(p_), g(g_), halo(halo_), ch0(ch0_), present(present_) {
        ring = g.hd + p.stride_d;
        plane_elems = g.hh * g.hw * S::PSTRIDE;
        thw = g.tiles_h * g.tiles_w;
        n = col / thw;
        rest = col - n * thw;
        const int th_i = rest / g.tiles_w, tw_i = rest - th_i * g.tiles_w;
        ih0 = th_i * g.th * p.stride_h - p.pad_h;
        iw0 = tw_i * g.tw * p.stride_w - p.pad_w;
    }
    // Input plane key - pad_d into its slot.
    GCONV_DEVICE void load(int key) const {
        load_plane<S>(p, g, halo + (key % ring) * plane_elems, n, key - p.pad_d, ih0, iw0, ch0,
                      present);
    }
    // The planes output plane 0 reads.
    GCONV_DEVICE void load_first() const {
        for (int key = 0; key < g.hd; ++key) load(key);
    }
    // The planes output plane od + 1 reads that plane od does not: keys [k0 + stride_d, +
    // halo_d) minus [k0, k0 + halo_d); the ring holds both ranges at once.
    GCONV_DEVICE void load_next(int od) const {
        const int k0 = od * p.stride_d, next = k0 + p.stride_d;
        for (int key = next > k0 + g.hd ? next : k0 + g.hd; key < next + g.hd; ++key) load(key);
    }
    // Byte offset of the slot holding tap plane `tap_plane` (tz * dilation_d) of output plane od.
    GCONV_DEVICE int slot_bytes(int od, int tap_plane) const {
        return ((od * p.stride_d + tap_plane) % ring) * plane_elems * 2;
    }
    // The tile of output plane od in the kernels' tile order.
    GCONV_DEVICE int tile(int od) const { return (n * p.Do + od) * thw + rest; }
    static GCONV_DEVICE int columns(const ConvParams& p, const Geometry& g) {
        return p.N * g.tiles_h * g.tiles_w;
    }
};

// Forward / bwd_data's plane walk: the filter and tables are staged once per block; the
// reduction's halo offsets are rebuilt per plane from their in-plane part and tap plane.
template <class Cfg>
GCONV_DEVICE void run_planes(const ConvParams& p, const Phase& ph, int block, int blocks, int ch0) {
    typedef Shape<Cfg> S;
    typedef typename S::T T;
    const Geometry g = geometry<S>(p);
    const int present = p.C - ch0 < S::CB ? p.C - ch0 : S::CB;
    const int units = present / S::UC;
    const int ring = g.hd + p.stride_d;
    const int plane_bytes = g.hh * g.hw * S::PSTRIDE * 2;
    const int rows = g.m_items * S::MF * 16, halves = g.kr / 8;

    T* halo = reinterpret_cast<T*>(gconv_dynamic_smem);
    T* ws = halo + ring * g.hh * g.hw * S::PSTRIDE;
    int* koff = reinterpret_cast<int*>(ws + S::CB * g.wstride);
    int* pix = koff + halves;
    int* rc = pix + rows;
    int* kin = rc + rows;   // in-plane byte offset of each reduction half
    int* kz = kin + halves; // its tap's plane in the halo (tz * dilation_d)
    float* red = reinterpret_cast<float*>(kz + halves);
    const int tid = static_cast<int>(threadIdx.x);

    stage_tables<S>(p, ph, g, ws, koff, pix, rc, ch0, present);
    for (int h = tid; h < halves; h += S::THREADS) {
        const int full = tap_offset<S>(p, g, h);
        kz[h] = full / plane_bytes;
        kin[h] = full - kz[h] * plane_bytes;
    }
    const int columns = PlaneColumn<S>::columns(p, g);
    for (int col = block; col < columns; col += blocks) {
        const PlaneColumn<S> c(p, g, halo, col, ch0, present);
        c.load_first();
        arch::async_commit();
        for (int od = 0; od < p.Do; ++od) {
            if (od + 1 < p.Do) c.load_next(od);
            arch::async_commit();
            arch::async_wait<1>();
            for (int h = tid; h < halves; h += S::THREADS)
                koff[h] = kin[h] + c.slot_bytes(od, kz[h]);
            arch::barrier();
            compute_tile<Cfg>(p, ph, g, halo, ws, koff, pix, rc, red, c.tile(od), ch0, units);
            arch::barrier(); // every warp is done with these planes and offsets
        }
    }
}

template <class Cfg>
GCONV_DEVICE void run_view(const ConvParams& p, const Phase& ph, int block, int blocks, int ch0) {
    if constexpr (Shape<Cfg>::D3 && Cfg::kDoubleBuffer != 0)
        run_planes<Cfg>(p, ph, block, blocks, ch0);
    else
        run<Cfg>(p, ph, block, blocks, ch0);
}

// The grid's blocks in launch order (x fastest), read as channel run fastest: the blocks resident
// at the same time then copy every channel run of the same input pixels, whole NHWC pixel rows
// out of DRAM, instead of one run's slice of each pixel (64 of every 1024 bytes at C 512 and
// tile_n 32, which held DRAM at 58% of its peak on a C/G 8 stride-2 shape).
GCONV_DEVICE int launch_order_block() {
    return static_cast<int>(blockIdx.x) +
           static_cast<int>(gridDim.x) * static_cast<int>(blockIdx.y);
}

// Forward, and stride-1 bwd_data on its view (the host's: p is the view, the stored filter read
// rotated). p stays in the parameter bank, so it costs no registers.
template <class Cfg> GCONV_DEVICE void forward(const ConvParams& p) {
    const int runs = static_cast<int>(gridDim.y), b = launch_order_block();
    run_view<Cfg>(p, identity_phase(p), b / runs, static_cast<int>(gridDim.x),
                  (b % runs) * Shape<Cfg>::CB);
}

// bwd_data with a stride (entry gconv_phases): p is the bwd_data problem; each block derives its
// phase's view. After the channel run, the phases are fastest (grid x = tile blocks x phases), so
// the phases of a dIn region run side by side and their interleaved stores meet in L2.
template <class Cfg> GCONV_DEVICE void bwd_data_phases(const ConvParams& p) {
    static_assert(Shape<Cfg>::VIEW_FILTER, "the phases read the stored filter");
    const int runs = static_cast<int>(gridDim.y), b = launch_order_block();
    const int bx = b / runs, gx = static_cast<int>(gridDim.x);
    const int phases = p.stride_h * p.stride_w;
    ConvParams v;
    Phase ph;
    bwd_data_view(p, bx % phases, v, ph);
    run_view<Cfg>(v, ph, bx / phases, gx / phases, (b % runs) * Shape<Cfg>::CB);
}

} // namespace direct_mma
} // namespace gconv
