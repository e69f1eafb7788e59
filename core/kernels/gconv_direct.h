#pragma once
// Direct convolution for depthwise and small C/G (pipeline `direct`): no GEMM, no tensor cores.
// With K/G = C/G = cpg the (g, c) channels of one pixel are one contiguous run of C elements in
// NDHWGC and NDHWGK alike, so a thread owns a vector of VEC consecutive channels of that run
// (VEC / cpg whole groups) and every tensor access is one VEC-wide load or store.
//
// Block: kTileN channels (kTileN / VEC channel lanes) x pixel lanes (the rest of the threads).
//   forward / bwd_data: a pixel lane computes kTileK consecutive output (forward) or input
//     (bwd_data) pixels along W of ROWS consecutive rows (ROWS = kTileM / (pixel lanes x
//     kTileK)), fp32 accumulators in registers; the block's filter slice is staged
//     once into shared memory as fp32 [tap][channel][cpg].
//   forward, depthwise K x K (K = 3, 5, 7) with stride and dilation 1 along H and W: entries of
//     their own (forward_filter, `gconv_direct_k<K>`), the filter size compile-time and each
//     input row read once per thread into a sliding window of kTileK + K - 1 vectors in
//     registers that serves every tap and every one of the ROWS output rows it feeds.
//   bwd_data, the same K x K cases with stride 1 along D too: the forward window over dOut with
//     the filter rotated by 180 degrees (sliding_rows<BWD>).
//   bwd_weight, 2D depthwise K x K: sliding_weight (strips of kWeightStrip columns, every tap
//     in registers, one atomic per (channel, tap) per block).
//   bwd_weight otherwise: a block reduces kTileM output pixels (each pixel lane kTileK of
//     them) for one filter row (z, y) and all its X taps (or a single tap when X is not 3, 5 or 7
//     or the accumulators would not fit), reduces across the pixel lanes of each warp by shuffles
//     and adds its fp32 partial sums atomically into dW (fp32) or the zeroed fp32 workspace,
//     which the last block of each channel block converts (finish_channel_block).
// bwd_data gathers in the transposed direction: an input pixel receives the taps whose
// (coordinate + pad - tap * dilation) is a multiple of the stride (a per-tap test).
// Pixel blocks (codegen/direct_plan.h computes the same): forward ceil(N*Do*ceil(Ho/ROWS)*
// ceil(Wo/kTileK) / pixel lanes) for every forward entry, bwd_data the same over
// N*Di*ceil(Hi/ROWS)*ceil(Wi/kTileK), bwd_weight filter rows * ceil(N*Do*Ho*Wo / kTileM)
// (sliding_weight: its own, see there); channel blocks ceil(C / kTileN); grid x is their
// product, the channel block fastest (channel_block(), pixel_block()). Offsets are 32-bit
// (is_supported checks).
// ConvParams as for the GEMM kernels: forward writes out, bwd_data writes in, bwd_weight wei.
#include "gconv_arch.h"
#include "gconv_convert.h"
#include "gconv_params.h"
#include "gconv_weight_runs.h"

