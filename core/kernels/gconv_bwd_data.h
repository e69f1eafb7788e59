#pragma once
// Backward data: dIn = dOut * W as an implicit GEMM on the engine of gconv_gemm.h.
// Strides are decomposed by phase: input pixels whose (coordinate + pad) % stride agree form
// one phase, and only the filter taps with (tap * dilation) % stride equal to that phase reach
// them, each through an exact division. One launch covers every phase: grid x is
// phases x m_tiles_per_piece (tiles sized for the largest phase); a phase that no tap reaches
// has an empty reduction and its pixels are written as zeros.
// Per block (one phase, GM consecutive groups):
//   rows    m  = input pixel (n, id, ih, iw) of the phase, hi = first_h + ih * stride_h, ...
//   columns j  = (merged group gl, input channel c), contiguous in the NDHWGC dIn,
//   reduction kk = (phase tap t, merged group gl, output channel k): contiguous in NDHWGK dOut.
// A = dOut is K-major like the forward input; B = W is read along c (MN-major in shared
// memory) and block-diagonal over merged groups.
// ConvParams: in = dIn (written), wei = W, out = dOut; m_tiles_per_piece = M tiles per phase.
#include "gconv_gemm.h"

namespace gconv {
namespace bwd_data {

// The taps of one filter dimension that reach one stride phase: tap = first + i * step for
// i < count, and the output coordinate of the phase's pixel j through tap i is
// base(j) - i * delta.
struct PhaseDim {
    int first_in; // first input coordinate of the phase
    int extent;   // input coordinates of the phase
    int first_tap, count, delta, tap_step;
    int base0; // output coordinate of the phase's first pixel through its first tap

    GCONV_DEVICE void init(int phase, int stride, int pad, int dil, int taps, int in_extent) {
        first_in = ((phase - pad) % stride + stride) % stride;
        extent = first_in < in_extent ? (in_extent - first_in + stride - 1) / stride : 0;
        int a = stride, b = dil; // gcd(stride, dilation)
        while (b != 0) {
            const int t = a % b;
            a = b;
            b = t;
        }
        const int step = stride / a;
        first_tap = -1;
#pragma unroll 1
        for (int f = 0; f < step; ++f)
            if (first_tap < 0 && (f * dil) % stride == phase) first_tap = f;
        count = first_tap >= 0 && first_tap < taps ? (taps - first_tap + step - 1) / step : 0;
        if (first_tap < 0) first_tap = 0;
        delta = step * dil / stride;
        tap_step = step;
        // first_in + pad - first_tap * dil is a multiple of stride (first_tap * dil and
        // first_in + pad are both = phase mod stride), so the output coordinate of pixel j,
        // (first_in + j * stride + pad - first_tap * dil) / stride, is base0 + j: one exact
        // division per block instead of one per loader vector. (With count == 0 the phase
        // has no taps and base0 is never used.)
        base0 = (first_in + pad - first_tap * dil) / stride;
    }
    // Output coordinate of the phase's pixel j (input coordinate first_in + j * stride)
    // through the phase's first tap.
    GCONV_DEVICE int base(int j) const {
        return base0 + j;
    }
};

template <class Cfg>
struct Source : gemm::GemmGeometry<Cfg, false, true, typename DTypeOf<Cfg::kDType>::type, false> {
    typedef gemm::GemmGeometry<Cfg, false, true, typename DTypeOf<Cfg::kDType>::type, false> G;
    typedef typename G::T T;
    typedef typename G::MapA MapA;
    typedef typename G::MapB MapB;
    using G::GM;
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
    // 64-bit element offsets with split_image (backward kernels address whole tensors).
    typedef typename gemm::Offset<SI>::type Off;

    const ConvParams& p;
    const T* dout;
    const T* wei;
    T* din;
    PhaseDim pd, ph, pw;
    int m0, m_count, n0, g0;
    int ceff, kred, ktiles, n_total, ntaps;
    int t_load;
    int a_pix[ITA], a_d0[ITA], a_h0[ITA], a_w0[ITA];
    int b_c[ITB], b_grp[ITB];

    GCONV_DEVICE Source(const ConvParams& params) : p(params) {}

    GCONV_DEVICE bool active() const { return m0 < m_count; }
    GCONV_DEVICE static constexpr int tile_begin() { return 0; }
    GCONV_DEVICE int tile_count() const { return ktiles; }
    GCONV_DEVICE const T* a_fallback() const { return dout; }
    GCONV_DEVICE const T* b_fallback() const { return wei; }

