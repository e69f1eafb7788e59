// The fragment arithmetic of the tensor-core direct entries (kernels/gconv_direct_tc.h) checked
// without a GPU: a warp-level model of ldmatrix and mma.sync m16n8k16 as the PTX ISA defines
// their fragments, driven by the same layout functions the kernel uses
// (kernels/gconv_direct_tc_layout.h: geometry, ldmatrix row addresses, filter-row words), walks
// every block tile of random depthwise problems exactly as the kernel does and must reproduce the
// reference convolution exactly (small integer data: every sum is exact in fp32).
#include "codegen/direct_plan.h"
#include "kernels/gconv_direct_tc_layout.h"
#include "problem/problem.h"

#include <QRandomGenerator>
#include <QtTest>

#include <array>
#include <functional>
#include <vector>

using namespace gconv;

namespace {

constexpr int kLanes = 32;
using Shared = std::vector<float>; // one value per 16-bit element; addresses are bytes
using Pair = std::array<float, 2>; // the two 16-bit halves of a 32-bit register

// ldmatrix .x<count>: matrix m takes its 8 row addresses from lanes 8m .. 8m + 7; lane T receives
// row T / 4, elements 2 (T % 4) and + 1 of every matrix, matrix m in register m.
void ldmatrix(const Shared& s, const std::array<int, kLanes>& row_bytes, int count,
              std::array<std::array<Pair, 4>, kLanes>& regs) {
    for (int m = 0; m < count; ++m)
        for (int t = 0; t < kLanes; ++t) {
            const int e = row_bytes[8 * m + t / 4] / 2 + 2 * (t % 4);
            regs[t][m] = {s.at(e), s.at(e + 1)};
        }
}

// mma.sync.m16n8k16.row.col, fp32 accumulators. Lane (g, t) = (T / 4, T % 4) holds
// A: {row g, k 2t..}, {row g + 8, k 2t..}, {row g, k 2t + 8..}, {row g + 8, k 2t + 8..};
// B: {k 2t.., n g}, {k 2t + 8.., n g}; D: rows g and g + 8, columns 2t and 2t + 1.
void mma(const std::array<std::array<Pair, 4>, kLanes>& a,
         const std::array<std::array<Pair, 2>, kLanes>& b,
         std::array<std::array<float, 4>, kLanes>& d) {
    float A[16][16], B[16][8];
    for (int T = 0; T < kLanes; ++T) {
        const int g = T / 4, t = T % 4;
        for (int i = 0; i < 2; ++i) {
            A[g][2 * t + i] = a[T][0][i];
            A[g + 8][2 * t + i] = a[T][1][i];
            A[g][2 * t + 8 + i] = a[T][2][i];
            A[g + 8][2 * t + 8 + i] = a[T][3][i];
            B[2 * t + i][g] = b[T][0][i];
            B[2 * t + 8 + i][g] = b[T][1][i];
        }
    }
    for (int T = 0; T < kLanes; ++T) {
        const int g = T / 4, t = T % 4;
        for (int q = 0; q < 4; ++q) {
            const int row = g + (q >> 1) * 8, col = 2 * t + (q & 1);
            float sum = 0;
            for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
            d[T][q] += sum;
        }
    }
}

struct Conv {
    int N, C, H, W, K, pad; // source extents (forward: In, bwd_data: dOut), K x K filter
    bool bwd;
    int stride = 1;       // along H and W
    int dih = 0, diw = 0; // bwd_data with stride 2: dIn's extents (dOut's do not fix them)
    int dH() const {
        return !bwd ? (H + 2 * pad - K) / stride + 1 : stride == 1 ? H + K - 1 - 2 * pad : dih;
    }
    int dW() const {
        return !bwd ? (W + 2 * pad - K) / stride + 1 : stride == 1 ? W + K - 1 - 2 * pad : diw;
    }
};

// Forward: out[y][x] = sum in[y S - pad + r][x S - pad + s] w[r][s]; bwd_data:
// dIn[y][x] = sum dOut[(y + pad - r) / S][(x + pad - s) / S] w[r][s] where S divides.
std::vector<float> reference(const Conv& v, const std::vector<float>& src,
                             const std::vector<float>& w) {
    std::vector<float> dst(size_t(v.N) * v.dH() * v.dW() * v.C, 0.0f);
    for (int n = 0; n < v.N; ++n)
        for (int y = 0; y < v.dH(); ++y)
            for (int x = 0; x < v.dW(); ++x)
                for (int c = 0; c < v.C; ++c) {
                    float sum = 0;
                    for (int r = 0; r < v.K; ++r)
                        for (int s = 0; s < v.K; ++s) {
                            int sy = v.bwd ? y + v.pad - r : y * v.stride - v.pad + r;
                            int sx = v.bwd ? x + v.pad - s : x * v.stride - v.pad + s;
                            if (v.bwd) {
                                if (sy < 0 || sx < 0 || sy % v.stride || sx % v.stride) continue;
                                sy /= v.stride, sx /= v.stride;
                            }
                            if (sy < 0 || sy >= v.H || sx < 0 || sx >= v.W) continue;
                            sum += src[((size_t(n) * v.H + sy) * v.W + sx) * v.C + c] *
                                   w[(size_t(c) * v.K + r) * v.K + s];
                        }
                    dst[((size_t(n) * v.dH() + y) * v.dW() + x) * v.C + c] = sum;
                }
    return dst;
}

struct TcConfig {
    int tile_m, tile_k, tile_n, warps;
};

using Acc = std::array<std::array<std::array<float, 4>, kLanes>, 16>; // [channel][tile]

// The MMAs of one item (gconv_direct_tc.h item_mmas) on the models: per channel c and filter row
// r < rows, A rows from a_origin(c, r) (bytes) + the lane's ldmatrix offset, B from
// b_origin(c, r) + the lane's filter-row word.
template <class AOrigin, class BOrigin>
void item_mmas(const Shared& s, int row_stride, int rows, Acc& acc, AOrigin a_origin,
               BOrigin b_origin) {
    for (int c = 0; c < 8; ++c)
        for (int r = 0; r < rows; ++r) {
            std::array<int, kLanes> a_rows, e_rows;
            std::array<std::array<Pair, 4>, kLanes> a{}, e{}, a1{};
            std::array<std::array<Pair, 2>, kLanes> b{};
            for (int T = 0; T < kLanes; ++T) {
                a_rows[T] = a_origin(c, r) + direct_tc::a_lane_bytes(T, row_stride);
                e_rows[T] = a_rows[T] + 32;
            }
            ldmatrix(s, a_rows, 4, a);
            ldmatrix(s, e_rows, 2, e);
            for (int T = 0; T < kLanes; ++T) {
                const int word = b_origin(c, r) + direct_tc::b_lane_bytes(T);
                if (word % 4 != 0) qFatal("lane %d: a misaligned B word", T);
                for (int h = 0; h < 2; ++h)
                    b[T][h] = {s.at(word / 2 + 8 * h), s.at(word / 2 + 8 * h + 1)};
                a1[T] = {a[T][2], a[T][3], e[T][0], e[T][1]};
            }
            mma(a, b, acc[c * 2 + 0]);
            mma(a1, b, acc[c * 2 + 1]);
        }
}

// An item's stores: lane (g, t) holds rows g, g + 8 and columns 2t, 2t + 1 of each column tile;
// pixel(row, col) is the destination pixel or -1.
template <class Pixel>
void store_item(const Acc& acc, std::vector<float>& dst, int C, int c0, Pixel pixel) {
    for (int T = 0; T < kLanes; ++T)
        for (int j = 0; j < 2; ++j)
            for (int q = 0; q < 4; ++q) {
                const int at = pixel(T / 4 + (q >> 1) * 8, j * 8 + 2 * (T % 4) + (q & 1));
                if (at < 0 || c0 >= C) continue;
                for (int c = 0; c < 8; ++c) dst[size_t(at) * C + c0 + c] = acc[c * 2 + j][T][q];
            }
}

// gconv_direct_tc.h tc_data_s2 (bwd_data, stride 2) over every block, on the models.
std::vector<float> emulate_data_s2(const Conv& v, const TcConfig& k, const std::vector<float>& src,
                                   const std::vector<float>& w) {
    const int KS = v.K, EM = (KS + 1) / 2, Hi = v.dH(), Wi = v.dW();
    const direct_tc::DataS2Axis ay = direct_tc::data_s2_axis(KS, v.pad);
    const direct_tc::DataS2Axis ax = direct_tc::data_s2_axis(KS, v.pad);
    const auto g = direct_tc::data_s2_geometry<int>(k.tile_m, k.tile_k, KS, v.pad, v.N, Hi, Wi);
    const int plane = g.plane_rows * g.row_stride, oct = k.tile_n / 8;
    const int b_base = k.tile_n * plane * 2; // bytes
    std::vector<float> dst(size_t(v.N) * Hi * Wi * v.C, -12345.0f);
    const int channel_blocks = (v.C + k.tile_n - 1) / k.tile_n;
    for (int block = 0; block < g.tiles * channel_blocks; ++block) {
        const int tile = block / channel_blocks, ch0 = (block % channel_blocks) * k.tile_n;
        const int ct = tile % g.col_tiles, rest = tile / g.col_tiles;
        const int h0 = (rest % g.bands) * g.rows, n = rest / g.bands, w0 = ct * g.cols;
        Shared s(size_t(b_base / 2) + size_t(k.tile_n) * 4 * EM * 2 * direct_tc::kBRow, 0.0f);
        for (int cl = 0; cl < k.tile_n; ++cl)
            for (int q = 0; q < g.in_rows; ++q)
                for (int x = 0; x < g.row_stride; ++x) {
                    const int hi = h0 - ay.lead + q, wi = w0 - ax.lead + x, c = ch0 + cl;
                    const bool ok = hi >= 0 && hi < v.H && wi >= 0 && wi < v.W && c < v.C &&
                                    x < g.cols + ax.span;
                    s[size_t(cl) * plane + q * g.row_stride + x] =
                        ok ? src[((size_t(n) * v.H + hi) * v.W + wi) * v.C + c] : 0.0f;
                }
        for (int cl = 0; cl < k.tile_n; ++cl)
            for (int ph = 0; ph < 4; ++ph)
                for (int ey = 0; ey < EM; ++ey)
                    for (int i = 0; i < 2 * direct_tc::kBRow; ++i) {
                        const int py = ph >> 1, px = ph & 1, c = ch0 + cl;
                        const int ex = direct_tc::b_row_offset(i) - ax.offset[px];
                        float value = 0;
                        if (ey < ay.taps[py] && ex >= 0 && ex < ax.taps[px] && c < v.C) {
                            const int r = 2 * (ay.taps[py] - 1 - ey) + ay.rho[py];
                            const int sx = 2 * (ax.taps[px] - 1 - ex) + ax.rho[px];
                            value = w[(size_t(c) * KS + r) * KS + sx];
                        }
                        s[b_base / 2 + ((size_t(cl) * 4 + ph) * EM + ey) * 2 * direct_tc::kBRow +
                          i] = value;
                    }
        const int col_pairs = g.cols / 16, items = (g.rows / 16) * col_pairs * oct;
        for (int item = 0; item < items; ++item) {
            const int o = item % oct, cp = (item / oct) % col_pairs, rb = item / (oct * col_pairs);
            for (int ph = 0; ph < 4; ++ph) {
                const int py = ph >> 1, px = ph & 1;
                Acc acc{};
                item_mmas(
                    s, g.row_stride, ay.taps[py], acc,
                    [&](int c, int r) {
                        return ((o * 8 + c) * plane + (rb * 16 + ay.offset[py] + r) * g.row_stride +
                                cp * 16) *
                               2;
                    },
                    [&](int c, int r) {
                        return b_base + (((o * 8 + c) * 4 + ph) * EM + r) * direct_tc::kBRowBytes;
                    });
                store_item(acc, dst, v.C, ch0 + o * 8, [&](int row, int col) {
                    const int y = 2 * (h0 + rb * 16 + row) + py, x = 2 * (w0 + cp * 16 + col) + px;
                    return y < Hi && x < Wi ? (n * Hi + y) * Wi + x : -1;
                });
            }
        }
    }
    return dst;
}

// The kernel's walk (gconv_direct_tc.h tc_rows) over every block of the grid, on the models.
std::vector<float> emulate(const Conv& v, const TcConfig& k, const std::vector<float>& src,
                           const std::vector<float>& w) {
    if (v.bwd && v.stride == 2) return emulate_data_s2(v, k, src, w);
    const int dH = v.dH(), dW = v.dW(), KS = v.K, SH = v.stride, P = v.stride;
    const int pad = v.bwd ? KS - 1 - v.pad : v.pad;
    const auto g = direct_tc::geometry<int>(k.tile_m, k.tile_k, KS, SH, v.N, dH, dW);
    const int plane = g.plane_rows * g.row_stride; // [channel][column phase] planes
    const int oct = k.tile_n / 8;
    const int b_base = k.tile_n * P * plane * 2; // bytes
    std::vector<float> dst(size_t(v.N) * dH * dW * v.C, -12345.0f);
    const int channel_blocks = (v.C + k.tile_n - 1) / k.tile_n;
    for (int block = 0; block < g.tiles * channel_blocks; ++block) {
        const int tile = block / channel_blocks, ch0 = (block % channel_blocks) * k.tile_n;
        const int ct = tile % g.col_tiles, rest = tile / g.col_tiles;
        const int h0 = (rest % g.bands) * g.rows, n = rest / g.bands, w0 = ct * g.cols;
        Shared s(size_t(b_base / 2) + size_t(k.tile_n) * P * KS * 2 * direct_tc::kBRow, 0.0f);
        // Source row q at row (q % SH) x phase_rows + q / SH; element m of column phase f is
        // source column w0 P - pad + P m + f.
        for (int q = 0; q < g.in_rows; ++q)
            for (int f = 0; f < P; ++f)
                for (int x = 0; x < g.row_stride; ++x)
                    for (int cl = 0; cl < k.tile_n; ++cl) {
                        const int hi = h0 * SH - pad + q, wi = w0 * P - pad + P * x + f;
                        const int c = ch0 + cl;
                        const bool ok = hi >= 0 && hi < v.H && wi >= 0 && wi < v.W && c < v.C &&
                                        x < g.cols + (KS - 1) / P;
                        const int row = (q % SH) * g.phase_rows + q / SH;
                        s[size_t(cl * P + f) * plane + row * g.row_stride + x] =
                            ok ? src[((size_t(n) * v.H + hi) * v.W + wi) * v.C + c] : 0.0f;
                    }
        for (int cl = 0; cl < k.tile_n; ++cl)
            for (int f = 0; f < P; ++f)
                for (int r = 0; r < KS; ++r)
                    for (int i = 0; i < 2 * direct_tc::kBRow; ++i) {
                        const int tap = direct_tc::b_row_tap(i, KS, P, f), c = ch0 + cl;
                        const int wr = v.bwd ? KS - 1 - r : r, ws = v.bwd ? KS - 1 - tap : tap;
                        s[b_base / 2 + ((size_t(cl) * P + f) * KS + r) * 2 * direct_tc::kBRow + i] =
                            tap >= 0 && c < v.C ? w[(size_t(c) * KS + wr) * KS + ws] : 0.0f;
                    }
        const int col_pairs = g.cols / 16, items = (g.rows / 16) * col_pairs * oct;
        for (int item = 0; item < items; ++item) { // warps take items in turn: order is free
            const int o = item % oct, cp = (item / oct) % col_pairs, rb = item / (oct * col_pairs);
            Acc acc{};
            for (int f = 0; f < P; ++f)
                item_mmas(
                    s, g.row_stride, KS, acc,
                    [&](int c, int r) {
                        const int row = (r % SH) * g.phase_rows + r / SH + rb * 16;
                        return (((o * 8 + c) * P + f) * plane + row * g.row_stride + cp * 16) * 2;
                    },
                    [&](int c, int r) {
                        return b_base + (((o * 8 + c) * P + f) * KS + r) * direct_tc::kBRowBytes;
                    });
            store_item(acc, dst, v.C, ch0 + o * 8, [&](int row, int col) {
                const int y = h0 + rb * 16 + row, x = w0 + cp * 16 + col;
                return y < dH && x < dW ? (n * dH + y) * dW + x : -1;
            });
        }
    }
    return dst;
}

// bwd_weight: dW[c][r][s] = sum over n, y, x of In[y S - pad + r][x S - pad + s] * dOut[y][x].
std::vector<float> reference_weight(const Conv& v, const std::vector<float>& in,
                                    const std::vector<float>& dout) {
    const int Ho = v.dH(), Wo = v.dW();
    std::vector<float> dw(size_t(v.C) * v.K * v.K, 0.0f);
    for (int c = 0; c < v.C; ++c)
        for (int r = 0; r < v.K; ++r)
            for (int s = 0; s < v.K; ++s) {
                float sum = 0;
                for (int n = 0; n < v.N; ++n)
                    for (int y = 0; y < Ho; ++y)
                        for (int x = 0; x < Wo; ++x) {
                            const int iy = y * v.stride - v.pad + r;
                            const int ix = x * v.stride - v.pad + s;
                            if (iy < 0 || iy >= v.H || ix < 0 || ix >= v.W) continue;
                            sum += in[((size_t(n) * v.H + iy) * v.W + ix) * v.C + c] *
                                   dout[((size_t(n) * Ho + y) * Wo + x) * v.C + c];
                        }
                dw[(size_t(c) * v.K + r) * v.K + s] = sum;
            }
    return dw;
}

// gconv_direct_tc.h tc_weight over every block of the grid, on the models, in the planes of
// direct_tc::weight_planes: dOut planes of rows + 1 rows (a zero row last), input rows as S
// column phases in two copies (the second shifted left by one), a pad between 8-channel vectors.
std::vector<float> emulate_weight(const Conv& v, const TcConfig& k, const std::vector<float>& in,
                                  const std::vector<float>& dout) {
    const int Ho = v.dH(), Wo = v.dW(), KS = v.K, P = v.stride;
    const auto g = direct_tc::geometry<int>(k.tile_m, k.tile_k, KS, P, v.N, Ho, Wo);
    const auto planes = direct_tc::weight_planes<int>(g, P, k.tile_n);
    const int i_base = planes.douts; // elements
    // Where channel cl's planes start: its 8-channel vector's, then cl % 8 planes on.
    auto d_at = [&](int cl) { return cl / 8 * planes.d_group + cl % 8 * planes.d_plane; };
    auto i_at = [&](int cl) { return i_base + cl / 8 * planes.i_group + cl % 8 * planes.i_plane; };
    std::vector<float> dw(size_t(v.C) * KS * KS, 0.0f);
    const int channel_blocks = (v.C + k.tile_n - 1) / k.tile_n;
    for (int block = 0; block < g.tiles * channel_blocks; ++block) {
        const int tile = block / channel_blocks, ch0 = (block % channel_blocks) * k.tile_n;
        const int ct = tile % g.col_tiles, rest = tile / g.col_tiles;
        const int h0 = (rest % g.bands) * g.rows, n = rest / g.bands, w0 = ct * g.cols;
        Shared s(size_t(planes.douts) + size_t(planes.ins), 0.0f);
        for (int cl = 0; cl < k.tile_n; ++cl) {
            const int c = ch0 + cl;
            for (int q = 0; q < g.rows; ++q)
                for (int x = 0; x < g.cols; ++x) {
                    const int y = h0 + q, xo = w0 + x;
                    if (c < v.C && y < Ho && xo < Wo)
                        s[size_t(d_at(cl)) + q * g.row_stride + x] =
                            dout[((size_t(n) * Ho + y) * Wo + xo) * v.C + c];
                }
            for (int q = 0; q < g.in_rows; ++q)
                for (int f = 0; f < P; ++f)
                    for (int x = 0; x < g.row_stride; ++x) {
                        const int iy = h0 * P - v.pad + q, ix = w0 * P - v.pad + P * x + f;
                        const bool ok = c < v.C && iy >= 0 && iy < v.H && ix >= 0 && ix < v.W &&
                                        x < g.cols + (KS - 1) / P;
                        const float value =
                            ok ? in[((size_t(n) * v.H + iy) * v.W + ix) * v.C + c] : 0;
                        const size_t row =
                            size_t(i_at(cl)) + size_t(q) * planes.i_row + size_t(f) * g.row_stride;
                        s[row + x] = value;
                        if (x > 0) s[row + planes.i_copy + x - 1] = value;
                    }
        }
        std::vector<float> sums(size_t(k.tile_n) * KS * KS, 0.0f);
        constexpr int CPI = 4; // channels of a warp item
        for (int item = 0; item < (g.cols / 16) * (k.tile_n / CPI); ++item) {
            const int cb = item % (k.tile_n / CPI) * CPI, j = item / (k.tile_n / CPI);
            std::array<std::array<std::array<float, 4>, kLanes>, CPI * 2> acc{}; // [c][phase]
            for (int i = 0; i < g.in_rows; ++i)
                for (int c = 0; c < CPI; ++c)
                    for (int f = 0; f < P; ++f) {
                        std::array<int, kLanes> b_rows;
                        for (int T = 0; T < kLanes; ++T) {
                            const int r = T & 7, q = i - r;
                            const bool meets = r < KS && q >= 0 && q % P == 0 && q / P < g.rows;
                            const int row = meets ? q / P : g.rows;
                            b_rows[T] = ((d_at(cb + c) + row * g.row_stride + j * 16) +
                                         ((T >> 3) & 1) * 8) *
                                        2;
                        }
                        std::array<std::array<Pair, 4>, kLanes> b4{};
                        ldmatrix(s, b_rows, 2, b4);
                        std::array<std::array<Pair, 2>, kLanes> b{};
                        std::array<std::array<Pair, 4>, kLanes> a{};
                        for (int T = 0; T < kLanes; ++T) {
                            b[T] = {b4[T][0], b4[T][1]};
                            const int element = i_at(cb + c) + i * planes.i_row + f * g.row_stride +
                                                j * 16 + direct_tc::hankel_lane_element(T) +
                                                ((T / 4) & 1 ? planes.i_copy : 0);
                            if (element % 2 != 0) qFatal("lane %d: a misaligned Hankel word", T);
                            a[T][0] = {s.at(element), s.at(element + 1)};
                            a[T][2] = {s.at(element + 8), s.at(element + 9)};
                            a[T][1] = a[T][3] = {0.0f, 0.0f};
                        }
                        mma(a, b, acc[c * 2 + f]);
                    }
            for (int c = 0; c < CPI; ++c)
                for (int f = 0; f < P; ++f)
                    for (int T = 0; T < kLanes; ++T)
                        for (int h = 0; h < 2; ++h) {
                            const int sv = P * (T / 4) + f, r = 2 * (T % 4) + h;
                            if (sv < KS && r < KS)
                                sums[((cb + c) * KS + r) * KS + sv] += acc[c * 2 + f][T][h];
                        }
        }
        const int present = std::min(v.C - ch0, k.tile_n) * KS * KS;
        for (int e = 0; e < present; ++e) dw[size_t(ch0) * KS * KS + e] += sums[e];
    }
    return dw;
}

// The tiles the model walks: one and two row blocks, 16 to 64 columns, 8 to 32 channels.
// The staging stores of tc_weight (gconv_direct_tc.h) in the planes of weight_planes: the 32
// consecutive units of a warp's store (8-channel vector fastest) each write the element pair of
// channel j of their vector, in the dOut plane and in both input copies. The first store
// instruction whose words share a bank, described, or empty when there is none.
QString weight_store_clash(const direct_tc::Geometry<int>& g, int P, int tile_n) {
    const auto planes = direct_tc::weight_planes<int>(g, P, tile_n);
    const int oct = tile_n / 8, pairs = g.row_stride / 2;
    auto dout_element = [&](int u) {
        const int o = u % oct, px = u / oct;
        return o * planes.d_group + px / pairs * g.row_stride + 2 * (px % pairs);
    };
    auto in_element = [&](int u) {
        const int o = u % oct, px = u / oct, f = px / pairs % P, q = px / pairs / P;
        return planes.douts + o * planes.i_group + q * planes.i_row + f * g.row_stride +
               2 * (px % pairs);
    };
    struct Store {
        const char* what;
        int units, channel_stride, offset;
        std::function<int(int)> element;
    };
    const Store stores[] = {
        {"dOut", (g.rows + 1) * pairs * oct, planes.d_plane, 0, dout_element},
        {"input copy 0", g.in_rows * P * pairs * oct, planes.i_plane, 0, in_element},
        {"input copy 1", g.in_rows * P * pairs * oct, planes.i_plane, planes.i_copy, in_element}};
    for (const Store& s : stores)
        for (int u0 = 0; u0 < s.units; u0 += kLanes)
            for (int j = 0; j < 8; ++j) {
                QSet<int> banks;
                int words = 0;
                for (int u = u0; u < s.units && u < u0 + kLanes; ++u, ++words)
                    banks.insert((s.element(u) + j * s.channel_stride + s.offset) / 2 % 32);
                if (banks.size() != words)
                    return QString("%1, units %2.., channel %3: %4 words in %5 banks")
                        .arg(s.what)
                        .arg(u0)
                        .arg(j)
                        .arg(words)
                        .arg(banks.size());
            }
    return {};
}

// Every tc_weight tile the pools can build (tile_m / (16 tile_k) a multiple of 16), for each
// channel count, filter, stride and image width up to the widest tile.
struct WeightTile {
    int tile_m, tile_n, tile_k, K, stride, width;
    direct_tc::Geometry<int> g;
    QString describe() const {
        return QString("tile %1x%2x%3, K %4, stride %5, width %6")
            .arg(tile_m)
            .arg(tile_n)
            .arg(tile_k)
            .arg(K)
            .arg(stride)
            .arg(width);
    }
};
std::vector<WeightTile> weight_tiles() {
    std::vector<WeightTile> tiles;
    for (int tile_n : {8, 16, 32, 64})
        for (int tile_m : {256, 512, 1024, 2048})
            for (int tile_k : {1, 2})
                for (int K : {3, 5, 7})
                    for (int P : {1, 2})
                        for (int width : {16, 32, 48, 64}) {
                            const auto g =
                                direct_tc::geometry<int>(tile_m, tile_k, K, P, 1, 64, width);
                            if (g.cols > 0 && tile_m / g.rows % 16 == 0)
                                tiles.push_back({tile_m, tile_n, tile_k, K, P, width, g});
                        }
    return tiles;
}

// The walk's Hankel loads (gconv_direct_tc.h tc_weight): lane T reads its pair's word from copy
// 0 or, for odd g, copy 1 of one staged row. The first lane whose word shares a bank with
// another word of the same load, described, or empty when there is none.
QString hankel_load_clash(const direct_tc::Geometry<int>& g, int P, int tile_n) {
    const auto planes = direct_tc::weight_planes<int>(g, P, tile_n);
    QHash<int, int> word_of_bank;
    for (int T = 0; T < kLanes; ++T) {
        const int word =
            (direct_tc::hankel_lane_element(T) + ((T / 4) & 1 ? planes.i_copy : 0)) / 2;
        const int bank = word % 32;
        if (word_of_bank.contains(bank) && word_of_bank[bank] != word)
            return QString("lane %1 reads word %2, bank %3 also holds word %4")
                .arg(T)
                .arg(word)
                .arg(bank)
                .arg(word_of_bank[bank]);
        word_of_bank[bank] = word;
    }
    return {};
}

const std::vector<TcConfig> k_configs = {
    {1024, 1, 16, 4}, {512, 1, 8, 2}, {256, 1, 32, 8}, {2048, 2, 8, 4}, {1024, 2, 16, 2}};

// A random depthwise problem: 3x3 / 5x5 / 7x7, every pad up to K - 1, 1-2 images, 8-40
// channels, now and then a tall or a wide image (several bands or column tiles); `directions`
// 1 forward only, 2 forward or bwd_data; forward strides 1 or 2 where `strided`.
Conv random_conv(QRandomGenerator* rng, int trial, int directions, bool strided) {
    Conv v;
    v.K = 3 + 2 * rng->bounded(3);
    v.pad = rng->bounded(v.K);
    v.bwd = rng->bounded(directions) == 1;
    v.stride = strided ? 1 + rng->bounded(2) : 1;
    v.N = 1 + rng->bounded(2);
    v.C = 8 * (1 + rng->bounded(5));
    v.H = v.K + rng->bounded(trial % 8 == 0 ? 40 : 20);
    v.W = v.K + rng->bounded(trial % 5 == 0 ? 150 : 30);
    if (v.bwd && v.stride == 2) { // H x W is dIn: dOut follows from it
        v.dih = v.H, v.diw = v.W;
        v.H = (v.dih + 2 * v.pad - v.K) / 2 + 1, v.W = (v.diw + 2 * v.pad - v.K) / 2 + 1;
    }
    return v;
}

std::vector<float> random_values(QRandomGenerator* rng, size_t n, int spread) {
    std::vector<float> v(n);
    for (float& x : v) x = float(rng->bounded(2 * spread + 1) - spread);
    return v;
}

QString describe(const Conv& v, const TcConfig& k) {
    return QString("%1K %2 pad %3 stride %4, %5x%6x%7x%8, tile_m %9 tile_k %10 tile_n %11")
        .arg(v.bwd ? "bwd_data, " : "")
        .arg(v.K)
        .arg(v.pad)
        .arg(v.stride)
        .arg(v.N)
        .arg(v.H)
        .arg(v.W)
        .arg(v.C)
        .arg(k.tile_m)
        .arg(k.tile_k)
        .arg(k.tile_n);
}

// Every element equal (small integer data: the sums are exact), else the first that is not.
void expect_equal(const std::vector<float>& want, const std::vector<float>& got,
                  const QString& what) {
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
        if (got[i] != want[i])
            QFAIL(qPrintable(QString("%1: element %2 is %3, want %4")
                                 .arg(what)
                                 .arg(i)
                                 .arg(got[i])
                                 .arg(want[i])));
}

} // namespace