namespace gconv {

namespace direct {

// Pipeline::Direct in config/enums.h (after the GEMM pipelines of gconv_gemm.h).
enum { kPipelineCode = 7 };

template <class Cfg> struct Shape {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    static constexpr int VEC = Cfg::kVec;
    static constexpr int THREADS = Cfg::kWarps * GCONV_WARP_SIZE;
    static constexpr int TN = Cfg::kTileN;
    static constexpr int CL = TN / VEC; // channel lanes
    static constexpr int PL = THREADS / CL;
    static constexpr int PIX = Cfg::kTileK;
    static constexpr int TM = Cfg::kTileM;
    static constexpr bool NDIM3 = Cfg::kNdim == 3;
    // forward / bwd_data: destination rows a pixel lane computes; bwd_weight keeps 1 (the rules).
    static constexpr int ROWS = TM / (PL * PIX);
    static_assert(CL >= 1 && CL * VEC == TN, "tile_n must be a multiple of the vector");
    static_assert(THREADS % CL == 0, "the channel lanes must divide the block");
    static_assert(PL * PIX * ROWS == TM && (ROWS == 1 || ROWS == 2 || ROWS == 4),
                  "tile_m must be pixel lanes x tile_k x rows (1, 2 or 4)");
    static_assert(VEC * sizeof(T) <= 16, "a channel vector is at most 16 bytes");
};

// Grid x holds (pixel block, channel block) pairs with the channel block fastest, y is 1: the
// blocks that share a pixel block run together, so a pixel's C channels cross DRAM at once
// rather than in tile_n pieces far apart in time, each of which would miss L2 again on the lines
// it shares with its neighbours (codegen/launch_plan_direct.cpp computes the same grid).
template <class S> GCONV_DEVICE int channel_block(const ConvParams& p) {
    return static_cast<int>(blockIdx.x) % ((p.C + S::TN - 1) / S::TN);
}
template <class S> GCONV_DEVICE int pixel_block(const ConvParams& p) {
    return static_cast<int>(blockIdx.x) / ((p.C + S::TN - 1) / S::TN);
}

// The end of a direct bwd_weight block (bf16 / fp16: its adds go to the fp32 workspace): the
// block that adds last to its channel block's slice, `per_channel` floats per channel from
// channel ch0 on, converts the slice into dW (gconv_weight_runs.h). Every thread calls it.
template <class Cfg, int THREADS>
GCONV_DEVICE void finish_channel_block(const ConvParams& p, void* workspace, int ch0,
                                       int per_channel, int tile_n) {
    if constexpr (Cfg::kDType != 2) {
        typedef typename DTypeOf<Cfg::kDType>::type T;
        const int channel_blocks = (p.C + tile_n - 1) / tile_n;
        const int present = (p.C - ch0 < tile_n ? p.C - ch0 : tile_n) * per_channel;
        convert_run_when_last<T, THREADS>(
            static_cast<float*>(workspace) + ch0 * per_channel,
            static_cast<T*>(const_cast<void*>(p.wei)) + ch0 * per_channel, present,
            weight_run_tickets(workspace, p.C * per_channel) + ch0 / tile_n,
            gridDim.x / channel_blocks, p.keep_workspace_zero != 0);
    }
}

// One VEC-wide access, converted to / from fp32. Element j of a vector sits in the low half
// first (little-endian words); 16-bit types are {u16 bits} structs.
template <int VEC, typename T>
GCONV_DEVICE void unpack_vec(float (&f)[VEC], const Raw<VEC* static_cast<int>(sizeof(T))>& raw) {
    constexpr int BYTES = VEC * static_cast<int>(sizeof(T));
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
        if constexpr (sizeof(T) == 4) {
            f[j] = arch::bits_float(raw.v[j]);
        } else if constexpr (BYTES == 2) {
            f[j] = to_float(T{raw.v[0]});
        } else {
            f[j] = to_float(T{static_cast<u16>(raw.v[j >> 1] >> ((j & 1) * 16))});
        }
    }
}
template <int VEC, typename T> GCONV_DEVICE void load_vec(float (&f)[VEC], const T* src) {
    constexpr int BYTES = VEC * static_cast<int>(sizeof(T));
    unpack_vec<VEC, T>(f, *reinterpret_cast<const Raw<BYTES>*>(src));
}
// One input row of a sliding window: WIN vectors from element offset `base` on, C apart;
// columns or rows outside the image read zeros.
template <int VEC, typename T, int BYTES, int WIN>
GCONV_DEVICE void load_row(Raw<BYTES> (&row)[WIN], const T* src, int base,
                           const bool (&col_ok)[WIN], bool row_ok, int C) {
#pragma unroll
    for (int i = 0; i < WIN; ++i)
        row[i] = row_ok && col_ok[i] ? *reinterpret_cast<const Raw<BYTES>*>(src + base + i * C)
                                     : Raw<BYTES>::zero();
}
// One dOut row of a bwd_weight strip: SW vectors C apart; columns past the image read zeros.
template <int VEC, typename T, int BYTES, int SW>
GCONV_DEVICE void load_dout_row(Raw<BYTES> (&row)[SW], const T* src, const bool (&ok)[SW], int C) {
#pragma unroll
    for (int i = 0; i < SW; ++i)
        row[i] = ok[i] ? *reinterpret_cast<const Raw<BYTES>*>(src + i * C) : Raw<BYTES>::zero();
}
template <int VEC, typename T> GCONV_DEVICE void store_vec(T* dst, const float (&f)[VEC]) {
    constexpr int BYTES = VEC * static_cast<int>(sizeof(T));
    Raw<BYTES> raw = Raw<BYTES>::zero();
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
        if constexpr (sizeof(T) == 4) {
            raw.v[j] = arch::float_bits(f[j]);
        } else if constexpr (BYTES == 2) {
            raw.v[0] = from_float<T>(f[j]).bits;
        } else {
            raw.v[j >> 1] |= static_cast<u32>(from_float<T>(f[j]).bits) << ((j & 1) * 16);
        }
    }
    *reinterpret_cast<Raw<BYTES>*>(dst) = raw;
}

// N consecutive fp32 values of shared memory in 16-byte (8-byte) reads where N allows; src is
// aligned to the read width (the filter slice's channel runs are).
template <int N> GCONV_DEVICE void load_f32(float (&f)[N], const float* src) {
    constexpr int W = N % 4 == 0 ? 4 : N % 2 == 0 ? 2 : 1;
#pragma unroll
    for (int q = 0; q < N / W; ++q) {
        const Raw<W* 4> raw = reinterpret_cast<const Raw<W * 4>*>(src)[q];
#pragma unroll
        for (int k = 0; k < W; ++k) f[q * W + k] = arch::bits_float(raw.v[k]);
    }
}

GCONV_DEVICE float shuffle_xor(float v, int mask) {
#if defined(GCONV_NV)
    return __shfl_xor_sync(0xffffffffu, v, mask);
#else
    const int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
    return __builtin_bit_cast(
        float, __builtin_amdgcn_ds_bpermute((lane ^ mask) << 2, __builtin_bit_cast(int, v)));
#endif
}

// The part of its N sums a lane holds after sum_pixel_lanes: values first .. first + count - 1
// of the original order (count: pixel_lane_share), summed over the warp's pixel lanes; `writes`
// is false on a lane whose part another lane of the warp also holds.
struct LaneShare {
    int first;
    bool writes;
};
// The count of that part: N halved once per butterfly step while it is even.
constexpr int pixel_lane_share(int n, int channel_lanes) {
    for (int m = channel_lanes; m < GCONV_WARP_SIZE; m *= 2)
        if (n % 2 == 0) n /= 2;
    return n;
}
template <int N, int M> GCONV_DEVICE void sum_lanes_from(float* acc, int lane, LaneShare& share) {
    if constexpr (M < GCONV_WARP_SIZE) {
        const bool upper = (lane & M) != 0;
        if constexpr (N % 2 == 0) {
            // Each lane keeps one half and adds its partner's copy of that half: the values
            // shuffled per step halve, and the lanes end with distinct parts to store.
            constexpr int H = N / 2;
#pragma unroll
            for (int i = 0; i < H; ++i) {
                const float give = upper ? acc[i] : acc[i + H];
                const float keep = upper ? acc[i + H] : acc[i];
                acc[i] = keep + shuffle_xor(give, M);
            }
            if (upper) share.first += H;
            sum_lanes_from<H, M * 2>(acc, lane, share);
        } else {
#pragma unroll
            for (int i = 0; i < N; ++i) acc[i] += shuffle_xor(acc[i], M);
            if (upper) share.writes = false;
            sum_lanes_from<N, M * 2>(acc, lane, share);
        }
    }
}
// Sums the N fp32 values of every thread over the pixel lanes of its warp that share its channel
// vector (CL lanes apart), a butterfly that halves what it exchanges while N allows: afterwards a
// lane holds the sums of its LaneShare in acc[0 .. count - 1]. The indices are compile-time after
// unrolling, so the values stay in registers.
template <class S, int N> GCONV_DEVICE LaneShare sum_pixel_lanes(float* acc) {
    LaneShare share{0, true};
    if constexpr (S::CL < GCONV_WARP_SIZE)
        sum_lanes_from<N, S::CL>(acc, static_cast<int>(threadIdx.x) % GCONV_WARP_SIZE, share);
    return share;
}

