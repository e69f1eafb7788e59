#pragma once
// Forward grouped convolution as an implicit GEMM, one code path for every configuration.
// Per block: a TM x TN tile of C = A * B for GM consecutive groups, where
//   rows    m  = output pixel (n, do, ho, wo) inside one split-image piece,
//   columns j  = (merged group gl, output channel k), contiguous in the NDHWGK output,
//   reduction kk = (filter tap zyx, merged group gl, input channel c); for a fixed tap the
//                  (gl, c) run is contiguous in the NDHWGC input, so merged groups load as one
//                  wide row. B is block-diagonal over merged groups (zero when gl differs).
// Split-K (split_k > 1, split_k_mode atomic): grid z is (group block, split), split fastest;
// split s reduces its share of the K tiles and adds its fp32 partial C with vector atomics into
// the zeroed output itself (fp32) or a zeroed fp32 workspace (16-bit types), which on the
// mma.sync pipelines the last split to add to a tile converts into the output (a ticket per
// tile after the sums, zeroed with them: finish_tile) and on the wgmma pipeline, whose roles
// meet at no block-wide barrier after the epilogue, the second kernel `finish`. For small M x N
// with a long reduction (7x7 or 6x6 images of a few images through 512-2048 channels) one tile per
// block leaves most multiprocessors idle. The generated translation unit defines a config struct
// (see core/codegen/kernel_source.cpp) and calls gconv::fwd::run<Config>(params). The pipelines,
// math and epilogues are the shared engine of gconv_gemm.h; this file says where the operands come
// from and where C goes.
#include "gconv_gemm.h"
#include "gconv_weight_runs.h"
#include "gconv_wgmma.h"