class TestDirectTcLayout : public QObject {
    Q_OBJECT

private slots:
    void every_lane_reads_its_toeplitz_pair_from_one_aligned_word() {
        for (int taps : {3, 5, 7}) {
            for (int T = 0; T < kLanes; ++T) {
                const int g = T / 4, t = T % 4;
                for (int h = 0; h < 2; ++h) {
                    const int word = direct_tc::b_lane_bytes(T) + 16 * h;
                    QCOMPARE(word % 4, 0);
                    for (int i = 0; i < 2; ++i) {
                        const int k = 2 * t + 8 * h + i, tap = k - g;
                        const int want = tap >= 0 && tap < taps ? tap : -1;
                        QCOMPARE(direct_tc::b_row_tap(word / 2 + i, taps), want);
                    }
                }
            }
        }
    }

    void the_rows_of_one_ldmatrix_phase_fall_in_distinct_banks() {
        for (int cols : {16, 32, 48, 64}) {
            const int stride = cols + 8;
            for (int m = 0; m < 4; ++m) {
                QSet<int> groups; // 16-byte bank groups of the eight rows of matrix m
                for (int T = 8 * m; T < 8 * m + 8; ++T)
                    groups.insert(direct_tc::a_lane_bytes(T, stride) / 16 % 8);
                QCOMPARE(groups.size(), 8);
            }
        }
    }