GCONV_DEVICE bool inside(int v, int extent) {
    return static_cast<unsigned>(v) < static_cast<unsigned>(extent);
}

// The source pixel along one dimension that tap k reads for pixel o: forward, the input pixel
// o * stride - pad + k * dilation; BWD (bwd_data), the output pixel (o + pad - k * dilation) /
// stride where that divides. False where there is none inside [0, extent).
template <bool BWD>
GCONV_DEVICE bool tap_source(int o, int k, int pad, int dilation, int stride, int extent,
                             int& src) {
    if constexpr (BWD) {
        const int t = o + pad - k * dilation;
        if (t < 0 || t % stride != 0) return false;
        src = t / stride;
    } else {
        src = o * stride - pad + k * dilation;
    }
    return inside(src, extent);
}

// Stages the filter of the block's kTileN channels as fp32 ws[(tap * TN + j) * CPG + r], where
// j is the channel the thread accumulates and r the reduced one (c for forward: w[ch, tap, r];
// k for bwd_data: w[(g, r), tap, c] for ch = (g, c)). Channels past C read zeros. TAPS > 0 is
// the tap count known at compile time (the divisions become multiplications), 0 reads `taps`.
// FLIP stores tap t at taps - 1 - t: the filter rotated by 180 degrees (every spatial axis
// reversed), which turns a stride-1 bwd_data into a forward convolution of dOut.
template <class Cfg, int CPG, bool TRANSPOSE, int TAPS = 0, bool FLIP = false>
GCONV_DEVICE void stage_filter(const ConvParams& p, float* ws, int ch0, int taps) {
    typedef Shape<Cfg> S;
    const typename S::T* w = static_cast<const typename S::T*>(p.wei);
    const int tap_count = TAPS > 0 ? TAPS : taps;
    const int per_channel = tap_count * CPG;
    const int count = S::TN * per_channel;
    const int present = (p.C - ch0) * per_channel;
    for (int e = static_cast<int>(threadIdx.x); e < count; e += S::THREADS) {
        // e walks the slice in GKZYXC order: [group][k][tap][c] = [channel (g, k)][tap][c].
        const int row = e / per_channel; // (g, k) relative to ch0
        const int rem = e - row * per_channel;
        const int stored = rem / CPG;
        const int c = rem - stored * CPG;
        const int tap = FLIP ? tap_count - 1 - stored : stored;
        const float v = e < present ? to_float(w[ch0 * per_channel + e]) : 0.0f;
        if constexpr (TRANSPOSE) {
            const int k = row % CPG, gbase = row - k; // thread channel (g, c), reduced k
            ws[(tap * S::TN + gbase + c) * CPG + k] = v;
        } else {
            ws[(tap * S::TN + row) * CPG + c] = v;
        }
    }
}