namespace gconv {
namespace fwd {

template <class Cfg> struct OutputOf {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    static constexpr bool kSplit = Cfg::kSplitK > 1;
    static constexpr bool kToWorkspace = kSplit && Cfg::kDType != 2; // 2: fp32
    typedef typename gemm::Select<kSplit, float, T>::type type;
    // The host's choice (codegen finishes_in_block), which also plans the tickets.
    static constexpr bool kFinishInBlock = Cfg::kFinishInBlock;
    static_assert(!kFinishInBlock || kToWorkspace, "a finish in the block converts fp32 sums");
};

template <class Cfg>
struct Source
    : gemm::GemmGeometry<Cfg, false, false, typename OutputOf<Cfg>::type, OutputOf<Cfg>::kSplit> {
    typedef gemm::GemmGeometry<Cfg, false, false, typename OutputOf<Cfg>::type,
                               OutputOf<Cfg>::kSplit>
        G;
    typedef typename G::T T;
    typedef typename G::OutT OutT;
    typedef typename G::MapA MapA;
    typedef typename G::MapB MapB;
    using G::GM;
    using G::ITA;
    using G::ITB;
    using G::LTHREADS;
    using G::NDIM3;
    using G::PAD_K;
    using G::PAD_M;
    using G::PAD_N;
    using G::SI;
    using G::TK;
    using G::TM;
    using G::TN;
    static constexpr int SPLITS = Cfg::kSplitK;
    // Every forward reduction has Z*Y*X*C/G >= 1 K tiles; the last of several splits may have
    // none (it adds zeros).
    static constexpr bool MAY_BE_EMPTY = SPLITS > 1;
    static constexpr bool FINISH_IN_BLOCK = OutputOf<Cfg>::kFinishInBlock;

    // Per-thread state, fixed for the whole block.
    const ConvParams& p;
    void* workspace;
    const T* in;
    const T* wei;
    OutT* out;
    int m0, m_count, n0, g0, split;
    int ceff, kred, kt0, ktiles, n_total; // merged channels per tap, GEMM K, K tiles, GEMM N
    int t_load;                           // this thread's index among the loaders of a tile
    int a_pix[ITA], a_d0[ITA], a_h0[ITA], a_w0[ITA];
    int b_base[ITB], b_grp[ITB];

    GCONV_DEVICE explicit Source(const ConvParams& params, void* ws = nullptr)
        : p(params), workspace(ws) {}

    GCONV_DEVICE bool active() const { return m0 < m_count; } // last piece has fewer tiles
    GCONV_DEVICE int tile_begin() const { return kt0; }
    GCONV_DEVICE int tile_count() const { return ktiles; }
    GCONV_DEVICE const T* a_fallback() const { return in; }
    GCONV_DEVICE const T* b_fallback() const { return wei; }

    GCONV_DEVICE void setup(int tid) {
        const int gx = static_cast<int>(gridDim.x), gy = static_cast<int>(gridDim.y);
        int bx, by, bz;
        gemm::tile_n_fastest(
            static_cast<int>(blockIdx.x) +
                gx * (static_cast<int>(blockIdx.y) + gy * static_cast<int>(blockIdx.z)),
            gx, gy, bx, by, bz);
        setup_at(tid, bx, by, bz);
    }
    // The tile at grid position (bx, by, bz): the block's own, or one of a persistent block's.
    GCONV_DEVICE void setup_at(int tid, int bx, int by, int bz) {
        const int pixels_out = p.Do * p.Ho * p.Wo;
        const int mtiles = p.m_tiles_per_piece;
        const int piece = bx / mtiles;
        m0 = (bx - piece * mtiles) * TM;
        n0 = by * TN;
        g0 = (bz / SPLITS) * GM;
        split = bz - (bz / SPLITS) * SPLITS;
        const int first_image = piece * p.images_per_piece;
        const int images =
            p.N - first_image < p.images_per_piece ? p.N - first_image : p.images_per_piece;
        m_count = images * pixels_out;
        in = static_cast<const T*>(p.in);
        if constexpr (OutputOf<Cfg>::kToWorkspace)
            out = static_cast<OutT*>(workspace);
        else
            out = static_cast<OutT*>(p.out);
        wei = static_cast<const T*>(p.wei);
        if constexpr (SI) {
            in += static_cast<i64>(piece) * p.in_piece_stride;
            out += static_cast<i64>(piece) * p.out_piece_stride;
        }
        ceff = GM * p.c_per_group;
        kred = p.Z * p.Y * p.X * ceff;
        const int all_tiles = (kred + TK - 1) / TK;
        const int per_split = (all_tiles + SPLITS - 1) / SPLITS;
        kt0 = split * per_split;
        ktiles = all_tiles - kt0 < per_split ? all_tiles - kt0 : per_split;
        if (ktiles < 0) ktiles = 0;
        n_total = GM * p.k_per_group;
        t_load = tid % LTHREADS;

        const int hw_out = p.Ho * p.Wo;
        const int pixels_in = p.Di * p.Hi * p.Wi;
#pragma unroll
        for (int i = 0; i < ITA; ++i) {
            const int m = m0 + MapA::row(t_load, i);
            int n = m / pixels_out;
            int r = m - n * pixels_out;
            const int od = NDIM3 ? r / hw_out : 0; // the launch plan gives 2d kernels Do == 1
            r -= od * hw_out;
            const int oh = r / p.Wo;
            const int ow = r - oh * p.Wo;
            a_pix[i] = n * pixels_in;
            a_d0[i] = od * p.stride_d - p.pad_d;
            a_h0[i] = oh * p.stride_h - p.pad_h;
            a_w0[i] = ow * p.stride_w - p.pad_w;
            // A row past the tail never passes the bounds test below.
            if (PAD_M && m >= m_count) a_h0[i] = -0x40000000;
        }
        const int kred_group = p.Z * p.Y * p.X * p.c_per_group;
#pragma unroll
        for (int i = 0; i < ITB; ++i) {
            const int j = n0 + MapB::row(t_load, i);
            const int gj = GM == 1 ? 0 : j / p.k_per_group;
            const int kj = j - gj * p.k_per_group;
            const bool ok = (!PAD_N || j < n_total) && (GM == 1 || g0 + gj < p.G);
            b_base[i] = ok ? ((g0 + gj) * p.k_per_group + kj) * kred_group : -1;
            b_grp[i] = ok ? gj : -1;
        }
    }

    // Address and validity of one A vector (kk .. kk+VA-1 share a tap and a group).
    GCONV_DEVICE const T* a_src(int i, int kk, bool& valid) const {
        const int tap = kk / ceff;
        const int cc = kk - tap * ceff;
        int z = 0, y, x;
        if constexpr (NDIM3) {
            const int yx = p.Y * p.X;
            z = tap / yx;
            const int rem = tap - z * yx;
            y = rem / p.X;
            x = rem - y * p.X;
        } else {
            y = tap / p.X;
            x = tap - y * p.X;
        }
        const int di = a_d0[i] + z * p.dilation_d;
        const int hi = a_h0[i] + y * p.dilation_h;
        const int wi = a_w0[i] + x * p.dilation_w;
        valid = static_cast<unsigned>(hi) < static_cast<unsigned>(p.Hi) &&
                static_cast<unsigned>(wi) < static_cast<unsigned>(p.Wi);
        if constexpr (NDIM3)
            valid = valid && static_cast<unsigned>(di) < static_cast<unsigned>(p.Di);
        if constexpr (PAD_K) valid = valid && kk < kred;
        const int cbase = g0 * p.c_per_group + cc;
        if constexpr (GM > 1) valid = valid && cbase < p.C; // group tail
        const int pix = a_pix[i] + ((NDIM3 ? di * p.Hi : 0) + hi) * p.Wi + wi;
        return valid ? in + (pix * p.C + cbase) : in;
    }

    GCONV_DEVICE const T* b_src(int i, int kk, bool& valid) const {
        if constexpr (GM == 1) {
            valid = b_base[i] >= 0;
            if constexpr (PAD_K) valid = valid && kk < kred;
            return valid ? wei + (b_base[i] + kk) : wei;
        } else {
            const int tap = kk / ceff;
            const int cc = kk - tap * ceff;
            const int gl = cc / p.c_per_group;
            const int c = cc - gl * p.c_per_group;
            valid = gl == b_grp[i];
            if constexpr (PAD_K) valid = valid && kk < kred;
            return valid ? wei + (b_base[i] + tap * p.c_per_group + c) : wei;
        }
    }

    GCONV_DEVICE bool out_ok(int row, int col) const {
        const int j = n0 + col;
        bool ok = true;
        if constexpr (PAD_M) ok = ok && m0 + row < m_count;
        if constexpr (PAD_N) ok = ok && j < n_total;
        if constexpr (GM > 1) ok = ok && g0 * p.k_per_group + j < p.K;
        return ok;
    }
    GCONV_DEVICE OutT* out_ptr(int row, int col) const {
        return out + ((m0 + row) * p.K + g0 * p.k_per_group + n0 + col);
    }

    // After every thread's adds (gemm::run's last step): the SPLITS-th block to arrive at this
    // tile's ticket stores the tile's fp32 sums converted into the output. `flag` is one int of
    // shared memory, free once every thread is past the fence's barrier. Splits come without
    // split-image pieces (rules), so the tile is (group block, N tile, M tile).
    template <class Team> GCONV_DEVICE void finish_tile(int* flag, Team team) const {
        if constexpr (FINISH_IN_BLOCK) {
            typedef typename DTypeOf<Cfg::kDType>::type Y;
            const auto ticket = [&] {
                const i64 elems = static_cast<i64>(p.N) * p.Do * p.Ho * p.Wo * p.K;
                const int tiles_n = (n_total + TN - 1) / TN;
                const int tile = ((g0 / GM) * tiles_n + n0 / TN) * p.m_tiles_per_piece + m0 / TM;
                return reinterpret_cast<unsigned*>(out + elems) + tile;
            };
            if (!team_arrives_last(team, flag, SPLITS, ticket)) return;
            Y* y = static_cast<Y*>(p.out);
            // The tile's element e: its place in the output, or -1 outside it.
            auto place = [&](int e) -> i64 {
                const int row = e / TN, col = e - (e / TN) * TN;
                if (!out_ok(row, col)) return -1;
                return static_cast<i64>(m0 + row) * p.K + g0 * p.k_per_group + n0 + col;
            };
            convert_sums(team, TM * TN, place, out, y, ticket, p.keep_workspace_zero != 0);
        }
    }
};

// Kernel arguments: (params), with split-K (params, workspace); the wgmma pipeline adds the
// tensor maps, which must be the kernel's __grid_constant__ parameter itself (the bulk tensor
// copies address it in parameter space).
template <class Cfg> GCONV_DEVICE void run(const ConvParams& p, void* workspace = nullptr) {
    static_assert(!Source<Cfg>::WGMMA, "wgmma kernels take the tensor maps too");
    Source<Cfg> s(p, workspace);
    gemm::run(s);
}
template <class Cfg> GCONV_DEVICE void run(const ConvParams& p, const WgmmaMaps& maps) {
    Source<Cfg> s(p);
    wgmma::run(s, maps);
}
template <class Cfg>
GCONV_DEVICE void run(const ConvParams& p, void* workspace, const WgmmaMaps& maps) {
    Source<Cfg> s(p, workspace);
    wgmma::run(s, maps);
}

// Second kernel of split-K with a 16-bit output: converts the fp32 sums of the workspace into
// the output. Any 1-D launch shape.
template <class Cfg> GCONV_DEVICE void finish(const ConvParams& p, void* workspace) {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    gemm::finish_slices<T, 1>(static_cast<T*>(p.out), static_cast<float*>(workspace),
                              static_cast<i64>(p.N) * p.Do * p.Ho * p.Wo * p.K,
                              p.keep_workspace_zero != 0);
}

} // namespace fwd
} // namespace gconv
