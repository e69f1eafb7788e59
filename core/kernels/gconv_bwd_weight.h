#pragma once
// Backward weight: dW = dOut^T * im2col(In) as an implicit GEMM on the engine of gconv_gemm.h,
// with split-K over the reduction (every output pixel of every image).
// Per block (one group g, one split s):
//   rows    m  = output channel k of group g,
//   columns j  = (filter tap, input channel c), contiguous in the GKZYXC dW,
//   reduction r = output pixel (n, do, ho, wo), restricted to the split's range of K tiles.
// Both operands are contiguous along M / N, not along r, so both are MN-major in shared
// memory (fragments through ldmatrix.trans). Grid: x = ceil(K/G / tile_m),
// y = ceil(Z*Y*X*C/G / tile_n), z = G * split_k.
// Outputs by split_k_mode:
//   none      C converted to the element type and stored into dW;
//   atomic    fp32 atomic adds into dW (fp32) or into a zeroed fp32 workspace that is
//             converted into dW (bf16 / fp16);
//   two_stage split s stores its fp32 partial sums into workspace slice s; the slices are
//             added and converted.
// The conversion: with atomic the block that adds last to a tile (a ticket per tile after the
// fp32 sums in the workspace, zeroed with them before the launch) converts the tile itself
// (finish_tile; on the wgmma pipeline, whose producer may have left, its consumer warpgroups
// alone), which saves a kernel; two_stage keeps the second kernel `finish`.
// ConvParams: in = In, wei = dW (written), out = dOut. Kernel arguments (params, workspace),
// and the tensor maps for the sm_90a wgmma pipeline (gconv_wgmma.h: both operands MN-major,
// loaded by the copy engine only).
#include "gconv_gemm.h"
#include "gconv_weight_runs.h"
#include "gconv_wgmma.h"