// Forward (BWD false): out pixel o += in[o * s - pad + tap * dil] * w over the taps.
// bwd_data (BWD true): dIn pixel i += dOut[(i + pad - tap * dil) / s] * w^T over the taps whose
// offset divides by the stride.
template <class Cfg, int CPG, bool BWD> GCONV_DEVICE void gather(const ConvParams& p) {
    typedef Shape<Cfg> S;
    typedef typename S::T T;
    constexpr int VEC = S::VEC, PIX = S::PIX;
    float* ws = reinterpret_cast<float*>(gconv_dynamic_smem);
    const int taps = p.Z * p.Y * p.X;
    const int ch0 = channel_block<S>(p) * S::TN;
    stage_filter<Cfg, CPG, BWD>(p, ws, ch0, taps);
    arch::barrier();

    const int cl = static_cast<int>(threadIdx.x) % S::CL;
    const int pl = static_cast<int>(threadIdx.x) / S::CL;
    const int ch = ch0 + cl * VEC;
    // Pixels this block writes (dst) and reads (src).
    const int dD = BWD ? p.Di : p.Do, dH = BWD ? p.Hi : p.Ho, dW = BWD ? p.Wi : p.Wo;
    const int sD = BWD ? p.Do : p.Di, sH = BWD ? p.Ho : p.Hi, sW = BWD ? p.Wo : p.Wi;
    const int strips = (dW + PIX - 1) / PIX;
    const int bands = (dH + S::ROWS - 1) / S::ROWS;
    const int strip = pixel_block<S>(p) * S::PL + pl;
    if (ch >= p.C || strip >= p.N * dD * bands * strips) return;
    const int w0 = (strip % strips) * PIX;
    int row = strip / strips;
    const int h0 = (row % bands) * S::ROWS;
    row /= bands;
    const int d = S::NDIM3 ? row % dD : 0;
    const int n = S::NDIM3 ? row / dD : row;

    const T* src = static_cast<const T*>(BWD ? p.out : p.in);
    T* dst = static_cast<T*>(BWD ? const_cast<void*>(p.in) : p.out);
    // The rows of a band one after the other: this is the fallback, its code stays one row long.
#pragma unroll 1
    for (int h = h0; h < h0 + S::ROWS && h < dH; ++h) {
        float acc[PIX][VEC];
#pragma unroll
        for (int i = 0; i < PIX; ++i)
#pragma unroll
            for (int j = 0; j < VEC; ++j) acc[i][j] = 0.0f;

        for (int z = 0; z < (S::NDIM3 ? p.Z : 1); ++z) {
            int sd = 0;
            if constexpr (S::NDIM3) {
                if (!tap_source<BWD>(d, z, p.pad_d, p.dilation_d, p.stride_d, sD, sd)) continue;
            }
            for (int y = 0; y < p.Y; ++y) {
                int sh;
                if (!tap_source<BWD>(h, y, p.pad_h, p.dilation_h, p.stride_h, sH, sh)) continue;
                const T* src_row = src + ((n * sD + sd) * sH + sh) * sW * p.C + ch;
                for (int x = 0; x < p.X; ++x) {
                    const int tap = (z * p.Y + y) * p.X + x;
                    const float* wsrc = ws + (tap * S::TN + cl * VEC) * CPG;
                    float v[PIX][VEC];
#pragma unroll
                    for (int i = 0; i < PIX; ++i) {
                        int sw;
                        bool ok;
                        if constexpr (BWD) {
                            const int t = w0 + i + p.pad_w - x * p.dilation_w;
                            sw = t / p.stride_w;
                            ok = t >= 0 && t - sw * p.stride_w == 0 && sw < sW;
                        } else {
                            sw = (w0 + i) * p.stride_w - p.pad_w + x * p.dilation_w;
                            ok = inside(sw, sW);
                        }
                        if (ok) {
                            load_vec<VEC>(v[i], src_row + sw * p.C);
                        } else {
#pragma unroll
                            for (int j = 0; j < VEC; ++j) v[i][j] = 0.0f;
                        }
                    }
                    // Weights one output channel at a time: CPG registers, not VEC * CPG (the
                    // entry's register count is that of its largest C/G instantiation).
#pragma unroll
                    for (int j = 0; j < VEC; ++j) {
                        const int jb = j - j % CPG;
                        float wv[CPG];
#pragma unroll
                        for (int r = 0; r < CPG; ++r) wv[r] = wsrc[j * CPG + r];
#pragma unroll
                        for (int i = 0; i < PIX; ++i)
#pragma unroll
                            for (int r = 0; r < CPG; ++r) acc[i][j] += v[i][jb + r] * wv[r];
                    }
                }
            }
        }
        T* dst_row = dst + ((n * dD + d) * dH + h) * dW * p.C + ch;
#pragma unroll
        for (int i = 0; i < PIX; ++i)
            if (w0 + i < dW) store_vec<VEC>(dst_row + (w0 + i) * p.C, acc[i]);
    }
}