    void the_modelled_kernel_reproduces_the_reference_convolution() {
        auto* rng = QRandomGenerator::global();
        int checked = 0;
        for (int trial = 0; trial < 60; ++trial) {
            const Conv v = random_conv(rng, trial, 2, true);
            if (v.dH() <= 0 || v.dW() <= 0) continue;
            const TcConfig k = k_configs[trial % k_configs.size()];
            const auto src = random_values(rng, size_t(v.N) * v.H * v.W * v.C, 4);
            const auto w = random_values(rng, size_t(v.C) * v.K * v.K, 3);
            expect_equal(reference(v, src, w), emulate(v, k, src, w),
                         QString("trial %1 (%2)").arg(trial).arg(describe(v, k)));
            if (QTest::currentTestFailed()) return;
            ++checked;
        }
        QVERIFY2(checked >= 45, "too few problems had an output");
    }

    void every_lane_reads_its_hankel_pair_from_one_aligned_word() {
        for (int T = 0; T < kLanes; ++T) {
            const int g = T / 4, t = T % 4, e = direct_tc::hankel_lane_element(T);
            QCOMPARE(e % 2, 0);
            // In the second copy element e holds column e + 1.
            QCOMPARE(e + (g & 1), 2 * t + g);
        }
    }

    void the_modelled_weight_kernel_reproduces_the_reference_gradient() {
        auto* rng = QRandomGenerator::global();
        int checked = 0;
        for (int trial = 0; trial < 40; ++trial) {
            const Conv v = random_conv(rng, trial, 1, true);
            if (v.dH() <= 0 || v.dW() <= 0) continue;
            const TcConfig k = k_configs[trial % k_configs.size()];
            const auto in = random_values(rng, size_t(v.N) * v.H * v.W * v.C, 4);
            const auto dout = random_values(rng, size_t(v.N) * v.dH() * v.dW() * v.C, 3);
            expect_equal(reference_weight(v, in, dout), emulate_weight(v, k, in, dout),
                         QString("trial %1 (bwd_weight, %2)").arg(trial).arg(describe(v, k)));
            if (QTest::currentTestFailed()) return;
            ++checked;
        }
        QVERIFY2(checked >= 30, "too few problems had an output");
    }

    // tc_weight's staging: over every tile of the pools, filter and stride, no bank takes two of
    // the words of one store instruction (weight_store_clash).
    void the_weight_staging_stores_meet_no_bank_twice() {
        const std::vector<WeightTile> tiles = weight_tiles();
        QVERIFY(tiles.size() >= 100);
        for (const WeightTile& t : tiles) {
            const QString clash = weight_store_clash(t.g, t.stride, t.tile_n);
            if (!clash.isEmpty()) QFAIL(qPrintable(t.describe() + ": " + clash));
        }
    }

    // tc_weight's walk: a Hankel load's lanes read copy 0 (even g) or copy 1 (odd g) of one
    // staged row; distinct words must fall in distinct banks (hankel_load_clash).
    void the_weight_walk_reads_its_hankel_words_without_bank_conflicts() {
        for (const WeightTile& t : weight_tiles()) {
            const QString clash = hankel_load_clash(t.g, t.stride, t.tile_n);
            if (!clash.isEmpty()) QFAIL(qPrintable(t.describe() + ": " + clash));
        }
    }
};

QTEST_APPLESS_MAIN(TestDirectTcLayout)
#include "tst_direct_tc_layout.moc"