namespace gconv {
namespace bwd_weight {

enum { kNone = 0, kAtomic = 1, kTwoStage = 2 }; // SplitKMode's order

template <class Cfg> struct OutputOf {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    static constexpr bool kToWorkspace =
        Cfg::kSplitKMode == kTwoStage || (Cfg::kSplitKMode == kAtomic && Cfg::kDType != 2);
    typedef typename gemm::Select<Cfg::kSplitKMode == kNone, T, float>::type type;
    // With atomic adds, the block that stores last to a tile converts it (no finish kernel):
    // on the mma.sync pipelines the whole block, on the wgmma pipeline (where the host chooses
    // it: codegen finishes_in_block) its consumer warpgroups. 2stage keeps the finish kernel:
    // the tile's slices held through the main loop cost its compv3 32x64 tiles 2-4 registers
    // over the 96 that let 5 blocks of 128 threads share an SM (session 19), and its tickets a
    // memset that 2stage otherwise skips.
    static constexpr bool kFinishInBlock = Cfg::kFinishInBlock;
    static_assert(!kFinishInBlock || (kToWorkspace && Cfg::kSplitKMode == kAtomic),
                  "a finish in the block converts the atomic adds' fp32 sums");
};

template <class Cfg>
struct Source : gemm::GemmGeometry<Cfg, true, true, typename OutputOf<Cfg>::type,
                                   Cfg::kSplitKMode == kAtomic> {
    typedef gemm::GemmGeometry<Cfg, true, true, typename OutputOf<Cfg>::type,
                               Cfg::kSplitKMode == kAtomic>
        G;
    typedef typename G::T T;
    typedef typename G::OutT OutT;
    using G::ITA;
    using G::ITB;
    using G::NDIM3;
    using G::PAD_K;
    using G::PAD_M;
    using G::PAD_N;
    using G::SI;
    using G::TK;
    using G::TM;
    using G::TN;
    typedef typename gemm::Offset<SI>::type Off;
    static constexpr int SPLITS = Cfg::kSplitK;
    static constexpr bool FINISH_IN_BLOCK = OutputOf<Cfg>::kFinishInBlock;

    const ConvParams& p;
    void* workspace;
    const T* dout;
    const T* in;
    OutT* dw;
    int m0, n0, g, reduction, kt0, ktiles, n_total;
    int t_load;
    bool a_ok[ITA];
    int b_d0[ITB], b_h0[ITB], b_w0[ITB], b_c[ITB];

    GCONV_DEVICE Source(const ConvParams& params, void* ws) : p(params), workspace(ws) {}

    // Two-stage blocks with an empty range still write their (zero) slice.
    GCONV_DEVICE static constexpr bool active() { return true; }
    GCONV_DEVICE int tile_begin() const { return kt0; }
    GCONV_DEVICE int tile_count() const { return ktiles; }
    GCONV_DEVICE const T* a_fallback() const { return dout; }
    GCONV_DEVICE const T* b_fallback() const { return in; }

    GCONV_DEVICE void setup(int tid) {
        setup_at(tid, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y),
                 static_cast<int>(blockIdx.z));
    }
    // The tile at grid position (bx, by, bz) (the wgmma pipeline's interface).
    GCONV_DEVICE void setup_at(int tid, int bx, int by, int bz) {
        m0 = bx * TM;
        n0 = by * TN;
        g = bz / SPLITS;
        const int split = bz - g * SPLITS;
        reduction = p.N * p.Do * p.Ho * p.Wo;
        const int all_tiles = (reduction + TK - 1) / TK;
        const int per_split = (all_tiles + SPLITS - 1) / SPLITS;
        kt0 = split * per_split;
        ktiles = all_tiles - kt0 < per_split ? all_tiles - kt0 : per_split;
        if (ktiles < 0) ktiles = 0;
        in = static_cast<const T*>(p.in);
        dout = static_cast<const T*>(p.out);
        const int taps = p.Z * p.Y * p.X;
        n_total = taps * p.c_per_group;
        const long long welems = static_cast<long long>(p.G) * p.k_per_group * n_total;
        if constexpr (OutputOf<Cfg>::kToWorkspace) {
            dw = static_cast<float*>(workspace); // then the tiles' tickets (FINISH_IN_BLOCK)
            if constexpr (Cfg::kSplitKMode == kTwoStage) dw += split * welems;
        } else {
            dw = static_cast<OutT*>(const_cast<void*>(p.wei));
        }
        t_load = tid % G::LTHREADS;
#pragma unroll
        for (int i = 0; i < ITA; ++i) a_ok[i] = !PAD_M || m0 + G::a_row(t_load, i) < p.k_per_group;
#pragma unroll
        for (int i = 0; i < ITB; ++i) {
            const int j = n0 + G::b_row(t_load, i);
            const int tap = j / p.c_per_group;
            b_c[i] = j - tap * p.c_per_group;
            int z = 0, y, x;
            if constexpr (NDIM3) {
                z = tap / (p.Y * p.X);
                const int rem = tap - z * p.Y * p.X;
                y = rem / p.X;
                x = rem - y * p.X;
            } else {
                y = tap / p.X;
                x = tap - y * p.X;
            }
            b_d0[i] = z * p.dilation_d - p.pad_d;
            b_h0[i] = y * p.dilation_h - p.pad_h;
            b_w0[i] = x * p.dilation_w - p.pad_w;
            // A column past the tail never passes the bounds test.
            if (PAD_N && j >= n_total) b_h0[i] = -0x40000000;
        }
    }

    // A(k, r) = dOut[r, g, k]: the output pixels are consecutive rows of K channels.
    GCONV_DEVICE const T* a_src(int i, int r, bool& valid) const {
        valid = a_ok[i];
        if constexpr (PAD_K) valid = valid && r < reduction;
        const int k = m0 + G::a_row(t_load, i);
        return valid ? dout + (static_cast<Off>(r) * p.K + g * p.k_per_group + k) : dout;
    }

    // B((tap, c), r) = In[n, do*s - pad + z*dil, ..., g, c].
    GCONV_DEVICE const T* b_src(int i, int r, bool& valid) const {
        const int hw = p.Ho * p.Wo;
        const int pixels = p.Do * hw;
        const int n = r / pixels;
        int rem = r - n * pixels;
        const int od = NDIM3 ? rem / hw : 0;
        rem -= od * hw;
        const int oh = rem / p.Wo;
        const int ow = rem - oh * p.Wo;
        const int di = od * p.stride_d + b_d0[i];
        const int hi = oh * p.stride_h + b_h0[i];
        const int wi = ow * p.stride_w + b_w0[i];
        valid = static_cast<unsigned>(hi) < static_cast<unsigned>(p.Hi) &&
                static_cast<unsigned>(wi) < static_cast<unsigned>(p.Wi);
        if constexpr (NDIM3)
            valid = valid && static_cast<unsigned>(di) < static_cast<unsigned>(p.Di);
        if constexpr (PAD_K) valid = valid && r < reduction;
        const int pix = ((n * p.Di + (NDIM3 ? di : 0)) * p.Hi + hi) * p.Wi + wi;
        return valid ? in + (static_cast<Off>(pix) * p.C + g * p.c_per_group + b_c[i]) : in;
    }