// Forward (BWD false) with C/G = CPG, stride 1 and dilation 1 along H and W, a KS x KS filter
// (3D: any Z, stride_d, dilation_d, the planes in a run-time loop). A pixel lane computes ROWS x
// PIX destination pixels of VEC channels: it reads each of the ROWS + KS - 1 source rows they
// need once, as a window of PIX + KS - 1 vectors, and every tap of every destination row that
// row feeds takes its inputs from the window in registers (PIX + KS - 1 loads per row instead of
// PIX x KS, and ROWS + KS - 1 rows instead of ROWS x KS). The loops over rows, taps and pixels
// are unrolled and the loads are predicated rather than branched around, so the compiler can
// issue a row's loads ahead of the previous row's FMAs.
// bwd_data (BWD true, stride 1 along every axis) is the same walk over dOut: with stride 1,
// dIn[i] = sum_t dOut[i + pad - t * dil] * w[t] is a forward convolution of dOut with the
// filter rotated by 180 degrees (staged flipped) and the pad (taps - 1) * dil - pad.
template <class Cfg, int CPG, int KS, bool BWD = false>
GCONV_DEVICE void sliding_rows(const ConvParams& p) {
    typedef Shape<Cfg> S;
    typedef typename S::T T;
    constexpr int VEC = S::VEC, PIX = S::PIX, ROWS = S::ROWS;
    constexpr int WIN = PIX + KS - 1, IN_ROWS = ROWS + KS - 1, PLANE = KS * KS;
    constexpr int BYTES = VEC * static_cast<int>(sizeof(T));
    float* ws = reinterpret_cast<float*>(gconv_dynamic_smem);
    const int ch0 = channel_block<S>(p) * S::TN;
    if constexpr (S::NDIM3)
        stage_filter<Cfg, CPG, BWD, 0, BWD>(p, ws, ch0, p.Z * PLANE);
    else
        stage_filter<Cfg, CPG, BWD, PLANE, BWD>(p, ws, ch0, PLANE);
    arch::barrier();

    // Source (read) and destination (written) extents and the pads that map one onto the other.
    const int sD = BWD ? p.Do : p.Di, sH = BWD ? p.Ho : p.Hi, sW = BWD ? p.Wo : p.Wi;
    const int dD = BWD ? p.Di : p.Do, dH = BWD ? p.Hi : p.Ho, dW = BWD ? p.Wi : p.Wo;
    const int pad_h = BWD ? KS - 1 - p.pad_h : p.pad_h;
    const int pad_w = BWD ? KS - 1 - p.pad_w : p.pad_w;
    const int pad_d = BWD ? (p.Z - 1) * p.dilation_d - p.pad_d : p.pad_d;
    const int stride_d = BWD ? 1 : p.stride_d;

    const int cl = static_cast<int>(threadIdx.x) % S::CL;
    const int pl = static_cast<int>(threadIdx.x) / S::CL;
    const int ch = ch0 + cl * VEC;
    const int strips = (dW + PIX - 1) / PIX;
    const int bands = (dH + ROWS - 1) / ROWS;
    const int strip = pixel_block<S>(p) * S::PL + pl;
    if (ch >= p.C || strip >= p.N * dD * bands * strips) return;
    const int w0 = (strip % strips) * PIX;
    int row = strip / strips;
    const int h0 = (row % bands) * ROWS;
    row /= bands;
    const int d = S::NDIM3 ? row % dD : 0;
    const int n = S::NDIM3 ? row / dD : row;

    const T* src = static_cast<const T*>(BWD ? p.out : p.in);
    const int wi0 = w0 - pad_w, hi0 = h0 - pad_h;
    bool col_ok[WIN];
#pragma unroll
    for (int i = 0; i < WIN; ++i) col_ok[i] = inside(wi0 + i, sW);
    float acc[ROWS][PIX][VEC];
#pragma unroll
    for (int o = 0; o < ROWS; ++o)
#pragma unroll
        for (int i = 0; i < PIX; ++i)
#pragma unroll
            for (int j = 0; j < VEC; ++j) acc[o][i][j] = 0.0f;

    for (int z = 0; z < (S::NDIM3 ? p.Z : 1); ++z) {
        int sd = 0;
        if constexpr (S::NDIM3) {
            sd = d * stride_d - pad_d + z * p.dilation_d;
            if (!inside(sd, sD)) continue;
        }
        // Element offset of (n, sd, hi0, wi0, ch); row r, column i add (r * sW + i) * C.
        const int base = (((n * sD + sd) * sH + hi0) * sW + wi0) * p.C + ch;
        const float* wz = ws + (z * PLANE * S::TN + cl * VEC) * CPG;
        // Row r + 1 is loaded (raw, as stored) before row r's FMAs: one row in flight per
        // thread. A fully unrolled row loop would let the compiler hoist every row's loads
        // and spill; the loop over rows stays a loop.
        Raw<BYTES> next[WIN];
        load_row<VEC>(next, src, base, col_ok, inside(hi0, sH), p.C);
#pragma unroll 1
        for (int r = 0; r < IN_ROWS; ++r) {
            float win[WIN][VEC];
#pragma unroll
            for (int i = 0; i < WIN; ++i) unpack_vec<VEC, T>(win[i], next[i]);
            if (r + 1 < IN_ROWS)
                load_row<VEC>(next, src, base + (r + 1) * sW * p.C, col_ok, inside(hi0 + r + 1, sH),
                              p.C);
#pragma unroll
            for (int o = 0; o < ROWS; ++o) {
                const int ky = r - o; // the filter row source row r is for destination row o
                if (ky < 0 || ky >= KS) continue;
                const float* wrow = wz + ky * KS * S::TN * CPG;
#pragma unroll
                for (int x = 0; x < KS; ++x) {
                    float wv[VEC * CPG];
                    load_f32(wv, wrow + x * S::TN * CPG);
#pragma unroll
                    for (int j = 0; j < VEC; ++j) {
                        const int jb = j - j % CPG;
#pragma unroll
                        for (int i = 0; i < PIX; ++i)
#pragma unroll
                            for (int c = 0; c < CPG; ++c)
                                acc[o][i][j] += win[i + x][jb + c] * wv[j * CPG + c];
                    }
                }
            }
        }
    }
    T* dst = static_cast<T*>(BWD ? const_cast<void*>(p.in) : p.out);
#pragma unroll
    for (int o = 0; o < ROWS; ++o) {
        if (h0 + o >= dH) break;
        T* dst_row = dst + (((n * dD + d) * dH + h0 + o) * dW + w0) * p.C + ch;
#pragma unroll
        for (int i = 0; i < PIX; ++i)
            if (w0 + i < dW) store_vec<VEC>(dst_row + i * p.C, acc[o][i]);
    }
}

// Whether sliding_rows<KS> keeps its accumulators and one row window in registers: fp32 values
// (ROWS x PIX + PIX + KS - 1) x VEC <= 128, which leaves room for the next row's loads under
// the 255-register limit; beyond it the entry runs gather (correct, one row at a time).
template <class Cfg, int KS> struct SlidingFits {
    typedef Shape<Cfg> S;
    static constexpr bool value = (S::ROWS * S::PIX + S::PIX + KS - 1) * S::VEC <= 128;
};

// Taps of one filter row a bwd_weight thread accumulates at once: X when X is 3, 5 or 7 and the
// X * VEC * cpg accumulators fit, else 1 (every tap is its own row). direct_plan.cpp mirrors it.
constexpr int k_max_weight_accumulators = 64;
GCONV_DEVICE int row_taps(int X, int vec, int cpg) {
    return (X == 3 || X == 5 || X == 7) && X * vec * cpg <= k_max_weight_accumulators ? X : 1;
}

