#pragma once
// The tiled GEMM engine shared by the three directions: block / warp geometry, tile loaders,
// the pipelines, the MMA / SIMT math and the epilogues. What a direction adds is a "source"
// (gconv_fwd.h, gconv_bwd_data.h, gconv_bwd_weight.h): where the A and B vectors of a tile
// come from, which K tiles a block reduces, and where a C element goes.
//
// A source derives from GemmGeometry<Cfg, A_MN, B_MN, OutT, ATOMIC> and provides
//   int t_load;                                   this thread's index among the tile loaders
//   (optional) static constexpr bool MAY_BE_EMPTY = false;   every block reduces >= 1 K tile
//   bool active() const;                          false: the block has nothing to do
//   int tile_begin() const, tile_count() const;   the K tiles this block reduces
//   const T* a_src(int i, int kk, bool& valid) const;   vector i of A at reduction index kk
//   const T* b_src(int i, int kk, bool& valid) const;
//   const T* a_fallback() const, b_fallback() const; any readable A / B address (unused lanes)
//   bool out_ok(int row, int col) const;  OutT* out_ptr(int row, int col) const;
// Operand layouts in shared memory: K-major (rows of tile_k, the forward case, vectors run
// along the reduction) or MN-major (A_MN / B_MN: tile_k rows of tile_m / tile_n elements,
// vectors run along M or N, fragments read with ldmatrix.trans). Both pad each row by 16 bytes.
#include "gconv_arch.h"
#include "gconv_convert.h"
#include "gconv_params.h"
#include "gconv_weight_runs.h"

