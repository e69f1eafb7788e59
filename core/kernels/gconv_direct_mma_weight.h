#pragma once
// Tensor-core direct bwd_weight for small groups (pipeline `direct_mma`, variant bwd_weight, 2D
// and 3D, NVIDIA): dW[k][tap][c] = sum over output pixels of dOut[pixel][k] * In[pixel + tap][c],
// per group, with the pixels as the MMA reduction. No im2col through global memory.
//
// Block: one channel run of kTileN channels (whole units, blockIdx.y) and a slice of the tiles of
// the forward kernel's geometry (TH x TW output pixels of one image or output plane, the halo
// over the planes the taps read): tiles blockIdx.x,
// + gridDim.x, ... (gridDim.x = split_k, the slices of the pixel reduction). Per tile:
//   1. cp.async copies the input halo of the tile (load_halo) and the dOut
//      rows of its pixels, kTileN channels each, zeros outside the image and on padding pixels
//      (tile pixels rounded up to 16); two buffers of each with double_smem_buffer (3D: the
//      plane walk of gconv_direct_mma.h run_planes, input planes in a ring, two dOut buffers;
//      the split_k blocks of a channel run take tile columns in turn).
//   2. Warps are wave_m pair warps x wave_n pixel warps. A pair warp owns kWarpTileM / 16
//      fixed pairs (unit, m16 fragment of the unit's reduction rows tap * UC + channel, the
//      forward kernel's reduction) for the whole block; the wave_n warps of the same pairs take
//      the tile's 16-pixel steps in turn. Per 16 pixels: A = the halo rows of those 16 pixels
//      shifted by the fragment's two 8-channel halves (ldmatrix.x4.trans: a matrix row in memory is
//      one pixel's 8 channels), B = the 16 dOut rows of the unit's output channels
//      (ldmatrix.trans), mma.sync m16n8k16 into fp32 accumulators that live across the block's
//      tiles.
// After its last tile a block writes its sums once into shared memory as the dense GKYXC slice of
// its channels (units below C/G 8 keep only the diagonal blocks of their 8 x 8 channel pairs; the
// pixel warps add theirs with shared atomics) and adds that slice to the zeroed fp32 workspace
// with vector reductions (arch::atomic_add_run). The last block of a channel run to finish (a
// ticket counter per run after dW in the workspace) converts the run's slice into dW: no finish
// kernel. Pairs beyond one block's pair warps go to blockIdx.z.
// Grid (codegen/launch_plan_direct_mma.cpp): x = min(split_k, tiles), y = ceil(C / kTileN),
// z = ceil(units of a run * fragments per unit / (warps * pairs per warp)).
#include "gconv_direct_mma.h"
#include "gconv_weight_runs.h"