template <class Cfg, int CPG, int KX>
GCONV_DEVICE void reduce_weight(const ConvParams& p, void* workspace) {
    typedef Shape<Cfg> S;
    typedef typename S::T T;
    constexpr int VEC = S::VEC;
    const int taps = p.Z * p.Y * p.X;
    const int rows = KX > 1 ? p.Z * p.Y : taps;
    const int row = pixel_block<S>(p) % rows;
    const int slice = pixel_block<S>(p) / rows;
    int z, y, x0;
    if constexpr (KX > 1) {
        z = row / p.Y;
        y = row - z * p.Y;
        x0 = 0;
    } else {
        z = row / (p.Y * p.X);
        const int rem = row - z * p.Y * p.X;
        y = rem / p.X;
        x0 = rem - y * p.X;
    }
    const int cl = static_cast<int>(threadIdx.x) % S::CL;
    const int pl = static_cast<int>(threadIdx.x) / S::CL;
    const int ch = channel_block<S>(p) * S::TN + cl * VEC;
    const bool active = ch < p.C;
    const T* in = static_cast<const T*>(p.in);
    const T* dout = static_cast<const T*>(p.out);

    float acc[KX][VEC][CPG];
#pragma unroll
    for (int x = 0; x < KX; ++x)
#pragma unroll
        for (int j = 0; j < VEC; ++j)
#pragma unroll
            for (int r = 0; r < CPG; ++r) acc[x][j][r] = 0.0f;

    // A pixel lane reduces PIX consecutive output pixels, decoded once and then stepped (no
    // divisions per pixel); neighbours along W share input vectors in L1.
    const int total = p.N * p.Do * p.Ho * p.Wo;
    const int first = slice * S::TM + pl * S::PIX;
    int ow = first % p.Wo;
    int rest = first / p.Wo;
    int oh = rest % p.Ho;
    rest /= p.Ho;
    int od = S::NDIM3 ? rest % p.Do : 0;
    int n = S::NDIM3 ? rest / p.Do : rest;
    const int count = active ? (total - first < S::PIX ? total - first : S::PIX) : 0;
#pragma unroll 1
    for (int i = 0; i < count; ++i) {
        const int o = first + i;
        const int cur_w = ow, cur_h = oh, cur_d = od, cur_n = n;
        if (++ow == p.Wo) {
            ow = 0;
            if (++oh == p.Ho) {
                oh = 0;
                if (S::NDIM3 && ++od == p.Do) od = 0, ++n;
                if (!S::NDIM3) ++n;
            }
        }
        {
            const int di = S::NDIM3 ? cur_d * p.stride_d - p.pad_d + z * p.dilation_d : 0;
            const int hi = cur_h * p.stride_h - p.pad_h + y * p.dilation_h;
            if (!inside(hi, p.Hi) || (S::NDIM3 && !inside(di, p.Di))) continue;
            const int ow = cur_w, n = cur_n;
            float g[VEC];
            load_vec<VEC>(g, dout + o * p.C + ch);
            const T* in_row = in + ((n * p.Di + di) * p.Hi + hi) * p.Wi * p.C + ch;
#pragma unroll
            for (int x = 0; x < KX; ++x) {
                const int wi = ow * p.stride_w - p.pad_w + (x0 + x) * p.dilation_w;
                if (!inside(wi, p.Wi)) continue;
                float v[VEC];
                load_vec<VEC>(v, in_row + wi * p.C);
#pragma unroll
                for (int j = 0; j < VEC; ++j) {
                    const int jb = j - j % CPG;
#pragma unroll
                    for (int r = 0; r < CPG; ++r) acc[x][j][r] += g[j] * v[jb + r];
                }
            }
        }
    }
    constexpr int N = KX * VEC * CPG, SHARE = pixel_lane_share(N, S::CL);
    const LaneShare share = sum_pixel_lanes<S, N>(&acc[0][0][0]);
    const bool to_workspace = Cfg::kDType != 2;
    float* dw = static_cast<float*>(to_workspace ? workspace : const_cast<void*>(p.wei));
    const float* sums = &acc[0][0][0];
    if (active && share.writes) {
#pragma unroll
        for (int i = 0; i < SHARE; ++i) {
            const int e = share.first + i; // acc[x][j][r]
            const int x = e / (VEC * CPG), j = e / CPG % VEC, r = e % CPG;
            if (x0 + x >= p.X) continue;
            const int tap = (z * p.Y + y) * p.X + x0 + x;
            arch::atomic_add(dw + ((ch + j) * taps + tap) * CPG + r, sums[i]);
        }
    }
    finish_channel_block<Cfg, S::THREADS>(p, workspace, channel_block<S>(p) * S::TN, taps * CPG,
                                          S::TN);
}

// bwd_weight, depthwise (C/G = 1), 2D, stride 1 and dilation 1 along H and W, a KS x KS filter
// (the entry `gconv_direct_k<KS>` of a bwd_weight module). A pixel lane reduces a strip of
// kWeightStrip output columns over BAND = kTileK / kWeightStrip consecutive output rows: it
// reads each of the BAND + KS - 1 input rows once, as a window of kWeightStrip + KS - 1
// vectors, and each dOut vector once into a ring of the last KS dOut rows, and accumulates
// every tap of its VEC channels in registers. dOut and In cross DRAM about once, against once
// per filter row (and the input once per tap through L1) in reduce_weight. The block then sums its
// pixel lanes (shuffles within a warp, shared memory across warps, one warp after another: no
// shared atomics) and adds KS x KS x kTileN sums atomically, one per (channel, tap) per block. Grid
// (direct_plan.cpp): x = ceil(N * ceil(Ho / BAND) * ceil(Wo / kWeightStrip) / pixel lanes), y =
// ceil(C / kTileN); dynamic shared memory KS x KS x kTileN fp32. The strip width and the sums'
// limit come from the generator (kWeightStrip, kStripAccumulators: the host's
// k_direct_weight_strip and k_direct_max_strip_accumulators), so the host's grid and entry
// choice and this code cannot disagree.
template <class Cfg, int KS> struct WeightStripFits {
    static constexpr bool value = Cfg::kNdim == 2 && Cfg::kTileK % Cfg::kWeightStrip == 0 &&
                                  KS * KS * Cfg::kVec <= Cfg::kStripAccumulators;
};