namespace gconv {

namespace gemm {

// Codes emitted by the generator, in the order of config/enums.h.
enum { kBasicV1 = 0, kMem = 1, kCompV3 = 2, kCompV4 = 3, kCompV5 = 4, kCompV6 = 5, kCompAsync = 6 };
enum { kIntrawave = 0, kInterwave = 1 };
enum { kCShuffle = 0, kDirectStore = 1, kCShuffleBuf = 2 };

template <int A, int B> struct Min { static constexpr int value = A < B ? A : B; };
// Element offset type: 32-bit, or 64-bit where split_image lets a tensor exceed 2^31 elements.
template <bool WIDE> struct Offset { typedef int type; };
template <> struct Offset<true> { typedef i64 type; };
template <bool C, typename A, typename B> struct Select { typedef A type; };
template <typename A, typename B> struct Select<false, A, B> { typedef B type; };
// N floats moved as one shared-memory access.
template <int N> struct GCONV_ALIGN(4 * N) Floats { float v[N]; };

// Moves ELEMS values of type V between two addresses in accesses of at most 16 bytes.
template <int ELEMS, typename V> GCONV_DEVICE void copy_run(V* dst, const V* src) {
    constexpr int BYTES = ELEMS * static_cast<int>(sizeof(V));
    constexpr int UNIT = BYTES < 16 ? BYTES : 16;
#pragma unroll
    for (int b = 0; b < BYTES; b += UNIT)
        *reinterpret_cast<Raw<UNIT>*>(reinterpret_cast<u8*>(dst) + b) =
            *reinterpret_cast<const Raw<UNIT>*>(reinterpret_cast<const u8*>(src) + b);
}

// The output tile of grid position `linear` (blocks counted x fastest, as the hardware issues
// them) for a grid of gx M tiles x gy N tiles x groups, N fastest: the blocks in flight at
// once share a few A (input) tiles and sweep the whole filter, which stays in L2. M fastest
// would stream every A tile through L2 once per N tile: a 1x1 convolution with 2048 output
// channels in 256-wide tiles read its input from DRAM eight times.
GCONV_DEVICE void tile_n_fastest(int linear, int gx, int gy, int& bx, int& by, int& bz) {
    const int per_group = gx * gy;
    bz = linear / per_group;
    const int r = linear - bz * per_group;
    bx = r / gy;
    by = r - bx * gy;
}

// The finish kernels of split-K: dst[e] = the sum of SLICES fp32 slices of n elements each at
// ws (one without 2stage), converted to T; keep_zero (atomic sums only: 2stage's slices are
// stored whole by every run) writes zeros back over the sums. A grid-stride loop: any 1-D
// launch shape.
template <typename T, int SLICES>
GCONV_DEVICE void finish_slices(T* dst, float* ws, i64 n, bool keep_zero) {
    const i64 step = static_cast<i64>(gridDim.x) * blockDim.x;
    for (i64 e = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step) {
        float sum = ws[e];
#pragma unroll
        for (int s = 1; s < SLICES; ++s) sum += ws[s * n + e];
        dst[e] = from_float<T>(sum);
        if (SLICES == 1 && keep_zero) ws[e] = 0.f;
    }
}

template <class Cfg, bool A_MN_, bool B_MN_, typename OutT_, bool ATOMIC_> struct GemmGeometry {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    typedef OutT_ OutT;
    static constexpr bool A_MN = A_MN_, B_MN = B_MN_, ATOMIC = ATOMIC_;
    static constexpr int TM = Cfg::kTileM, TN = Cfg::kTileN, TK = Cfg::kTileK;
    static constexpr int WM = Cfg::kWarpTileM, WN = Cfg::kWarpTileN, WK = Cfg::kWarpTileK;
    static constexpr int WARP = GCONV_WARP_SIZE;
    static constexpr int NWARPS = Cfg::kWaveM * Cfg::kWaveN;
    // compv5 with a warpgroup warp tile on sm_90a (gconv_wgmma.h): the wave layout counts the
    // consumer warps; one producer warpgroup (warps 0-3) is added in front of them.
    static constexpr bool WGMMA = Cfg::kWgmma;
    // A Source whose blocks finish a split-K reduction themselves says so (gconv_bwd_weight.h).
    static constexpr bool FINISH_IN_BLOCK = false;
    static constexpr int THREADS = (NWARPS + (WGMMA ? 4 : 0)) * WARP;
    static constexpr int GM = Cfg::kGroupsToMerge;
    static constexpr int VA = Cfg::kVecA, VB = Cfg::kVecB, VC = Cfg::kVecC;
    static constexpr int PIPE = Cfg::kPipeline;
    static constexpr bool NDIM3 = Cfg::kNdim == 3;
    static constexpr bool PAD_M = Cfg::kPadM, PAD_N = Cfg::kPadN, PAD_K = Cfg::kPadK;
    static constexpr bool SI = Cfg::kSplitImage;
    static constexpr bool INTERWAVE = Cfg::kScheduler == kInterwave;
    static constexpr bool CSHUFFLE = Cfg::kEpilogue == kCShuffle;
    // wgmma only: cshuffle through a C buffer beside the ring (gconv_wgmma.h, persistent grid).
    static constexpr bool CSHUFFLE_BUF = Cfg::kEpilogue == kCShuffleBuf;
    static constexpr bool DSB = Cfg::kDsb;
    // Blocks of a cluster along N (wgmma, persistent grid): they walk tile pairs and share each
    // A tile by multicast (gconv_wgmma.h).
    static constexpr int CLUSTER = Cfg::kClusterN;
    // Blocks of a cluster along K (wgmma, cshuffle): they reduce shares of one tile's K tiles
    // and sum their partial tiles through distributed shared memory (gconv_wgmma.h).
    static constexpr int CLUSTER_K = Cfg::kClusterK;
    // Whether a block's reduction can be empty (a stride phase without taps, a split past the
    // end); sources whose blocks always reduce something set it false.
    static constexpr bool MAY_BE_EMPTY = true;

    // compv5: the warps form two groups; each group computes whole tiles (alternate K tiles)
    // with the block tile spread over its half of the warps.
    static constexpr bool SPLIT = PIPE == kCompV5 && !WGMMA;
    // wgmma with the interwave scheduler: ping-pong, each consumer warpgroup computes whole
    // tiles (alternate tiles of the block), so one tile's warps are the 4 of one warpgroup.
    static constexpr bool PINGPONG = WGMMA && INTERWAVE;
    static constexpr int CWARPS = SPLIT ? NWARPS / 2 : PINGPONG ? 4 : NWARPS;
    static constexpr int CWN =
        SPLIT ? (Cfg::kWaveN % 2 == 0 ? Cfg::kWaveN / 2 : Cfg::kWaveN) : Cfg::kWaveN;
    static constexpr int CWM = CWARPS / CWN;
    // wgmma with the pixels on the instruction's N side (pixels_on_n): its M runs over the
    // tile's channels, its N over the tile's pixels. IM x IN is the tile as the warps see it.
    static constexpr bool PIXELS_ON_N = Cfg::kPixelsOnN;
    static_assert(!PIXELS_ON_N || WGMMA, "pixels_on_n: a wgmma option");
    static constexpr int IM = PIXELS_ON_N ? TN : TM, IN = PIXELS_ON_N ? TM : TN;
    static constexpr int RM = IM / (CWM * WM), RN = IN / (CWN * WN); // warp-tile repeats
    static constexpr int CTHREADS = CWARPS * WARP;
    static constexpr int LTHREADS = WGMMA ? 128 : SPLIT ? THREADS / 2 : THREADS; // tile loaders
    static_assert(!SPLIT || NWARPS % 2 == 0, "compv5 needs an even number of warps");
    static_assert(RM * CWM * WM == IM && RN * CWN * WN == IN, "warp tiles must tile the block");
    static_assert(TK % WK == 0, "tile_k must be a multiple of warp_tile_k");

    static constexpr int ELEM = sizeof(T);
    static constexpr int PAD = 16 / ELEM;
    // Shared row strides: K-major rows hold tile_k elements, MN-major rows tile_m / tile_n.
    static constexpr int LDA = A_MN ? TM + PAD : TK + PAD;
    static constexpr int LDB = B_MN ? TN + PAD : TK + PAD;
    static constexpr int A_ELEMS = A_MN ? TK * LDA : TM * LDA;
    static constexpr int B_ELEMS = B_MN ? TK * LDB : TN * LDB;
    static constexpr int STAGE_ELEMS = A_ELEMS + B_ELEMS;
    static constexpr int STAGES = Cfg::kStages;
    static constexpr int OUT_ELEM = sizeof(OutT);
    static constexpr int LDC = TN + 16 / OUT_ELEM;
    static constexpr int LDR = TN + 4; // a cluster along K's fp32 partial tile

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
    static constexpr int C_STAGE_BYTES = TM * LDC * OUT_ELEM;
    static constexpr int PARTIAL_BYTES = (CLUSTER_K > 1 ? TM : 0) * LDR * 4;
    static constexpr int EPI_BYTES =
        CSHUFFLE ? (C_STAGE_BYTES > PARTIAL_BYTES ? C_STAGE_BYTES : PARTIAL_BYTES) : 0;
    static constexpr int RED_BYTES = SPLIT ? TM * TN * 4 : 0;
    // wgmma: unpadded swizzled rows, mbarriers and up to 1 KiB to align the ring to 1024 bytes.
    static constexpr int CONSUMERS = NWARPS / 4;
    // setmaxnreg: two consumers (384 threads) 88 / 208, three (512 threads) 56 / 152; each sum
    // stays within the 64 K registers of a multiprocessor. 208 hold 160 accumulators (256 x 160:
    // no spill beyond the producer's 120 bytes); two consumers of more (256 x 192, ping-pong
    // 128 x 192) take 40 / 232, where the producer spills more of its tile setup and the
    // accumulators fit (at 208 they spill 2-2.6 KB; docs/notes/wgmma-kernels.md v15).
    static constexpr bool WIDE_ACC = CONSUMERS == 2 && ACC > 160;
    static constexpr int PRODUCER_REGS = CONSUMERS == 3 ? 56 : WIDE_ACC ? 40 : 88;
    static constexpr int CONSUMER_REGS = CONSUMERS == 3 ? 152 : WIDE_ACC ? 232 : 208;
    static constexpr int WG_RING = STAGES * (TM + TN) * TK * ELEM;
    // cshufflebuf: C after the ring, one buffer per consumer warpgroup when they ping-pong,
    // staged C_PASSES column slices of C_COLS at a time (launch_plan.cpp: c_buffer_passes).
    static constexpr int C_PASSES = Cfg::kCPasses;
    static constexpr int C_COLS = TN / C_PASSES;
    static constexpr int LDCB = C_COLS + 16 / OUT_ELEM;
    static_assert(TN % C_PASSES == 0 && C_COLS % VC == 0, "whole output vectors per C slice");
    static constexpr int C_TILE_BYTES = TM * LDCB * OUT_ELEM;
    static constexpr int C_BUF_BYTES = CSHUFFLE_BUF ? C_TILE_BYTES * (PINGPONG ? CONSUMERS : 1) : 0;
    // Two 8-byte mbarriers per stage, at least 64 bytes (four stages).
    static constexpr int WG_BARRIER_BYTES = 16 * (STAGES > 4 ? STAGES : 4);
    static constexpr int WG_BYTES =
        (WG_RING > EPI_BYTES ? WG_RING : EPI_BYTES) + C_BUF_BYTES + 1024 + WG_BARRIER_BYTES;
    static constexpr int GEMM_BYTES = PIPE_BYTES > EPI_BYTES
                                          ? (PIPE_BYTES > RED_BYTES ? PIPE_BYTES : RED_BYTES)
                                          : (EPI_BYTES > RED_BYTES ? EPI_BYTES : RED_BYTES);
    static constexpr int SMEM_BYTES = WGMMA ? WG_BYTES : GEMM_BYTES;
    static_assert(!WGMMA || (Cfg::kWaveN == 1 && NWARPS % 4 == 0 && CONSUMERS <= 3) ||
                      (Cfg::kWaveM == 4 && Cfg::kWaveN == 2 && !PINGPONG),
                  "wgmma: wave layout [4 x consumers, 1, 1], or [4, 2, 1] split in N");
    static_assert(SMEM_BYTES == Cfg::kSmemBytes, "host and device shared-memory sizes differ");
    static_assert(PIPE != kBasicV1 || STAGES == (Cfg::kDsb ? 2 : 1), "basic_v1 stages");
    static_assert(PIPE != kCompV3 || STAGES == 1, "compv3 uses one shared buffer");
    static_assert((PIPE != kCompV4 && PIPE != kCompV5 && PIPE != kCompAsync) || WGMMA ||
                      STAGES == 2,
                  "ping-pong pipelines use two shared buffers");
    static_assert(PIPE != kCompV6 || STAGES == 3, "compv6 uses three stages");
    static_assert(PIPE != kMem || STAGES >= 3, "mem prefetches at least two stages");

    // ---- tile loader maps: which (line, offset) vectors a loader thread moves. A line is a
    // shared-memory row: an M/N row for K-major operands, a k index for MN-major ones. ----
    template <int LINES, int LEN, int VEC> struct Map {
        static constexpr int VPR = LEN / VEC;
        static constexpr int TOTAL = LINES * VPR;
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
    typedef Map<A_MN ? TK : TM, A_MN ? TM : TK, VA> MapA;
    typedef Map<B_MN ? TK : TN, B_MN ? TN : TK, VB> MapB;
    static constexpr int ITA = MapA::ITERS, ITB = MapB::ITERS;
    static constexpr int BYTES_A = VA * ELEM, BYTES_B = VB * ELEM;

    // M/N row and reduction index (within the tile) of loader vector i of thread t.
    GCONV_DEVICE static int a_row(int t, int i) {
        return A_MN ? MapA::col(t, i) : MapA::row(t, i);
    }
    GCONV_DEVICE static int a_k(int t, int i) {
        return A_MN ? MapA::row(t, i) : MapA::col(t, i);
    }
    GCONV_DEVICE static int b_row(int t, int i) {
        return B_MN ? MapB::col(t, i) : MapB::row(t, i);
    }
    GCONV_DEVICE static int b_k(int t, int i) {
        return B_MN ? MapB::row(t, i) : MapB::col(t, i);
    }

    struct Stage {
        Raw<BYTES_A> a[ITA];
        Raw<BYTES_B> b[ITB];
    };

    GCONV_DEVICE static T* stage_a(T* smem, int s) {
        return smem + s * STAGE_ELEMS;
    }
    GCONV_DEVICE static T* stage_b(T* smem, int s) {
        return smem + s * STAGE_ELEMS + A_ELEMS;
    }
    // Element (row, k) of an operand tile in shared memory.
    template <bool MN, int LD> GCONV_DEVICE static int at(int row, int k) {
        return MN ? k * LD + row : row * LD + k;
    }
};

// ---- register path: global -> registers, registers -> shared ----
template <class S> GCONV_DEVICE void load_global(const S& s, typename S::Stage& st, int tile) {
    typedef typename S::T T;
    typedef typename S::MapA MapA;
    typedef typename S::MapB MapB;
    const int k0 = tile * S::TK;
#pragma unroll
    for (int i = 0; i < S::ITA; ++i) {
        bool v = false;
        const T* src =
            MapA::active(s.t_load, i) ? s.a_src(i, k0 + S::a_k(s.t_load, i), v) : s.a_fallback();
        st.a[i] = v ? *reinterpret_cast<const Raw<S::BYTES_A>*>(src) : Raw<S::BYTES_A>::zero();
    }
#pragma unroll
    for (int i = 0; i < S::ITB; ++i) {
        bool v = false;
        const T* src =
            MapB::active(s.t_load, i) ? s.b_src(i, k0 + S::b_k(s.t_load, i), v) : s.b_fallback();
        st.b[i] = v ? *reinterpret_cast<const Raw<S::BYTES_B>*>(src) : Raw<S::BYTES_B>::zero();
    }
}
template <class S>
GCONV_DEVICE void store_shared(const S& s, const typename S::Stage& st, typename S::T* smem,
                               int stage) {
    typedef typename S::T T;
    typedef typename S::MapA MapA;
    typedef typename S::MapB MapB;
    T* sa = S::stage_a(smem, stage);
    T* sb = S::stage_b(smem, stage);
#pragma unroll
    for (int i = 0; i < S::ITA; ++i)
        if (MapA::active(s.t_load, i))
            *reinterpret_cast<Raw<S::BYTES_A>*>(sa + MapA::row(s.t_load, i) * S::LDA +
                                                MapA::col(s.t_load, i)) = st.a[i];
#pragma unroll
    for (int i = 0; i < S::ITB; ++i)
        if (MapB::active(s.t_load, i))
            *reinterpret_cast<Raw<S::BYTES_B>*>(sb + MapB::row(s.t_load, i) * S::LDB +
                                                MapB::col(s.t_load, i)) = st.b[i];
}
// ---- async path: global -> shared directly ----
template <class S>
GCONV_DEVICE void copy_tile_async(const S& s, typename S::T* smem, int stage, int tile) {
    typedef typename S::T T;
    typedef typename S::MapA MapA;
    typedef typename S::MapB MapB;
    const int k0 = tile * S::TK;
    T* sa = S::stage_a(smem, stage);
    T* sb = S::stage_b(smem, stage);
#pragma unroll
    for (int i = 0; i < S::ITA; ++i) {
        if (!MapA::active(s.t_load, i)) continue;
        bool v;
        const T* src = s.a_src(i, k0 + S::a_k(s.t_load, i), v);
        arch::copy_async<S::BYTES_A>(sa + MapA::row(s.t_load, i) * S::LDA + MapA::col(s.t_load, i),
                                     src, v);
    }
#pragma unroll
    for (int i = 0; i < S::ITB; ++i) {
        if (!MapB::active(s.t_load, i)) continue;
        bool v;
        const T* src = s.b_src(i, k0 + S::b_k(s.t_load, i), v);
        arch::copy_async<S::BYTES_B>(sb + MapB::row(s.t_load, i) * S::LDB + MapB::col(s.t_load, i),
                                     src, v);
    }
}

// ---- math on one shared stage, in chunks of WK ----
template <class G> struct Frags {
#if defined(GCONV_NV)
    u32 a[G::KSTEPS][G::MMA ? G::RM * G::FM : 1][4];
    u32 b[G::KSTEPS][G::MMA ? G::RN * G::FN : 1][2];
#else
    u32 a[G::KSTEPS][G::MMA ? G::RM * G::FM : 1][2];
    u32 b[G::KSTEPS][G::MMA ? G::RN * G::FN : 1][2];
#endif
    float fa[G::MMA ? 1 : G::KSTEPS][G::MMA ? 1 : G::RM * G::TMR];
    float fb[G::MMA ? 1 : G::KSTEPS][G::MMA ? 1 : G::RN * G::TNR];
};

#if !defined(GCONV_NV)
// Four consecutive-k 16-bit values of one M/N row, packed as an MFMA operand.
template <bool MN, int LD, typename T>
GCONV_DEVICE void read_k4(u32 (&r)[2], const T* base, int row, int k) {
    if constexpr (!MN) {
        const Raw<8> v = *reinterpret_cast<const Raw<8>*>(base + row * LD + k);
        r[0] = v.v[0];
        r[1] = v.v[1];
    } else {
        const u16* b = reinterpret_cast<const u16*>(base);
        u16 e[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) e[i] = b[(k + i) * LD + row];
        r[0] = static_cast<u32>(e[0]) | (static_cast<u32>(e[1]) << 16);
        r[1] = static_cast<u32>(e[2]) | (static_cast<u32>(e[3]) << 16);
    }
}
#endif

template <class G>
GCONV_DEVICE void load_frags(Frags<G>& f, const typename G::T* sa, const typename G::T* sb,
                             int chunk, int wm, int wn, int lane) {
    constexpr int WM = G::WM, WN = G::WN, WK = G::WK, CWM = G::CWM, CWN = G::CWN;
    constexpr int LDA = G::LDA, LDB = G::LDB, FM = G::FM, FN = G::FN;
    if constexpr (G::MMA) {
#pragma unroll
        for (int ks = 0; ks < G::KSTEPS; ++ks) {
            const int k = chunk * WK + ks * 16;
#if defined(GCONV_NV)
#pragma unroll
            for (int rm = 0; rm < G::RM; ++rm)
#pragma unroll
                for (int fm = 0; fm < FM; ++fm) {
                    const int rb = (rm * CWM + wm) * WM + fm * 16;
                    if constexpr (!G::A_MN) {
                        const int row = rb + (lane & 15);
                        arch::ldmatrix_x4(f.a[ks][rm * FM + fm],
                                          sa + row * LDA + k + (lane >> 4) * 8);
                    } else {
                        // matrices (m0,k0) (m8,k0) (m0,k8) (m8,k8), stored as k rows.
                        const int q = lane >> 3;
                        const int kr = k + (lane & 7) + (q >> 1) * 8;
                        arch::ldmatrix_x4_trans(f.a[ks][rm * FM + fm],
                                                sa + kr * LDA + rb + (q & 1) * 8);
                    }
                }
#pragma unroll
            for (int rn = 0; rn < G::RN; ++rn) {
                const int nb = (rn * CWN + wn) * WN;
                if constexpr (FN == 1) {
                    if constexpr (!G::B_MN) {
                        const int row = nb + (lane & 7);
                        arch::ldmatrix_x2(f.b[ks][rn], sb + row * LDB + k + ((lane >> 3) & 1) * 8);
                    } else {
                        arch::ldmatrix_x2_trans(f.b[ks][rn], sb + (k + (lane & 15)) * LDB + nb);
                    }
                } else {
#pragma unroll
                    for (int fn = 0; fn < FN; fn += 2) {
                        u32 r[4];
                        if constexpr (!G::B_MN) {
                            const int row = nb + fn * 8 + (lane & 7) + ((lane >> 4) << 3);
                            arch::ldmatrix_x4(r, sb + row * LDB + k + ((lane >> 3) & 1) * 8);
                        } else {
                            // matrices (n fn, k0) (n fn, k8) (n fn+1, k0) (n fn+1, k8).
                            const int q = lane >> 3;
                            const int kr = k + (lane & 7) + (q & 1) * 8;
                            arch::ldmatrix_x4_trans(r, sb + kr * LDB + nb + fn * 8 + (q >> 1) * 8);
                        }
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
            for (int rm = 0; rm < G::RM; ++rm)
#pragma unroll
                for (int fm = 0; fm < FM; ++fm) {
                    const int row = (rm * CWM + wm) * WM + fm * 16 + (lane & 15);
                    read_k4<G::A_MN, LDA>(f.a[ks][rm * FM + fm], sa, row, kq);
                }
#pragma unroll
            for (int rn = 0; rn < G::RN; ++rn)
#pragma unroll
                for (int fn = 0; fn < FN; ++fn) {
                    const int row = (rn * CWN + wn) * WN + fn * 16 + (lane & 15);
                    read_k4<G::B_MN, LDB>(f.b[ks][rn * FN + fn], sb, row, kq);
                }
#endif
        }
    } else {
        const int lm = lane / G::LN, ln = lane % G::LN;
#pragma unroll
        for (int ks = 0; ks < G::KSTEPS; ++ks) {
            const int k = chunk * WK + ks;
#pragma unroll
            for (int rm = 0; rm < G::RM; ++rm)
#pragma unroll
                for (int i = 0; i < G::TMR; ++i)
                    f.fa[ks][rm * G::TMR + i] = to_float(sa[G::template at<G::A_MN, LDA>(
                        (rm * CWM + wm) * WM + lm * G::TMR + i, k)]);
#pragma unroll
            for (int rn = 0; rn < G::RN; ++rn)
#pragma unroll
                for (int j = 0; j < G::TNR; ++j)
                    f.fb[ks][rn * G::TNR + j] = to_float(sb[G::template at<G::B_MN, LDB>(
                        (rn * CWN + wn) * WN + ln * G::TNR + j, k)]);
        }
    }
}

template <class G> GCONV_DEVICE void multiply(const Frags<G>& f, float* acc) {
#pragma unroll
    for (int ks = 0; ks < G::KSTEPS; ++ks) {
        if constexpr (G::MMA) {
#pragma unroll
            for (int i = 0; i < G::RM * G::FM; ++i)
#pragma unroll
                for (int j = 0; j < G::RN * G::FN; ++j) {
#if defined(GCONV_NV)
                    arch::mma_16816<G::IS_HALF>(acc + (i * G::RN * G::FN + j) * 4, f.a[ks][i],
                                                f.b[ks][j]);
#else
                    arch::mfma_16x16x16<G::IS_HALF>(acc + (i * G::RN * G::FN + j) * 4, f.a[ks][i],
                                                    f.b[ks][j]);
#endif
                }
        } else {
#pragma unroll
            for (int i = 0; i < G::RM * G::TMR; ++i)
#pragma unroll
                for (int j = 0; j < G::RN * G::TNR; ++j)
                    acc[i * G::RN * G::TNR + j] += f.fa[ks][i] * f.fb[ks][j];
        }
    }
}

// intrawave: fragments of chunk c+1 are fetched before the MMAs of chunk c are issued, so
// each warp overlaps its own shared-memory reads with its math.
// interwave: per chunk, every warp fetches its fragments, the block meets at a barrier,
// then every warp issues its MMAs: the warps stay in step chunk by chunk.
template <class G>
GCONV_DEVICE void compute(const typename G::T* smem_stage, float* acc, int wm, int wn, int lane) {
    const typename G::T* sa = smem_stage;
    const typename G::T* sb = smem_stage + G::A_ELEMS;
    constexpr int CHUNKS = G::TK / G::WK;
    if constexpr (G::INTERWAVE) {
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {
            Frags<G> f;
            load_frags<G>(f, sa, sb, c, wm, wn, lane);
            arch::barrier();
            multiply<G>(f, acc);
        }
    } else if constexpr (!G::MMA) {
        // SIMT (fp32): a chunk is KSTEPS x the warp tile's FMAs (up to 512), and fp32 tiles have
        // 8-16 chunks; unrolled, NVVM and ptxas spend most of a kernel's compile time on them.
        // One chunk per iteration: its shared loads lead its FMAs by a k step, and the two or
        // more warps per scheduler cover the rest (a chunk pair per iteration, fetching ahead
        // across chunks, cost 20% more compile time on 128x128 tiles).
#pragma unroll 1
        for (int c = 0; c < CHUNKS; ++c) {
            Frags<G> f;
            load_frags<G>(f, sa, sb, c, wm, wn, lane);
            multiply<G>(f, acc);
        }
    } else {
        Frags<G> f[2];
        load_frags<G>(f[0], sa, sb, 0, wm, wn, lane);
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {
            if (c + 1 < CHUNKS) load_frags<G>(f[(c + 1) & 1], sa, sb, c + 1, wm, wn, lane);
            multiply<G>(f[c & 1], acc);
        }
    }
}

// Tile coordinates of accumulator `idx` of this thread.
template <class G> GCONV_DEVICE void coord(int idx, int wm, int wn, int lane, int& row, int& col) {
    if constexpr (G::MMA) {
        const int e = idx & 3;
        const int frag = idx >> 2;
        const int fi = frag / (G::RN * G::FN), fj = frag % (G::RN * G::FN);
        const int rm = fi / G::FM, fm = fi % G::FM, rn = fj / G::FN, fn = fj % G::FN;
        const int rb = (rm * G::CWM + wm) * G::WM + fm * 16;
        const int cb = (rn * G::CWN + wn) * G::WN + fn * G::FRAG_N;
#if defined(GCONV_NV)
        row = rb + (lane >> 2) + (e >> 1) * 8;
        col = cb + (lane & 3) * 2 + (e & 1);
#else
        row = rb + (lane >> 4) * 4 + e;
        col = cb + (lane & 15);
#endif
    } else {
        const int i = idx / (G::RN * G::TNR), j = idx % (G::RN * G::TNR);
        const int rm = i / G::TMR, ti = i % G::TMR, rn = j / G::TNR, tj = j % G::TNR;
        row = (rm * G::CWM + wm) * G::WM + (lane / G::LN) * G::TMR + ti;
        col = (rn * G::CWN + wn) * G::WN + (lane % G::LN) * G::TNR + tj;
    }
}

// Writes (or, ATOMIC, adds) N contiguous output values; dst is aligned to N values (the
// support checks make vector_size_c divide the row, and runs start at multiples of it).
template <class S, int N>
GCONV_DEVICE void put(typename S::OutT* dst, const typename S::OutT* values) {
    if constexpr (S::ATOMIC) {
        arch::atomic_add_run<N>(dst, values);
    } else {
        copy_run<N>(dst, values);
    }
}

// Stores from registers: runs of min(VC, RUN) contiguous columns per store.
template <class S>
GCONV_DEVICE void store_direct(const S& s, const float* acc, int wm, int wn, int lane) {
    typedef typename S::OutT OutT;
    constexpr int SV = Min<S::VC, S::RUN>::value;
#pragma unroll
    for (int idx = 0; idx < S::ACC; idx += SV) {
        int row, col;
        coord<S>(idx, wm, wn, lane, row, col);
        if (!s.out_ok(row, col)) continue;
        GCONV_ALIGN(16) OutT v[SV];
#pragma unroll
        for (int e = 0; e < SV; ++e) v[e] = from_float<OutT>(acc[idx + e]);
        put<S, SV>(s.out_ptr(row, col), v);
    }
}

// The whole block: main loop of the configured pipeline over the source's K tiles, then the
// epilogue.
template <class S> GCONV_DEVICE void run(S& s) {
    typedef typename S::T T;
    typedef typename S::OutT OutT;
    typedef typename S::Stage Stage;
    constexpr int STAGES = S::STAGES;
    constexpr int ACC = S::ACC;
    const int tid = static_cast<int>(threadIdx.x);
    const int warp = tid / S::WARP, lane = tid % S::WARP;
    const int group = S::SPLIT ? warp / S::CWARPS : 0;
    const int cw = warp % S::CWARPS;
    const int wm = cw / S::CWN, wn = cw % S::CWN;
    s.setup(tid);
    if (!s.active()) return; // uniform per block
    T* smem = reinterpret_cast<T*>(gconv_dynamic_smem);
    const int kt0 = s.tile_begin();
    const int ktiles = s.tile_count();

    float acc[ACC];
#pragma unroll
    for (int i = 0; i < ACC; ++i) acc[i] = 0.f;

    if constexpr (S::PIPE == kBasicV1) {
        // No prefetch: load a tile, wait for it, multiply it. With dsb the tiles alternate
        // between two buffers, which removes the barrier that protects readers.
        for (int t = 0; t < ktiles; ++t) {
            const int st_i = S::DSB ? (t & 1) : 0;
            if (!S::DSB) arch::barrier();
            Stage st;
            load_global(s, st, kt0 + t);
            store_shared(s, st, smem, st_i);
            arch::barrier();
            compute<S>(S::stage_a(smem, st_i), acc, wm, wn, lane);
        }
    } else if constexpr (S::PIPE == kCompV3) {
        // Two stages, one buffer: tile t+1 travels to registers while tile t is multiplied.
        // The prologue stays outside the loop: started at -1 as compv4's is (one copy of the
        // tile loader), the 255-register compv3 kernels spilled more in their loader code.
        Stage st;
        if (!S::MAY_BE_EMPTY || ktiles > 0) {
            load_global(s, st, kt0);
            store_shared(s, st, smem, 0);
        }
        arch::barrier();
        for (int t = 0; t < ktiles; ++t) {
            const bool more = t + 1 < ktiles;
            if (more) load_global(s, st, kt0 + t + 1);
            compute<S>(S::stage_a(smem, 0), acc, wm, wn, lane);
            arch::barrier();
            if (more) {
                store_shared(s, st, smem, 0);
                arch::barrier();
            }
        }
    } else if constexpr (S::PIPE == kCompV4) {
        // Ping-pong: tile t+1 goes to registers during tile t's math, then into the other
        // buffer; one barrier per tile. Iteration -1 is the prologue (load tile 0, multiply
        // nothing): the tile loader, the largest code after the math, is emitted once instead
        // of twice (compile time); the work per tile is unchanged.
        Stage st;
        for (int t = -1; t < ktiles; ++t) {
            const bool more = t + 1 < ktiles;
            if (more) load_global(s, st, kt0 + t + 1);
            if (t >= 0) compute<S>(S::stage_a(smem, t & 1), acc, wm, wn, lane);
            if (more) store_shared(s, st, smem, (t + 1) & 1);
            arch::barrier();
        }
    } else if constexpr (S::PIPE == kCompV5) {
        // Warp-specialised ping-pong: group (t % 2) multiplies tile t from buffer t % 2 while
        // the other group loads tile t+1 into the other buffer; roles swap every tile, so
        // tile u is loaded by group u % 2. Iteration -1 is the prologue, as for compv4: group
        // 0 loads tile 0 (-1 & 1 == 1: group 1 has nothing to multiply yet).
        for (int t = -1; t < ktiles; ++t) {
            if ((t & 1) == group) {
                if (t >= 0) compute<S>(S::stage_a(smem, t & 1), acc, wm, wn, lane);
            } else if (t + 1 < ktiles) {
                Stage st;
                load_global(s, st, kt0 + t + 1);
                store_shared(s, st, smem, (t + 1) & 1);
            }
            arch::barrier();
        }
        // Sum the two groups' partial tiles through shared memory, slot-major (the accesses of
        // a warp are consecutive) in slots of four floats where the count allows (a quarter
        // of the shared-memory instructions).
        constexpr int SLOT = ACC % 4 == 0 ? 4 : 1;
        float* red = reinterpret_cast<float*>(gconv_dynamic_smem);
        const int ct = tid % S::CTHREADS;
        if (group == 1) {
#pragma unroll
            for (int i = 0; i < ACC; i += SLOT) {
                Floats<SLOT> f;
#pragma unroll
                for (int e = 0; e < SLOT; ++e) f.v[e] = acc[i + e];
                *reinterpret_cast<Floats<SLOT>*>(red + (i / SLOT * S::CTHREADS + ct) * SLOT) = f;
            }
        }
        arch::barrier();
        if (group == 0) {
#pragma unroll
            for (int i = 0; i < ACC; i += SLOT) {
                const Floats<SLOT> f = *reinterpret_cast<const Floats<SLOT>*>(
                    red + (i / SLOT * S::CTHREADS + ct) * SLOT);
#pragma unroll
                for (int e = 0; e < SLOT; ++e) acc[i + e] += f.v[e];
            }
        }
        arch::barrier();
    } else {
        // Multi-stage ring of asynchronous copies: STAGES-1 tiles in flight while one is
        // multiplied (mem: sized to ~32 KB in flight; compv6: 3 stages; comp_async: 2). The
        // prologue is the loop's first STAGES - 1 iterations (t < 0: issue tile t + STAGES - 1,
        // multiply nothing), so the tile loader is emitted once (compile time).
        for (int t = 1 - STAGES; t < ktiles; ++t) {
            if (t >= 0) {
                arch::async_wait<STAGES - 2>();
                arch::barrier();
            }
            const int next = t + STAGES - 1;
            if (next < ktiles) copy_tile_async(s, smem, next % STAGES, kt0 + next);
            arch::async_commit();
            if (t >= 0) compute<S>(S::stage_a(smem, t % STAGES), acc, wm, wn, lane);
        }
        arch::async_wait<0>();
    }

    const bool computes = group == 0;
    if constexpr (S::CSHUFFLE) {
        // Stage the C tile in shared memory, then write rows of VC-wide coalesced vectors.
        arch::barrier();
        OutT* sc = reinterpret_cast<OutT*>(gconv_dynamic_smem);
        // An MMA fragment's contiguous columns go in one store (two values on NVIDIA).
        constexpr int SV = S::MMA ? S::RUN : 1;
        if (computes) {
#pragma unroll
            for (int idx = 0; idx < ACC; idx += SV) {
                int row, col;
                coord<S>(idx, wm, wn, lane, row, col);
                GCONV_ALIGN(16) OutT v[SV];
#pragma unroll
                for (int e = 0; e < SV; ++e) v[e] = from_float<OutT>(acc[idx + e]);
                copy_run<SV>(sc + row * S::LDC + col, v);
            }
        }
        arch::barrier();
        constexpr int VPR = S::TN / S::VC;
        constexpr int TOTAL = S::TM * VPR;
        // Four vectors per thread in flight at a time: the 64x64 tiles' whole write-out, and
        // a quarter of the copies of the store path (an output address costs divisions in
        // bwd_data) in the 128-wide tiles, whose 8-16 vectors per thread are not worth
        // emitting one by one (compile time); nothing here is indexed by i at compile time.
#pragma unroll 4
        for (int i = 0; i < (TOTAL + S::THREADS - 1) / S::THREADS; ++i) {
            const int idx = tid + i * S::THREADS;
            if (TOTAL % S::THREADS != 0 && idx >= TOTAL) break;
            const int row = idx / VPR, col = (idx % VPR) * S::VC;
            if (!s.out_ok(row, col)) continue;
            put<S, S::VC>(s.out_ptr(row, col), sc + row * S::LDC + col);
        }
    } else {
        if (computes) store_direct(s, acc, wm, wn, lane);
    }
    // The C tile's shared memory holds finish_tile's flag: its first barrier has every thread
    // past the write-out before the flag is written.
    if constexpr (S::FINISH_IN_BLOCK)
        s.finish_tile(reinterpret_cast<int*>(gconv_dynamic_smem), BlockTeam<S::THREADS>{});
}

} // namespace gemm
} // namespace gconv