    GCONV_DEVICE void setup(int tid) {
        const int mtiles = p.m_tiles_per_piece;
        const int phase = static_cast<int>(blockIdx.x) / mtiles;
        m0 = (static_cast<int>(blockIdx.x) - phase * mtiles) * TM;
        n0 = static_cast<int>(blockIdx.y) * TN;
        g0 = static_cast<int>(blockIdx.z) * GM;
        const int phase_w = phase % p.stride_w;
        const int phase_h = (phase / p.stride_w) % p.stride_h;
        const int phase_d = phase / (p.stride_w * p.stride_h);
        pw.init(phase_w, p.stride_w, p.pad_w, p.dilation_w, p.X, p.Wi);
        ph.init(phase_h, p.stride_h, p.pad_h, p.dilation_h, p.Y, p.Hi);
        if constexpr (NDIM3)
            pd.init(phase_d, p.stride_d, p.pad_d, p.dilation_d, p.Z, p.Di);
        else
            pd.init(0, 1, 0, 1, 1, 1);
        // A phase without pixels (stride above the extent) has no rows: the block idles.
        const int pixels =
            pd.extent * ph.extent * pw.extent > 0 ? pd.extent * ph.extent * pw.extent : 1;
        m_count = pd.extent * ph.extent * pw.extent > 0 ? p.N * pixels : 0;
        din = static_cast<T*>(const_cast<void*>(p.in));
        dout = static_cast<const T*>(p.out);
        wei = static_cast<const T*>(p.wei);
        ceff = GM * p.k_per_group;
        ntaps = pd.count * ph.count * pw.count;
        kred = ntaps * ceff;
        ktiles = (kred + TK - 1) / TK;
        n_total = GM * p.c_per_group;
        t_load = tid % G::LTHREADS;

        const int pixels_out = p.Do * p.Ho * p.Wo;
#pragma unroll
        for (int i = 0; i < ITA; ++i) {
            const int m = m0 + G::a_row(t_load, i);
            int id, ih, iw;
            const int n = decompose(m, pixels, id, ih, iw);
            a_pix[i] = n * pixels_out;
            a_d0[i] = NDIM3 ? pd.base(id) : 0;
            a_h0[i] = ph.base(ih);
            a_w0[i] = pw.base(iw);
            if (PAD_M && m >= m_count) a_h0[i] = -0x40000000;
        }
#pragma unroll
        for (int i = 0; i < ITB; ++i) {
            const int j = n0 + G::b_row(t_load, i);
            const int gj = GM == 1 ? 0 : j / p.c_per_group;
            const bool ok = (!PAD_N || j < n_total) && (GM == 1 || g0 + gj < p.G);
            b_c[i] = j - gj * p.c_per_group;
            b_grp[i] = ok ? gj : -1;
        }
    }

    // Image and phase-pixel coordinates of phase row m.
    GCONV_DEVICE int decompose(int m, int pixels, int& id, int& ih, int& iw) const {
        const int n = m / pixels;
        int r = m - n * pixels;
        const int hw = ph.extent * pw.extent;
        id = NDIM3 && hw > 0 ? r / hw : 0;
        r -= id * hw;
        ih = pw.extent > 0 ? r / pw.extent : 0;
        iw = r - ih * pw.extent;
        return n;
    }

    GCONV_DEVICE void tap_of(int t, int& tz, int& ty, int& tx) const {
        if constexpr (NDIM3) {
            const int yx = ph.count * pw.count;
            tz = t / yx;
            t -= tz * yx;
        } else {
            tz = 0;
        }
        ty = t / pw.count;
        tx = t - ty * pw.count;
    }

    GCONV_DEVICE const T* a_src(int i, int kk, bool& valid) const {
        const int t = kk / ceff;
        const int cc = kk - t * ceff;
        int tz, ty, tx;
        tap_of(t, tz, ty, tx);
        const int od = a_d0[i] - tz * pd.delta;
        const int oh = a_h0[i] - ty * ph.delta;
        const int ow = a_w0[i] - tx * pw.delta;
        valid = static_cast<unsigned>(oh) < static_cast<unsigned>(p.Ho) &&
                static_cast<unsigned>(ow) < static_cast<unsigned>(p.Wo);
        if constexpr (NDIM3)
            valid = valid && static_cast<unsigned>(od) < static_cast<unsigned>(p.Do);
        if constexpr (PAD_K) valid = valid && kk < kred;
        const int kbase = g0 * p.k_per_group + cc;
        if constexpr (GM > 1) valid = valid && kbase < p.K;
        const int pix = a_pix[i] + ((NDIM3 ? od * p.Ho : 0) + oh) * p.Wo + ow;
        return valid ? dout + (static_cast<Off>(pix) * p.K + kbase) : dout;
    }

    GCONV_DEVICE const T* b_src(int i, int kk, bool& valid) const {
        const int t = kk / ceff;
        const int cc = kk - t * ceff;
        const int gl = GM == 1 ? 0 : cc / p.k_per_group;
        const int k = cc - gl * p.k_per_group;
        valid = GM == 1 ? b_grp[i] >= 0 : gl == b_grp[i];
        if constexpr (PAD_K) valid = valid && kk < kred;
        int tz, ty, tx;
        tap_of(t, tz, ty, tx);
        const int z = pd.first_tap + tz * pd.tap_step;
        const int y = ph.first_tap + ty * ph.tap_step;
        const int x = pw.first_tap + tx * pw.tap_step;
        const int tap = (z * p.Y + y) * p.X + x;
        const int row = ((g0 + gl) * p.k_per_group + k) * (p.Z * p.Y * p.X) + tap;
        return valid ? wei + (row * p.c_per_group + b_c[i]) : wei;
    }

    GCONV_DEVICE bool out_ok(int row, int col) const {
        const int j = n0 + col;
        bool ok = true;
        if constexpr (PAD_M) ok = ok && m0 + row < m_count;
        if constexpr (PAD_N) ok = ok && j < n_total;
        if constexpr (GM > 1) ok = ok && g0 * p.c_per_group + j < p.C;
        return ok;
    }
    GCONV_DEVICE T* out_ptr(int row, int col) const {
        int id, ih, iw;
        const int n = decompose(m0 + row, m_count / p.N, id, ih, iw);
        const int di = NDIM3 ? pd.first_in + id * p.stride_d : 0;
        const int hi = ph.first_in + ih * p.stride_h;
        const int wi = pw.first_in + iw * p.stride_w;
        const int pix = ((n * p.Di + di) * p.Hi + hi) * p.Wi + wi;
        return din + (static_cast<Off>(pix) * p.C + g0 * p.c_per_group + n0 + col);
    }
};

template <class Cfg> GCONV_DEVICE void run(const ConvParams& p) {
    Source<Cfg> s(p);
    gemm::run(s);
}

} // namespace bwd_data
} // namespace gconv