template <class Cfg, int KS>
GCONV_DEVICE void sliding_weight(const ConvParams& p, void* workspace) {
    typedef Shape<Cfg> S;
    typedef typename S::T T;
    static_assert(WeightStripFits<Cfg, KS>::value, "the launch plan picks fitting entries only");
    constexpr int VEC = S::VEC, SW = Cfg::kWeightStrip, BAND = S::PIX / SW, WIN = SW + KS - 1;
    constexpr int TAPS = KS * KS, WARP = GCONV_WARP_SIZE;
    constexpr int BYTES = VEC * static_cast<int>(sizeof(T));
    const int tid = static_cast<int>(threadIdx.x);
    const int cl = tid % S::CL, pl = tid / S::CL;
    const int ch0 = channel_block<S>(p) * S::TN;
    const int ch = ch0 + cl * VEC;
    const int strips = (p.Wo + SW - 1) / SW;
    const int bands = (p.Ho + BAND - 1) / BAND;
    const int strip = pixel_block<S>(p) * S::PL + pl;

    float acc[TAPS][VEC];
#pragma unroll
    for (int t = 0; t < TAPS; ++t)
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[t][j] = 0.0f;

    // Lanes past the image or the channels keep zero sums: every thread reaches the barriers.
    if (ch < p.C && strip < p.N * bands * strips) {
        const int w0 = (strip % strips) * SW;
        const int row = strip / strips;
        const int h0 = (row % bands) * BAND;
        const int n = row / bands;
        const T* in = static_cast<const T*>(p.in);
        const T* dout = static_cast<const T*>(p.out) + ((n * p.Ho + h0) * p.Wo + w0) * p.C + ch;
        const int wi0 = w0 - p.pad_w;
        bool col_ok[WIN];
#pragma unroll
        for (int i = 0; i < WIN; ++i) col_ok[i] = inside(wi0 + i, p.Wi);
        bool out_ok[SW];
#pragma unroll
        for (int i = 0; i < SW; ++i) out_ok[i] = w0 + i < p.Wo;
        // Element offset of (n, h0 - pad_h, wi0, ch); input row q of the band adds q * Wi * C.
        const int base = ((n * p.Hi + h0 - p.pad_h) * p.Wi + wi0) * p.C + ch;
        const int rows = p.Ho - h0 < BAND ? p.Ho - h0 : BAND;
        // The walk goes over input rows q = 0 .. rows + KS - 2, each loaded once: input row q
        // meets dOut row q - ky at filter row ky, so the last KS dOut rows stay in a ring of
        // registers (raw, as stored), ring[k] holding dOut row q - k. One row per iteration,
        // the ring shifted by moves: unrolling KS rows to make its slots constants instead
        // multiplied the entry's code (and its compile time) by KS. The next row's loads are
        // issued before this row's FMAs, which is what hides their latency at the few warps
        // per SM these entries run with.
        Raw<BYTES> ring[KS][SW];
#pragma unroll
        for (int k = 0; k < KS; ++k)
#pragma unroll
            for (int i = 0; i < SW; ++i) ring[k][i] = Raw<BYTES>::zero();
        Raw<BYTES> next_in[WIN], next_out[SW];
        const int steps = rows + KS - 1;
        load_row<VEC>(next_in, in, base, col_ok, inside(h0 - p.pad_h, p.Hi), p.C);
        load_dout_row<VEC>(next_out, dout, out_ok, p.C);
#pragma unroll 1
        for (int q = 0; q < steps; ++q) {
#pragma unroll
            for (int k = KS - 1; k > 0; --k)
#pragma unroll
                for (int i = 0; i < SW; ++i) ring[k][i] = ring[k - 1][i];
#pragma unroll
            for (int i = 0; i < SW; ++i) ring[0][i] = next_out[i];
            float win[WIN][VEC];
#pragma unroll
            for (int i = 0; i < WIN; ++i) unpack_vec<VEC, T>(win[i], next_in[i]);
            if (q + 1 < steps) {
                load_row<VEC>(next_in, in, base + (q + 1) * p.Wi * p.C, col_ok,
                              inside(h0 - p.pad_h + q + 1, p.Hi), p.C);
                if (q + 1 < rows)
                    load_dout_row<VEC>(next_out, dout + (q + 1) * p.Wo * p.C, out_ok, p.C);
            }
#pragma unroll
            for (int ky = 0; ky < KS; ++ky) {
                const int r = q - ky; // the dOut row this input row meets at filter row ky
                if (r < 0 || r >= rows) continue;
#pragma unroll
                for (int i = 0; i < SW; ++i) {
                    float g[VEC];
                    unpack_vec<VEC, T>(g, ring[ky][i]);
#pragma unroll
                    for (int kx = 0; kx < KS; ++kx)
#pragma unroll
                        for (int j = 0; j < VEC; ++j) acc[ky * KS + kx][j] += g[j] * win[i + kx][j];
                }
            }
        }
    }

    constexpr int SHARE = pixel_lane_share(TAPS * VEC, S::CL);
    const LaneShare share = sum_pixel_lanes<S, TAPS * VEC>(&acc[0][0]);
    // Across warps: the pixel lanes of each warp add their parts into sum[tap][channel], one
    // warp (round) after another.
    constexpr int PW = S::CL < WARP ? WARP / S::CL : 1; // pixel lanes per warp
    constexpr int ROUNDS = S::PL / PW;
    float* sum = reinterpret_cast<float*>(gconv_dynamic_smem);
    const float* sums = &acc[0][0];
#pragma unroll 1
    for (int round = 0; round < ROUNDS; ++round) {
        if (share.writes && pl / PW == round) {
#pragma unroll
            for (int i = 0; i < SHARE; ++i) {
                const int e = share.first + i; // acc[t][j]
                float* dst = sum + e / VEC * S::TN + cl * VEC + e % VEC;
                *dst = round == 0 ? sums[i] : *dst + sums[i];
            }
        }
        arch::barrier();
    }
    // dW (or its fp32 workspace) holds channel ch's taps contiguously: the block's slice is
    // TN x TAPS consecutive floats from ch0 * TAPS on.
    const bool to_workspace = Cfg::kDType != 2;
    float* dw = static_cast<float*>(to_workspace ? workspace : const_cast<void*>(p.wei));
    const int present = (p.C - ch0 < S::TN ? p.C - ch0 : S::TN) * TAPS;
    for (int e = tid; e < present; e += S::THREADS) {
        const int c = e / TAPS, t = e - c * TAPS;
        arch::atomic_add(dw + ch0 * TAPS + e, sum[t * S::TN + c]);
    }
    finish_channel_block<Cfg, S::THREADS>(p, workspace, ch0, TAPS, S::TN);
}