    GCONV_DEVICE bool out_ok(int row, int col) const {
        bool ok = true;
        if constexpr (PAD_M) ok = ok && m0 + row < p.k_per_group;
        if constexpr (PAD_N) ok = ok && n0 + col < n_total;
        return ok;
    }
    GCONV_DEVICE OutT* out_ptr(int row, int col) const {
        return dw + ((g * p.k_per_group + m0 + row) * n_total + n0 + col);
    }

    // After every thread's stores (gemm::run's last step): the SPLITS-th block to arrive at
    // this tile's ticket stores the tile's fp32 sums converted into dW. `flag` is one int of
    // shared memory, free once every thread is past the fence's barrier.
    template <class Team> GCONV_DEVICE void finish_tile(int* flag, Team team) const {
        if constexpr (FINISH_IN_BLOCK) {
            typedef typename DTypeOf<Cfg::kDType>::type W;
            // Derived from what the epilogue kept (dw, m0, n0, g) and the parameters: the tile
            // index kept from setup_at through the main loop took the compv3 32x64 tiles from
            // 96 to 98-100 registers, 4 blocks of 128 threads per SM instead of 5.
            const auto ticket = [&] {
                const int tile =
                    (g * ((p.k_per_group + TM - 1) / TM) + m0 / TM) * ((n_total + TN - 1) / TN) +
                    n0 / TN;
                const i64 welems = static_cast<i64>(p.G) * p.k_per_group * n_total;
                return reinterpret_cast<unsigned*>(dw + welems) + tile;
            };
            if (!team_arrives_last(team, flag, SPLITS, ticket)) return;
            W* out = static_cast<W*>(const_cast<void*>(p.wei));
            if constexpr (Cfg::kWgmma) {
                // Rows of whole runs of 4 (C/G a multiple of 32, and so n0 and n_total).
                constexpr int RUNS = TN / 4;
                auto run_place = [&](int r) -> i64 {
                    const int row = r / RUNS, col = (r - (r / RUNS) * RUNS) * 4;
                    if (m0 + row >= p.k_per_group || n0 + col >= n_total) return -1;
                    return static_cast<i64>(g * p.k_per_group + m0 + row) * n_total + n0 + col;
                };
                convert_sums_runs4(team, TM * RUNS, run_place, dw, out, ticket,
                                   p.keep_workspace_zero != 0);
                return;
            }
            // The tile's element e: its place in dW, or -1 outside dW.
            auto place = [&](int e) -> i64 {
                const int row = e / TN, col = e - (e / TN) * TN;
                if (m0 + row >= p.k_per_group || n0 + col >= n_total) return -1;
                return static_cast<i64>(g * p.k_per_group + m0 + row) * n_total + n0 + col;
            };
            convert_sums(team, TM * TN, place, dw, out, ticket, p.keep_workspace_zero != 0);
        }
    }
};

template <class Cfg> GCONV_DEVICE void run(const ConvParams& p, void* workspace) {
    static_assert(!Source<Cfg>::WGMMA, "wgmma kernels take the tensor maps too");
    Source<Cfg> s(p, workspace);
    gemm::run(s);
}
// The wgmma pipeline (MN-major operands through tensor maps): `maps` must be the kernel's
// __grid_constant__ parameter itself.
template <class Cfg>
GCONV_DEVICE void run(const ConvParams& p, void* workspace, const WgmmaMaps& maps) {
    Source<Cfg> s(p, workspace);
    wgmma::run(s, maps);
}

// Second kernel of two_stage and of atomic with a 16-bit dW: adds the fp32 slices of the
// workspace and stores the sum converted to the element type. Any 1-D launch shape.
template <class Cfg> GCONV_DEVICE void finish(const ConvParams& p, void* workspace) {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    constexpr int SLICES = Cfg::kSplitKMode == kTwoStage ? Cfg::kSplitK : 1;
    gemm::finish_slices<T, SLICES>(
        static_cast<T*>(const_cast<void*>(p.wei)), static_cast<float*>(workspace),
        static_cast<i64>(p.G) * p.k_per_group * p.Z * p.Y * p.X * p.c_per_group,
        p.keep_workspace_zero != 0);
}

} // namespace bwd_weight
} // namespace gconv
