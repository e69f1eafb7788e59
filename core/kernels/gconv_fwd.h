#pragma once
// Forward grouped convolution as an implicit GEMM, one code path for every configuration.
// Per block: a TM x TN tile of C = A * B for GM consecutive groups, where
//   rows    m  = output pixel (n, do, ho, wo) inside one split-image piece,
//   columns j  = (merged group gl, output channel k), contiguous in the NDHWGK output,
//   reduction kk = (filter tap zyx, merged group gl, input channel c); for a fixed tap the
//                  (gl, c) run is contiguous in the NDHWGC input, so merged groups load as one
//                  wide row. B is block-diagonal over merged groups (zero when gl differs).
// The generated translation unit defines a config struct (see core/codegen/kernel_source.cpp)
// and calls gconv::fwd::run<Config>(params).
#include "gconv_arch.h"
#include "gconv_convert.h"
#include "gconv_params.h"

namespace gconv {

extern __shared__ GCONV_ALIGN(16) u8 gconv_dynamic_smem[];

namespace fwd {

// Codes emitted by the generator, in the order of config/enums.h.
enum { kBasicV1 = 0, kMem = 1, kCompV3 = 2, kCompV4 = 3, kCompV5 = 4, kCompV6 = 5, kCompAsync = 6 };
enum { kIntrawave = 0, kInterwave = 1 };
enum { kCShuffle = 0, kDirectStore = 1 };

template <int A, int B> struct Min { static constexpr int value = A < B ? A : B; };

template <class Cfg> struct Kernel {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    static constexpr int TM = Cfg::kTileM, TN = Cfg::kTileN, TK = Cfg::kTileK;
    static constexpr int WM = Cfg::kWarpTileM, WN = Cfg::kWarpTileN, WK = Cfg::kWarpTileK;
    static constexpr int WARP = GCONV_WARP_SIZE;
    static constexpr int NWARPS = Cfg::kWaveM * Cfg::kWaveN;
    static constexpr int THREADS = NWARPS * WARP;
    static constexpr int GM = Cfg::kGroupsToMerge;
    static constexpr int VA = Cfg::kVecA, VB = Cfg::kVecB, VC = Cfg::kVecC;
    static constexpr int PIPE = Cfg::kPipeline;
    static constexpr bool NDIM3 = Cfg::kNdim == 3;
    static constexpr bool PAD_M = Cfg::kPadM, PAD_N = Cfg::kPadN, PAD_K = Cfg::kPadK;
    static constexpr bool SI = Cfg::kSplitImage;
    static constexpr bool INTERWAVE = Cfg::kScheduler == kInterwave;
    static constexpr bool CSHUFFLE = Cfg::kEpilogue == kCShuffle;

    // compv5: the warps form two groups; each group computes whole tiles (alternate K tiles)
    // with the block tile spread over its half of the warps.
    static constexpr bool SPLIT = PIPE == kCompV5;
    static constexpr int CWARPS = SPLIT ? NWARPS / 2 : NWARPS;
    static constexpr int CWN =
        SPLIT ? (Cfg::kWaveN % 2 == 0 ? Cfg::kWaveN / 2 : Cfg::kWaveN) : Cfg::kWaveN;
    static constexpr int CWM = CWARPS / CWN;
    static constexpr int RM = TM / (CWM * WM), RN = TN / (CWN * WN); // warp-tile repeats
    static constexpr int CTHREADS = CWARPS * WARP;
    static constexpr int LTHREADS = SPLIT ? THREADS / 2 : THREADS; // threads loading one tile
    static_assert(!SPLIT || NWARPS % 2 == 0, "compv5 needs an even number of warps");
    static_assert(RM * CWM * WM == TM && RN * CWN * WN == TN, "warp tiles must tile the block");
    static_assert(TK % WK == 0, "tile_k must be a multiple of warp_tile_k");

    static constexpr int ELEM = sizeof(T);
    static constexpr int LDS = TK + 16 / ELEM; // shared row stride: one 16-byte pad per row
    static constexpr int A_ELEMS = TM * LDS;
    static constexpr int STAGE_ELEMS = (TM + TN) * LDS;
    static constexpr int STAGES = Cfg::kStages;
    static constexpr int LDC = TN + 16 / ELEM;

    // ---- math path geometry ----
    static constexpr bool MMA = Cfg::kUseMma;
    static constexpr bool IS_HALF = Cfg::kDType == 1;
#if defined(GCONV_NV)
    static constexpr int FRAG_N = 8; // mma.m16n8k16
#else
    static constexpr int FRAG_N = 16; // mfma 16x16x16
#endif
    static constexpr int FM = MMA ? WM / 16 : 1;
    static constexpr int FN = MMA ? WN / FRAG_N : 1;
    static constexpr int KSTEPS = MMA ? WK / 16 : WK; // MMA k-steps (or SIMT k values) per chunk
    static constexpr int LN = 8, LM = WARP / LN;      // SIMT lane grid
    static constexpr int TMR = MMA ? 1 : WM / LM, TNR = MMA ? 1 : WN / LN;
    static constexpr int ACC = TM * TN / CTHREADS;
#if defined(GCONV_NV)
    static constexpr int RUN = MMA ? 2 : TNR; // contiguous columns per accumulator run
#else
    static constexpr int RUN = MMA ? 1 : TNR;
#endif
    static_assert(!MMA || (WM % 16 == 0 && WN % FRAG_N == 0 && WK % 16 == 0), "MMA warp tile");
    static_assert(MMA || (WM % LM == 0 && WN % LN == 0), "SIMT warp tile");
    static_assert(MMA ? FM * FN * 4 * RM * RN == ACC : TMR * TNR * RM * RN == ACC, "acc count");

    // ---- shared memory: must equal the host formula (launch_plan.cpp) ----
    static constexpr int PIPE_BYTES = STAGES * STAGE_ELEMS * ELEM;
    static constexpr int EPI_BYTES = CSHUFFLE ? TM * LDC * ELEM : 0;
    static constexpr int RED_BYTES = SPLIT ? TM * TN * 4 : 0;
    static constexpr int SMEM_BYTES = PIPE_BYTES > EPI_BYTES
                                          ? (PIPE_BYTES > RED_BYTES ? PIPE_BYTES : RED_BYTES)
                                          : (EPI_BYTES > RED_BYTES ? EPI_BYTES : RED_BYTES);
    static_assert(SMEM_BYTES == Cfg::kSmemBytes, "host and device shared-memory sizes differ");
    static_assert(PIPE != kBasicV1 || STAGES == (Cfg::kDsb ? 2 : 1), "basic_v1 stages");
    static_assert(PIPE != kCompV3 || STAGES == 1, "compv3 uses one shared buffer");
    static_assert((PIPE != kCompV4 && PIPE != kCompV5 && PIPE != kCompAsync) || STAGES == 2,
                  "ping-pong pipelines use two shared buffers");
    static_assert(PIPE != kCompV6 || STAGES == 3, "compv6 uses three stages");
    static_assert(PIPE != kMem || STAGES >= 3, "mem prefetches at least two stages");

    // ---- tile loader maps: which (row, column) vectors a loader thread moves ----
    template <int ROWS, int VEC> struct Map {
        static constexpr int VPR = TK / VEC;
        static constexpr int TOTAL = ROWS * VPR;
        static constexpr int ITERS = (TOTAL + LTHREADS - 1) / LTHREADS;
        static constexpr bool EXACT = TOTAL % LTHREADS == 0;
        static constexpr bool FIXED_COL = LTHREADS % VPR == 0;
        GCONV_DEVICE static int row(int t, int i) {
            if constexpr (FIXED_COL) return t / VPR + i * (LTHREADS / VPR);
            return (t + i * LTHREADS) / VPR;
        }
        GCONV_DEVICE static int col(int t, int i) {
            if constexpr (FIXED_COL) return (t % VPR) * VEC;
            return ((t + i * LTHREADS) % VPR) * VEC;
        }
        GCONV_DEVICE static bool active(int t, int i) { return EXACT || t + i * LTHREADS < TOTAL; }
    };
    typedef Map<TM, VA> MapA;
    typedef Map<TN, VB> MapB;
    static constexpr int ITA = MapA::ITERS, ITB = MapB::ITERS;
    static constexpr int BYTES_A = VA * ELEM, BYTES_B = VB * ELEM, BYTES_C = VC * ELEM;

    struct Stage {
        Raw<BYTES_A> a[ITA];
        Raw<BYTES_B> b[ITB];
    };

    // Per-thread state, fixed for the whole block.
    const ConvParams& p;
    const T* in;
    const T* wei;
    T* out;
    int m0, m_count, n0, g0;
    int ceff, kred, ktiles, n_total; // merged channels per tap, GEMM K, K tiles, GEMM N
    int t_load;                      // this thread's index among the loaders of a tile
    int a_pix[ITA], a_d0[ITA], a_h0[ITA], a_w0[ITA];
    int b_base[ITB], b_grp[ITB];

    GCONV_DEVICE Kernel(const ConvParams& params) : p(params) {}

    GCONV_DEVICE void setup(int tid) {
        const int pixels_out = p.Do * p.Ho * p.Wo;
        const int mtiles = p.m_tiles_per_piece;
        const int piece = static_cast<int>(blockIdx.x) / mtiles;
        m0 = (static_cast<int>(blockIdx.x) - piece * mtiles) * TM;
        n0 = static_cast<int>(blockIdx.y) * TN;
        g0 = static_cast<int>(blockIdx.z) * GM;
        const int first_image = piece * p.images_per_piece;
        const int images =
            p.N - first_image < p.images_per_piece ? p.N - first_image : p.images_per_piece;
        m_count = images * pixels_out;
        in = static_cast<const T*>(p.in);
        out = static_cast<T*>(p.out);
        wei = static_cast<const T*>(p.wei);
        if constexpr (SI) {
            in += static_cast<i64>(piece) * p.in_piece_stride;
            out += static_cast<i64>(piece) * p.out_piece_stride;
        }
        ceff = GM * p.c_per_group;
        kred = p.Z * p.Y * p.X * ceff;
        ktiles = (kred + TK - 1) / TK;
        n_total = GM * p.k_per_group;
        t_load = tid % LTHREADS;

        const int hw_out = p.Ho * p.Wo;
        const int pixels_in = p.Di * p.Hi * p.Wi;
#pragma unroll
        for (int i = 0; i < ITA; ++i) {
            const int m = m0 + MapA::row(t_load, i);
            int n = m / pixels_out;
            int r = m - n * pixels_out;
            const int od = r / hw_out;
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

    GCONV_DEVICE static T* stage_a(T* smem, int s) {
        return smem + s * STAGE_ELEMS;
    }
    GCONV_DEVICE static T* stage_b(T* smem, int s) {
        return smem + s * STAGE_ELEMS + A_ELEMS;
    }

    // ---- register path: global -> registers, registers -> shared ----
    GCONV_DEVICE void load_global(Stage& st, int tile) const {
        const int k0 = tile * TK;
#pragma unroll
        for (int i = 0; i < ITA; ++i) {
            bool v = false;
            const T* src = MapA::active(t_load, i) ? a_src(i, k0 + MapA::col(t_load, i), v) : in;
            st.a[i] = v ? *reinterpret_cast<const Raw<BYTES_A>*>(src) : Raw<BYTES_A>::zero();
        }
#pragma unroll
        for (int i = 0; i < ITB; ++i) {
            bool v = false;
            const T* src = MapB::active(t_load, i) ? b_src(i, k0 + MapB::col(t_load, i), v) : wei;
            st.b[i] = v ? *reinterpret_cast<const Raw<BYTES_B>*>(src) : Raw<BYTES_B>::zero();
        }
    }
    GCONV_DEVICE void store_shared(const Stage& st, T* smem, int s) const {
        T* sa = stage_a(smem, s);
        T* sb = stage_b(smem, s);
#pragma unroll
        for (int i = 0; i < ITA; ++i)
            if (MapA::active(t_load, i))
                *reinterpret_cast<Raw<BYTES_A>*>(sa + MapA::row(t_load, i) * LDS +
                                                 MapA::col(t_load, i)) = st.a[i];
#pragma unroll
        for (int i = 0; i < ITB; ++i)
            if (MapB::active(t_load, i))
                *reinterpret_cast<Raw<BYTES_B>*>(sb + MapB::row(t_load, i) * LDS +
                                                 MapB::col(t_load, i)) = st.b[i];
    }
    // ---- async path: global -> shared directly ----
    GCONV_DEVICE void copy_tile_async(T* smem, int s, int tile) const {
        const int k0 = tile * TK;
        T* sa = stage_a(smem, s);
        T* sb = stage_b(smem, s);
#pragma unroll
        for (int i = 0; i < ITA; ++i) {
            if (!MapA::active(t_load, i)) continue;
            bool v;
            const T* src = a_src(i, k0 + MapA::col(t_load, i), v);
            arch::copy_async<BYTES_A>(sa + MapA::row(t_load, i) * LDS + MapA::col(t_load, i), src,
                                      v);
        }
#pragma unroll
        for (int i = 0; i < ITB; ++i) {
            if (!MapB::active(t_load, i)) continue;
            bool v;
            const T* src = b_src(i, k0 + MapB::col(t_load, i), v);
            arch::copy_async<BYTES_B>(sb + MapB::row(t_load, i) * LDS + MapB::col(t_load, i), src,
                                      v);
        }
    }

    // ---- math on one shared stage, in chunks of WK ----
    struct Frags {
#if defined(GCONV_NV)
        u32 a[KSTEPS][MMA ? RM * FM : 1][4];
        u32 b[KSTEPS][MMA ? RN * FN : 1][2];
#else
        u32 a[KSTEPS][MMA ? RM * FM : 1][2];
        u32 b[KSTEPS][MMA ? RN * FN : 1][2];
#endif
        float fa[MMA ? 1 : KSTEPS][MMA ? 1 : RM * TMR];
        float fb[MMA ? 1 : KSTEPS][MMA ? 1 : RN * TNR];
    };

    GCONV_DEVICE static void load_frags(Frags& f, const T* sa, const T* sb, int chunk, int wm,
                                        int wn, int lane) {
        if constexpr (MMA) {
#pragma unroll
            for (int ks = 0; ks < KSTEPS; ++ks) {
                const int k = chunk * WK + ks * 16;
#if defined(GCONV_NV)
#pragma unroll
                for (int rm = 0; rm < RM; ++rm)
#pragma unroll
                    for (int fm = 0; fm < FM; ++fm) {
                        const int row = (rm * CWM + wm) * WM + fm * 16 + (lane & 15);
                        arch::ldmatrix_x4(f.a[ks][rm * FM + fm],
                                          sa + row * LDS + k + (lane >> 4) * 8);
                    }
#pragma unroll
                for (int rn = 0; rn < RN; ++rn) {
                    const int nb = (rn * CWN + wn) * WN;
                    if constexpr (FN == 1) {
                        const int row = nb + (lane & 7);
                        arch::ldmatrix_x2(f.b[ks][rn], sb + row * LDS + k + ((lane >> 3) & 1) * 8);
                    } else {
#pragma unroll
                        for (int fn = 0; fn < FN; fn += 2) {
                            const int row = nb + fn * 8 + (lane & 7) + ((lane >> 4) << 3);
                            u32 r[4];
                            arch::ldmatrix_x4(r, sb + row * LDS + k + ((lane >> 3) & 1) * 8);
                            f.b[ks][rn * FN + fn][0] = r[0];
                            f.b[ks][rn * FN + fn][1] = r[1];
                            f.b[ks][rn * FN + fn + 1][0] = r[2];
                            f.b[ks][rn * FN + fn + 1][1] = r[3];
                        }
                    }
                }
#else
                const int kq = k + (lane >> 4) * 4;
#pragma unroll
                for (int rm = 0; rm < RM; ++rm)
#pragma unroll
                    for (int fm = 0; fm < FM; ++fm) {
                        const int row = (rm * CWM + wm) * WM + fm * 16 + (lane & 15);
                        const Raw<8> r = *reinterpret_cast<const Raw<8>*>(sa + row * LDS + kq);
                        f.a[ks][rm * FM + fm][0] = r.v[0];
                        f.a[ks][rm * FM + fm][1] = r.v[1];
                    }
#pragma unroll
                for (int rn = 0; rn < RN; ++rn)
#pragma unroll
                    for (int fn = 0; fn < FN; ++fn) {
                        const int row = (rn * CWN + wn) * WN + fn * 16 + (lane & 15);
                        const Raw<8> r = *reinterpret_cast<const Raw<8>*>(sb + row * LDS + kq);
                        f.b[ks][rn * FN + fn][0] = r.v[0];
                        f.b[ks][rn * FN + fn][1] = r.v[1];
                    }
#endif
            }
        } else {
            const int lm = lane / LN, ln = lane % LN;
#pragma unroll
            for (int ks = 0; ks < KSTEPS; ++ks) {
                const int k = chunk * WK + ks;
#pragma unroll
                for (int rm = 0; rm < RM; ++rm)
#pragma unroll
                    for (int i = 0; i < TMR; ++i)
                        f.fa[ks][rm * TMR + i] =
                            to_float(sa[((rm * CWM + wm) * WM + lm * TMR + i) * LDS + k]);
#pragma unroll
                for (int rn = 0; rn < RN; ++rn)
#pragma unroll
                    for (int j = 0; j < TNR; ++j)
                        f.fb[ks][rn * TNR + j] =
                            to_float(sb[((rn * CWN + wn) * WN + ln * TNR + j) * LDS + k]);
            }
        }
    }

    GCONV_DEVICE static void multiply(const Frags& f, float* acc) {
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
            if constexpr (MMA) {
#pragma unroll
                for (int i = 0; i < RM * FM; ++i)
#pragma unroll
                    for (int j = 0; j < RN * FN; ++j) {
#if defined(GCONV_NV)
                        arch::mma_16816<IS_HALF>(acc + (i * RN * FN + j) * 4, f.a[ks][i],
                                                 f.b[ks][j]);
#else
                        arch::mfma_16x16x16<IS_HALF>(acc + (i * RN * FN + j) * 4, f.a[ks][i],
                                                     f.b[ks][j]);
#endif
                    }
            } else {
#pragma unroll
                for (int i = 0; i < RM * TMR; ++i)
#pragma unroll
                    for (int j = 0; j < RN * TNR; ++j)
                        acc[i * RN * TNR + j] += f.fa[ks][i] * f.fb[ks][j];
            }
        }
    }

    // intrawave: fragments of chunk c+1 are fetched before the MMAs of chunk c are issued, so
    // each warp overlaps its own shared-memory reads with its math.
    // interwave: per chunk, every warp fetches its fragments, the block meets at a barrier,
    // then every warp issues its MMAs: the warps stay in step chunk by chunk.
    GCONV_DEVICE static void compute(const T* smem_stage, float* acc, int wm, int wn, int lane) {
        const T* sa = smem_stage;
        const T* sb = smem_stage + A_ELEMS;
        constexpr int CHUNKS = TK / WK;
        if constexpr (INTERWAVE) {
#pragma unroll
            for (int c = 0; c < CHUNKS; ++c) {
                Frags f;
                load_frags(f, sa, sb, c, wm, wn, lane);
                arch::barrier();
                multiply(f, acc);
            }
        } else {
            Frags f[2];
            load_frags(f[0], sa, sb, 0, wm, wn, lane);
#pragma unroll
            for (int c = 0; c < CHUNKS; ++c) {
                if (c + 1 < CHUNKS) load_frags(f[(c + 1) & 1], sa, sb, c + 1, wm, wn, lane);
                multiply(f[c & 1], acc);
            }
        }
    }

    // Tile coordinates of accumulator `idx` of this thread.
    GCONV_DEVICE static void coord(int idx, int wm, int wn, int lane, int& row, int& col) {
        if constexpr (MMA) {
            const int e = idx & 3;
            const int frag = idx >> 2;
            const int fi = frag / (RN * FN), fj = frag % (RN * FN);
            const int rm = fi / FM, fm = fi % FM, rn = fj / FN, fn = fj % FN;
            const int rb = (rm * CWM + wm) * WM + fm * 16;
            const int cb = (rn * CWN + wn) * WN + fn * FRAG_N;
#if defined(GCONV_NV)
            row = rb + (lane >> 2) + (e >> 1) * 8;
            col = cb + (lane & 3) * 2 + (e & 1);
#else
            row = rb + (lane >> 4) * 4 + e;
            col = cb + (lane & 15);
#endif
        } else {
            const int i = idx / (RN * TNR), j = idx % (RN * TNR);
            const int rm = i / TMR, ti = i % TMR, rn = j / TNR, tj = j % TNR;
            row = (rm * CWM + wm) * WM + (lane / LN) * TMR + ti;
            col = (rn * CWN + wn) * WN + (lane % LN) * TNR + tj;
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
    GCONV_DEVICE T* out_ptr(int row, int col) const {
        return out + ((m0 + row) * p.K + g0 * p.k_per_group + n0 + col);
    }

    // Stores from registers: runs of min(VC, RUN) contiguous columns per store.
    GCONV_DEVICE void store_direct(const float* acc, int wm, int wn, int lane) const {
        constexpr int SV = Min<VC, RUN>::value;
#pragma unroll
        for (int idx = 0; idx < ACC; idx += SV) {
            int row, col;
            coord(idx, wm, wn, lane, row, col);
            if (!out_ok(row, col)) continue;
            Raw<SV * ELEM> r;
            T* v = reinterpret_cast<T*>(&r);
#pragma unroll
            for (int e = 0; e < SV; ++e) v[e] = from_float<T>(acc[idx + e]);
            *reinterpret_cast<Raw<SV * ELEM>*>(out_ptr(row, col)) = r;
        }
    }

    GCONV_DEVICE void operator()() {
        const int tid = static_cast<int>(threadIdx.x);
        const int warp = tid / WARP, lane = tid % WARP;
        const int group = SPLIT ? warp / CWARPS : 0;
        const int cw = warp % CWARPS;
        const int wm = cw / CWN, wn = cw % CWN;
        setup(tid);
        if (m0 >= m_count) return; // last piece has fewer tiles (uniform per block)
        T* smem = reinterpret_cast<T*>(gconv_dynamic_smem);

        float acc[ACC];
#pragma unroll
        for (int i = 0; i < ACC; ++i) acc[i] = 0.f;

        if constexpr (PIPE == kBasicV1) {
            // No prefetch: load a tile, wait for it, multiply it. With dsb the tiles alternate
            // between two buffers, which removes the barrier that protects readers.
            for (int t = 0; t < ktiles; ++t) {
                const int s = Cfg::kDsb ? (t & 1) : 0;
                if (!Cfg::kDsb) arch::barrier();
                Stage st;
                load_global(st, t);
                store_shared(st, smem, s);
                arch::barrier();
                compute(stage_a(smem, s), acc, wm, wn, lane);
            }
        } else if constexpr (PIPE == kCompV3) {
            // Two stages, one buffer: tile t+1 travels to registers while tile t is multiplied.
            Stage st;
            load_global(st, 0);
            store_shared(st, smem, 0);
            arch::barrier();
            for (int t = 0; t < ktiles; ++t) {
                const bool more = t + 1 < ktiles;
                if (more) load_global(st, t + 1);
                compute(stage_a(smem, 0), acc, wm, wn, lane);
                arch::barrier();
                if (more) {
                    store_shared(st, smem, 0);
                    arch::barrier();
                }
            }
        } else if constexpr (PIPE == kCompV4) {
            // Ping-pong: tile t+1 goes to registers during tile t's math, then into the other
            // buffer; one barrier per tile.
            Stage st;
            load_global(st, 0);
            store_shared(st, smem, 0);
            arch::barrier();
            for (int t = 0; t < ktiles; ++t) {
                const bool more = t + 1 < ktiles;
                if (more) load_global(st, t + 1);
                compute(stage_a(smem, t & 1), acc, wm, wn, lane);
                if (more) store_shared(st, smem, (t + 1) & 1);
                arch::barrier();
            }
        } else if constexpr (PIPE == kCompV5) {
            // Warp-specialised ping-pong: group (t % 2) multiplies tile t from buffer t % 2 while
            // the other group loads tile t+1 into the other buffer; roles swap every tile.
            if (group == 1) {
                Stage st;
                load_global(st, 0);
                store_shared(st, smem, 0);
            }
            arch::barrier();
            for (int t = 0; t < ktiles; ++t) {
                if ((t & 1) == group) {
                    compute(stage_a(smem, t & 1), acc, wm, wn, lane);
                } else if (t + 1 < ktiles) {
                    Stage st;
                    load_global(st, t + 1);
                    store_shared(st, smem, (t + 1) & 1);
                }
                arch::barrier();
            }
            // Sum the two groups' partial tiles through shared memory (slot-major, so the
            // accesses of a warp are consecutive words).
            float* red = reinterpret_cast<float*>(gconv_dynamic_smem);
            const int ct = tid % CTHREADS;
            if (group == 1) {
#pragma unroll
                for (int i = 0; i < ACC; ++i) red[i * CTHREADS + ct] = acc[i];
            }
            arch::barrier();
            if (group == 0) {
#pragma unroll
                for (int i = 0; i < ACC; ++i) acc[i] += red[i * CTHREADS + ct];
            }
            arch::barrier();
        } else {
            // Multi-stage ring of asynchronous copies: STAGES-1 tiles in flight while one is
            // multiplied (mem: sized to ~32 KB in flight; compv6: 3 stages; comp_async: 2).
#pragma unroll
            for (int s = 0; s < STAGES - 1; ++s) {
                if (s < ktiles) copy_tile_async(smem, s, s);
                arch::async_commit();
            }
            for (int t = 0; t < ktiles; ++t) {
                arch::async_wait<STAGES - 2>();
                arch::barrier();
                const int next = t + STAGES - 1;
                if (next < ktiles) copy_tile_async(smem, next % STAGES, next);
                arch::async_commit();
                compute(stage_a(smem, t % STAGES), acc, wm, wn, lane);
            }
            arch::async_wait<0>();
        }

        const bool computes = group == 0;
        if constexpr (CSHUFFLE) {
            // Stage the C tile in shared memory, then write rows of VC-wide coalesced vectors.
            arch::barrier();
            T* sc = smem;
            if (computes) {
#pragma unroll
                for (int idx = 0; idx < ACC; ++idx) {
                    int row, col;
                    coord(idx, wm, wn, lane, row, col);
                    sc[row * LDC + col] = from_float<T>(acc[idx]);
                }
            }
            arch::barrier();
            constexpr int VPR = TN / VC;
            constexpr int TOTAL = TM * VPR;
#pragma unroll
            for (int i = 0; i < (TOTAL + THREADS - 1) / THREADS; ++i) {
                const int idx = tid + i * THREADS;
                if (TOTAL % THREADS != 0 && idx >= TOTAL) break;
                const int row = idx / VPR, col = (idx % VPR) * VC;
                if (!out_ok(row, col)) continue;
                *reinterpret_cast<Raw<BYTES_C>*>(out_ptr(row, col)) =
                    *reinterpret_cast<const Raw<BYTES_C>*>(sc + row * LDC + col);
            }
        } else {
            if (computes) store_direct(acc, wm, wn, lane);
        }
    }
};

template <class Cfg> GCONV_DEVICE void run(const ConvParams& p) {
    Kernel<Cfg> k(p);
    k();
}

} // namespace fwd
} // namespace gconv