// Dispatch over the problem's C/G (a power of two up to the vector, is_supported checks). The
// module holds the widths of kCpgMask only (bit b: C/G 2^b; codegen builds the widths its
// problems have, ModuleEntries); another width writes nothing, which verification reports.
// (A trap after the widths breaks ROCm 5.2's hipRTC: "failed to annotate CFG".)
template <class Cfg, template <class, int> class Body, typename... Args>
GCONV_DEVICE void by_cpg(int cpg, Args... args) {
    constexpr int VEC = Cfg::kVec, MASK = Cfg::kCpgMask;
    if constexpr ((MASK & 1) != 0)
        if (cpg == 1) Body<Cfg, 1>::run(args...);
    if constexpr (VEC >= 2 && (MASK & 2) != 0)
        if (cpg == 2) Body<Cfg, 2>::run(args...);
    if constexpr (VEC >= 4 && (MASK & 4) != 0)
        if (cpg == 4) Body<Cfg, 4>::run(args...);
    if constexpr (VEC >= 8 && (MASK & 8) != 0)
        if (cpg == 8) Body<Cfg, 8>::run(args...);
}

template <class Cfg, int CPG> struct Forward {
    GCONV_DEVICE static void run(const ConvParams& p) { gather<Cfg, CPG, false>(p); }
};
template <class Cfg, int CPG> struct BwdData {
    GCONV_DEVICE static void run(const ConvParams& p) { gather<Cfg, CPG, true>(p); }
};
// Whether the generic bwd_weight entry holds C/G CPG with KX taps per row: the accumulators fit
// and kRowTapsMask has bit 4 log2(CPG) + (KX / 2) (taps 1, 3, 5, 7; codegen builds the pairs its
// problems have, ModuleEntries); another pair writes nothing, which verification reports.
template <class Cfg, int CPG, int KX> struct RowTapsBuilt {
    static constexpr int BIT = 4 * (CPG == 1 ? 0 : CPG == 2 ? 1 : CPG == 4 ? 2 : 3) + KX / 2;
    static constexpr bool value = (KX == 1 || KX * Cfg::kVec * CPG <= k_max_weight_accumulators) &&
                                  ((Cfg::kRowTapsMask >> BIT) & 1) != 0;
};
template <class Cfg, int CPG> struct BwdWeight {
    GCONV_DEVICE static void run(const ConvParams& p, void* workspace) {
        switch (row_taps(p.X, Cfg::kVec, CPG)) {
        case 3:
            if constexpr (RowTapsBuilt<Cfg, CPG, 3>::value)
                reduce_weight<Cfg, CPG, 3>(p, workspace);
            return;
        case 5:
            if constexpr (RowTapsBuilt<Cfg, CPG, 5>::value)
                reduce_weight<Cfg, CPG, 5>(p, workspace);
            return;
        case 7:
            if constexpr (RowTapsBuilt<Cfg, CPG, 7>::value)
                reduce_weight<Cfg, CPG, 7>(p, workspace);
            return;
        default:
            if constexpr (RowTapsBuilt<Cfg, CPG, 1>::value)
                reduce_weight<Cfg, CPG, 1>(p, workspace);
        }
    }
};

template <class Cfg> GCONV_DEVICE void forward(const ConvParams& p) {
    by_cpg<Cfg, Forward>(p.c_per_group, p);
}
// The entries `gconv_direct_k<KS>`: depthwise with a KS x KS filter, stride 1 and dilation 1
// along H and W; bwd_data also stride 1 along D, bwd_weight 2D only (the launch plan picks them
// for such problems only: direct_filter()).
template <class Cfg, int KS> GCONV_DEVICE void forward_filter(const ConvParams& p) {
    if constexpr (SlidingFits<Cfg, KS>::value)
        sliding_rows<Cfg, 1, KS>(p);
    else
        gather<Cfg, 1, false>(p);
}
template <class Cfg, int KS> GCONV_DEVICE void bwd_data_filter(const ConvParams& p) {
    if constexpr (SlidingFits<Cfg, KS>::value)
        sliding_rows<Cfg, 1, KS, true>(p);
    else
        gather<Cfg, 1, true>(p);
}
template <class Cfg, int KS>
GCONV_DEVICE void bwd_weight_filter(const ConvParams& p, void* workspace) {
    sliding_weight<Cfg, KS>(p, workspace);
}
template <class Cfg> GCONV_DEVICE void bwd_data(const ConvParams& p) {
    by_cpg<Cfg, BwdData>(p.c_per_group, p);
}
template <class Cfg> GCONV_DEVICE void bwd_weight(const ConvParams& p, void* workspace) {
    by_cpg<Cfg, BwdWeight>(p.c_per_group, p, workspace);
}

} // namespace direct
} // namespace gconv