namespace gconv {
namespace direct_mma {

template <class Cfg> struct WeightShape {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    static constexpr int CPG = Cfg::kCpg;
    static constexpr int UC = CPG < 8 ? 8 : CPG;
    static constexpr int CB = Cfg::kTileN;
    static constexpr int VPP = CB / 8;
    static constexpr int PAD = VPP % 2 == 0 ? 8 : 16;
    static constexpr int PSTRIDE = CB + PAD; // elements per halo and dOut pixel
    static constexpr int MF = 1;             // geometry(): m_items = 16-pixel steps of a tile
    static constexpr int NF = UC / 8;        // n8 fragments per unit
    static constexpr int PAIRS = Cfg::kWarpTileM / 16;
    static constexpr int TM = Cfg::kTileM;
    static constexpr int PAIR_WARPS = Cfg::kPairWarps;   // warps over (unit, fragment) pairs
    static constexpr int PIXEL_WARPS = Cfg::kPixelWarps; // warps over a tile's 16-pixel steps
    static constexpr int THREADS = PAIR_WARPS * PIXEL_WARPS * GCONV_WARP_SIZE;
    static constexpr bool IS_HALF = Cfg::kDType == 1;
    static constexpr bool D3 = Cfg::kNdim == 3;
    static_assert(sizeof(T) == 2, "bf16 / fp16 only");
    static_assert(CPG == 1 || CPG == 2 || CPG == 4 || CPG % 8 == 0, "C/G: 1, 2, 4 or 8k");
    static_assert(CB % UC == 0 && CB >= UC, "tile_n must hold whole units");
    static_assert(PAIRS >= 1 && PAIRS * 16 == Cfg::kWarpTileM, "warp_tile_m: 16 per pair");
};

// The dOut rows of one tile: padded tile pixel ml at row ml, zeros where rc[ml] is padding or
// past the image.
template <class S>
GCONV_DEVICE void load_dout(const ConvParams& p, const Geometry& g, typename S::T* dst,
                            const int* rc, int tile, int ch0, int present) {
    typedef typename S::T T;
    const TileCoord t = tile_coord<S>(p, g, tile);
    const T* dout = static_cast<const T*>(p.out) + ch0;
    const int rows = g.m_items * 16;
    for (int e = static_cast<int>(threadIdx.x); e < rows * S::VPP; e += S::THREADS) {
        const int ml = e / S::VPP, v = e - ml * S::VPP;
        const int packed = rc[ml];
        const int oh = t.oh0 + (packed >> 16), ow = t.ow0 + (packed & 0xffff);
        const bool ok = packed >= 0 && oh < p.Ho && ow < p.Wo && v * 8 < present;
        const T* src = dout + output_pixel<S>(p, t, oh, ow) * p.K + v * 8;
        arch::copy_async<16>(dst + ml * S::PSTRIDE + v * 8,
                             ok ? static_cast<const void*>(src) : p.out, ok);
    }
}

// Halo offsets of the reduction's 8-channel halves (bytes) and, per padded tile pixel, its halo
// offset of tap 0 (elements) and (row << 16 | column), -1 for padding.
template <class S>
GCONV_DEVICE void stage_weight_tables(const ConvParams& p, const Geometry& g, int* koff, int* pix,
                                      int* rc) {
    const int tid = static_cast<int>(threadIdx.x);
    for (int h = tid; h < g.kr / 8; h += S::THREADS) koff[h] = tap_offset<S>(p, g, h);
    const int rows = g.m_items * 16;
    for (int ml = tid; ml < rows; ml += S::THREADS) {
        const int r = ml / g.tw, c = ml - r * g.tw;
        const bool in_tile = ml < g.tile_pixels;
        pix[ml] = in_tile ? pixel_offset(p, g, r, c, S::PSTRIDE) : 0;
        rc[ml] = in_tile ? (r << 16) | c : -1;
    }
}

template <class Cfg> GCONV_DEVICE void bwd_weight(const ConvParams& p, void* workspace) {
    typedef WeightShape<Cfg> S;
    typedef typename S::T T;
    constexpr bool DSB = Cfg::kDoubleBuffer != 0;
    constexpr int P = S::PAIRS, NF = S::NF;
    const Geometry g = geometry<S>(p);
    const int ch0 = static_cast<int>(blockIdx.y) * S::CB;
    const int present = p.C - ch0 < S::CB ? p.C - ch0 : S::CB; // whole units (C % UC == 0)
    const int frags = g.kr / 16;                               // m16 fragments per unit
    const int pairs = present / S::UC * frags;
    const int tiles = p.N * (S::D3 ? p.Do : 1) * g.tiles_h * g.tiles_w;
    const int rows = g.m_items * 16;
    const int halo_elems = g.hd * g.hh * g.hw * S::PSTRIDE, dout_elems = rows * S::PSTRIDE;
    // 3D with dsb: the plane walk (gconv_direct_mma.h run_planes), input planes in a ring.
    constexpr bool WALK = S::D3 && DSB;
    const int ring = g.hd + p.stride_d;
    const int plane_elems = g.hh * g.hw * S::PSTRIDE, plane_bytes = plane_elems * 2;

    T* halo0 = reinterpret_cast<T*>(gconv_dynamic_smem);
    T* halo1 = halo0 + (DSB && !WALK ? halo_elems : 0);
    T* dout0 = WALK ? halo0 + ring * plane_elems : halo1 + halo_elems;
    T* dout1 = dout0 + (DSB ? dout_elems : 0);
    int* koff = reinterpret_cast<int*>(dout1 + dout_elems);
    int* pix = koff + g.kr / 8;
    int* rc = pix + rows;

    const int lane = static_cast<int>(threadIdx.x) % GCONV_WARP_SIZE;
    const int warp = static_cast<int>(threadIdx.x) / GCONV_WARP_SIZE;
    const int wm = warp % S::PAIR_WARPS, wp = warp / S::PAIR_WARPS;
    const int q0 = (static_cast<int>(blockIdx.z) * S::PAIR_WARPS + wm) * P;
    const int mine = pairs - q0 < P ? (pairs - q0 < 0 ? 0 : pairs - q0) : P;

    stage_weight_tables<S>(p, g, koff, pix, rc);
    arch::barrier();

    // Per pair: the unit, and the lane's A row offset without the pixel part (bytes): matrix
    // lane / 8 is (half lane / 8 % 2 of the fragment, pixels 8 * (lane / 16) + 0..7). `fresh`
    // marks the pairs whose unit differs from the previous pair's (B is loaded for those).
    // The plane walk keeps the offset's tap plane apart (az) and adds its ring slot per plane
    // (acur); otherwise acur is aoff.
    int unit[P], az[P];
    u32 aoff[P], acur[P];
    unsigned fresh = 0;
#pragma unroll
    for (int i = 0; i < P; ++i) {
        const int q = i < mine ? q0 + i : 0;
        unit[i] = q / frags;
        const int f = q - unit[i] * frags;
        const int full = koff[2 * f + ((lane >> 3) & 1)];
        az[i] = WALK ? full / plane_bytes : 0;
        aoff[i] = static_cast<u32>(2 * unit[i] * S::UC + full - az[i] * plane_bytes);
        acur[i] = aoff[i];
        if (i == 0 || unit[i] != unit[i - 1]) fresh |= 1u << i;
    }
    const int a_px = (lane >> 4) * 8 + (lane & 7);       // A: pixel of the lane's row
    const int b_px = ((lane >> 3) & 1) * 8 + (lane & 7); // B: pixel of the lane's row
    const int b_ch = (lane >> 4) * 8;                    // B x4: second n8 fragment
    float acc[P][NF][4];
#pragma unroll
    for (int i = 0; i < P; ++i)
#pragma unroll
        for (int j = 0; j < NF; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    // One 16-pixel step of the warp's pairs; CHECK stops after `mine` (the full path tests none).
    auto step = [&](auto check, u32 hbase, u32 dbase, int s) {
        constexpr bool CHECK = decltype(check)::value != 0;
        const u32 apix = hbase + 2 * static_cast<u32>(pix[s * 16 + a_px]);
        const u32 brow = dbase + 2 * static_cast<u32>((s * 16 + b_px) * S::PSTRIDE);
        u32 b[NF][2];
#pragma unroll
        for (int i = 0; i < P; ++i) {
            if (CHECK && i >= mine) break;
            if (fresh & (1u << i)) {
                const u32 bu = brow + 2 * static_cast<u32>(unit[i] * S::UC);
#pragma unroll
                for (int j = 0; j + 1 < NF; j += 2) {
                    u32 r4[4];
                    ldsm_x4_trans(r4, bu + 2 * static_cast<u32>(j * 8 + b_ch));
                    b[j][0] = r4[0], b[j][1] = r4[1], b[j + 1][0] = r4[2], b[j + 1][1] = r4[3];
                }
                if constexpr (NF % 2 == 1) {
                    u32 r2[2];
                    ldsm_x2_trans(r2, bu + 2 * static_cast<u32>((NF - 1) * 8));
                    b[NF - 1][0] = r2[0], b[NF - 1][1] = r2[1];
                }
            }
            u32 a[4];
            ldsm_x4_trans(a, apix + acur[i]);
#pragma unroll
            for (int j = 0; j < NF; ++j) arch::mma_16816<S::IS_HALF>(acc[i][j], a, b[j]);
        }
    };

    // The pixel warps of a pair take a tile's 16-pixel steps in turn.
    auto tile_steps = [&](u32 hbase, u32 dbase) {
        if (mine == P) {
            for (int s = wp; s < g.m_items; s += S::PIXEL_WARPS)
                step(IntConst<0>{}, hbase, dbase, s);
        } else if (mine > 0) {
            for (int s = wp; s < g.m_items; s += S::PIXEL_WARPS)
                step(IntConst<1>{}, hbase, dbase, s);
        }
    };
    if constexpr (WALK) {
        // The plane walk (gconv_direct_mma.h PlaneColumn); the next plane's dOut rows are copied
        // with its new input planes.
        const int columns = PlaneColumn<S>::columns(p, g);
        for (int col = static_cast<int>(blockIdx.x); col < columns;
             col += static_cast<int>(gridDim.x)) {
            const PlaneColumn<S> c(p, g, halo0, col, ch0, present);
            c.load_first();
            load_dout<S>(p, g, dout0, rc, c.tile(0), ch0, present);
            arch::async_commit();
            for (int od = 0; od < p.Do; ++od) {
                if (od + 1 < p.Do) {
                    c.load_next(od);
                    load_dout<S>(p, g, (od & 1) ? dout0 : dout1, rc, c.tile(od + 1), ch0, present);
                }
                arch::async_commit();
                arch::async_wait<1>();
                arch::barrier();
#pragma unroll
                for (int i = 0; i < P; ++i)
                    acur[i] = aoff[i] + static_cast<u32>(c.slot_bytes(od, az[i]));
                tile_steps(arch::shared_address(halo0),
                           arch::shared_address((od & 1) ? dout1 : dout0));
                arch::barrier(); // every warp is done with these planes and rows
            }
        }
    } else {
        int tile = static_cast<int>(blockIdx.x);
        const int stride = static_cast<int>(gridDim.x);
        if (tile < tiles) {
            load_halo<S>(p, g, halo0, tile, ch0, present);
            load_dout<S>(p, g, dout0, rc, tile, ch0, present);
        }
        arch::async_commit();
        for (int t = 0; tile < tiles; tile += stride, ++t) {
            const bool second = DSB && (t & 1);
            if constexpr (DSB) {
                if (tile + stride < tiles) {
                    load_halo<S>(p, g, second ? halo0 : halo1, tile + stride, ch0, present);
                    load_dout<S>(p, g, second ? dout0 : dout1, rc, tile + stride, ch0, present);
                }
                arch::async_commit();
                arch::async_wait<1>();
            } else {
                arch::async_wait<0>();
            }
            arch::barrier();
            tile_steps(arch::shared_address(second ? halo1 : halo0),
                       arch::shared_address(second ? dout1 : dout0));
            arch::barrier(); // every warp is done with this tile's buffers before a copy reuses
                             // them
            if constexpr (!DSB) {
                if (tile + stride < tiles) {
                    load_halo<S>(p, g, halo0, tile + stride, ch0, present);
                    load_dout<S>(p, g, dout0, rc, tile + stride, ch0, present);
                }
                arch::async_commit();
            }
        }
    }
    arch::async_wait<0>();
    arch::barrier();

    // The block's dense slice [channel][tap][c] of GKZYXC in shared memory (the host sizes the
    // dynamic shared memory for it); the pixel warps of a pair add into it.
    float* slice = reinterpret_cast<float*>(gconv_dynamic_smem);
    const int slice_elems = present * g.taps * S::CPG;
    // With one chunk and one pixel warp per pair every slice element is stored exactly once.
    if (S::PIXEL_WARPS > 1 || gridDim.z > 1) {
        for (int e = static_cast<int>(threadIdx.x); e < slice_elems; e += S::THREADS)
            slice[e] = 0.0f;
        arch::barrier();
    }
#pragma unroll
    for (int i = 0; i < P; ++i) {
        if (i >= mine) break;
        const int f = q0 + i - unit[i] * frags;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int row = f * 16 + lane / 4 + (e >> 1) * 8; // tap * UC + channel of the unit
            const int tap = row / S::UC, cu = row - tap * S::UC;
            if (tap >= g.taps) continue;
#pragma unroll
            for (int j = 0; j < NF; ++j) {
                const int ku = j * 8 + 2 * (lane % 4) + (e & 1); // output channel in the unit
                if (S::CPG < 8 && cu / S::CPG != ku / S::CPG) continue;
                float* dst = slice + ((unit[i] * S::UC + ku) * g.taps + tap) * S::CPG + cu % S::CPG;
                if constexpr (S::PIXEL_WARPS == 1)
                    *dst = acc[i][j][e];
                else
                    atomicAdd(dst, acc[i][j][e]);
            }
        }
    }
    arch::barrier();
    // One vector reduction per 4 floats into the fp32 workspace; then the block that adds last to
    // this channel run (a ticket per run after dW in the workspace, zeroed with it) converts the
    // run's slice into dW.
    float* ws = static_cast<float*>(workspace);
    float* dw = ws + ch0 * g.taps * S::CPG;
    for (int e = static_cast<int>(threadIdx.x) * 4; e < slice_elems; e += S::THREADS * 4)
        arch::atomic_add_run<4>(dw + e, slice + e);
    convert_run_when_last<T, S::THREADS>(
        dw, static_cast<T*>(const_cast<void*>(p.wei)) + ch0 * g.taps * S::CPG, slice_elems,
        weight_run_tickets(workspace, p.K * g.taps * S::CPG) + blockIdx.y, gridDim.x * gridDim.z,
        p.keep_workspace_zero != 0);
}

} // namespace direct_mma
} // namespace gconv
