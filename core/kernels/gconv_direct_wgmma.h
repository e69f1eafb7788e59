#pragma once
// The wgmma direct convolution (pipeline `direct_wgmma`, forward, 2D, dense G = 1, stride_w 1,
// sm_90a): every tap of an output row is multiplied straight from one staged input band, so each
// input byte crosses L2 -> SM about (band rows) / (output rows) times instead of once per tap as
// in the im2col tile kernels (docs/notes/wgmma-kernels.md, "taps from one staged halo").
//
// Operands, both K-major and unswizzled (8-element K chunks of 16-byte rows, tests/gpu/
// tst_wgmma_shift.cpp checks that a B operand may start any row into such a tile):
//   A, the filter slice of the block's kTileN output channels: [tap][chunk][k][8 channels],
//     staged once per block (again only where a block's next item has other channels);
//   B, a band of input rows: [band row][chunk][column][8 channels], columns x0 - pad_w ...
//     x0 - pad_w + kTileM + (X - 1) * dilation_w - 1 of the item's column tile, zero-filled
//     outside the image. Tap (dy, dx) of output row r is the band's row r * stride_h + dy *
//     dilation_h from column dx * dilation_w on: a descriptor start, no copy.
// Per output row a consumer warpgroup issues taps x C / 16 x kTileN / 64 wgmma.m64nNk16 (N =
// kTileM pixels, M = 64 output channels), then stores the row through its [pixel][channel]
// buffer as 16-byte vectors. Rows of a band go to the consumer warpgroups in turn.
// Grid: persistent (min(items, multiprocessors) blocks, launch_sequence's `persistent`); an item
// is (image, band of R output rows, column tile, channel block) with the channel block fastest,
// so a grid that is a multiple of the channel blocks keeps its filter slice for the whole run.
// Bands are double-buffered: every thread copies the next item's band with cp.async while the
// consumers multiply the current one.
// Rows per band R are the plan's (codegen/launch_plan_direct_wgmma.cpp): it sizes the dynamic
// shared memory as 128 + filter + buffers + 2 bands of R rows, and the kernel reads R back from
// %dynamic_smem_size, so the two never disagree.
#include "gconv_wgmma.h"

#if !defined(GCONV_NV)
#error "gconv_direct_wgmma.h uses wgmma: NVIDIA sm_90a only (rule pipeline_hardware)"
#endif

namespace gconv {
namespace direct_wgmma {

// Pipeline::DirectWgmma in config/enums.h.
enum { kPipelineCode = 9 };

template <class Cfg> struct Shape {
    typedef typename DTypeOf<Cfg::kDType>::type T;
    static constexpr int NPIX = Cfg::kTileM; // output pixels of a row tile: the wgmma N
    static constexpr int TN = Cfg::kTileN;   // output channels of a block
    static constexpr int CIN = Cfg::kCin;    // C, the reduction per tap
    static constexpr int CHUNKS = CIN / 8;   // 16-byte chunks per pixel
    static constexpr int MB = TN / 64;       // m64 blocks per row
    static constexpr int WGS = Cfg::kConsumers;
    static constexpr int THREADS = WGS * 128;
    static constexpr int STAGE_LD = 64 + 8; // elements per buffered pixel: 8 against conflicts
    static constexpr int STAGE_BYTES = NPIX * STAGE_LD * 2;
    static constexpr int ACC = NPIX / 2; // fp32 sums per thread and m64 block
    static constexpr bool IS_HALF = Cfg::kDType == 1;
    static_assert(sizeof(T) == 2, "bf16 / fp16 only");
    static_assert(CIN % 16 == 0 && CIN >= 16 && CIN <= 64, "C: 16, 32, 48 or 64");
    static_assert(TN % 64 == 0 && MB >= 1 && MB <= 2, "tile_n: 64 or 128");
    static_assert(NPIX % 8 == 0 && NPIX >= 64 && NPIX <= 256, "tile_m: 64 to 256 in 8s");
    static_assert(MB * ACC <= 128, "at most 128 accumulators a thread");
    static_assert(WGS >= 1 && WGS <= 2, "1 or 2 consumer warpgroups");
};

// Bytes the kernel needs besides its two bands: alignment slack, the filter slice, the
// consumers' row buffers. codegen/launch_plan_direct_wgmma.cpp computes the same sum.
template <class S> GCONV_DEVICE u32 fixed_bytes(int taps) {
    return 128 + static_cast<u32>(taps) * S::CHUNKS * S::TN * 16 + S::WGS * S::STAGE_BYTES;
}

#if defined(GCONV_HAS_WGMMA)

using namespace wgmma;

GCONV_DEVICE u32 dynamic_smem_bytes() {
    u32 v;
    asm("mov.u32 %0, %%dynamic_smem_size;\n" : "=r"(v));
    return v;
}

// Unswizzled K-major descriptor: lbo = bytes between the two 8-element K chunks of a k16 step,
// sbo = bytes between 8-row groups (rows are 16 bytes apart inside a group).
GCONV_DEVICE u64 descriptor(u32 addr, u32 lbo, u32 sbo) {
    return static_cast<u64>((addr & 0x3FFFF) >> 4) | (static_cast<u64>(lbo >> 4) << 16) |
           (static_cast<u64>(sbo >> 4) << 32);
}

// One item's place: image, first output row, first output column, channel block.
struct Item {
    int n, r0, x0, kb;
};

struct Walk {
    int rows, bands, col_tiles, kblocks, total, tile_w;
    GCONV_DEVICE Item at(int i) const {
        Item it;
        it.kb = i % kblocks;
        i /= kblocks;
        it.x0 = (i % col_tiles) * tile_w;
        i /= col_tiles;
        it.r0 = (i % bands) * rows;
        it.n = i / bands;
        return it;
    }
};

// The filter slice of channel block kb as A: [tap][chunk][k][8].
template <class S> GCONV_DEVICE void load_filter(const ConvParams& p, u32 dst, int kb, int taps) {
    typedef typename S::T T;
    const T* wei = static_cast<const T*>(p.wei);
    const int count = S::TN * taps * S::CHUNKS;
    for (int v = threadIdx.x; v < count; v += S::THREADS) {
        const int ch = v % S::CHUNKS, tap = (v / S::CHUNKS) % taps, k = v / (S::CHUNKS * taps);
        const T* src = wei + ((static_cast<i64>(kb) * S::TN + k) * taps + tap) * S::CIN + ch * 8;
        arch::copy_async_16(dst + ((tap * S::CHUNKS + ch) * S::TN + k) * 16, src, true);
    }
}

// The band of item `it` as B: band_rows input rows x cols columns, zeros outside the image.
// Row by row, so that a thread's vector u of a row is column u / CHUNKS, chunk u % CHUNKS (a
// division by a constant) and its source is the row's first vector + u: no division by the
// run-time column count per vector.
template <class S>
GCONV_DEVICE void load_band(const ConvParams& p, u32 dst, const Item& it, int band_rows, int cols) {
    typedef typename S::T T;
    const T* in = static_cast<const T*>(p.in);
    const int ih0 = it.r0 * p.stride_h - p.pad_h, iw0 = it.x0 - p.pad_w;
    const int units = cols * S::CHUNKS;
    for (int row = 0; row < band_rows; ++row, dst += static_cast<u32>(units) * 16) {
        const int ih = ih0 + row;
        const bool row_ok = ih >= 0 && ih < p.Hi;
        const T* first = in + ((static_cast<i64>(it.n) * p.Hi + ih) * p.Wi + iw0) * S::CIN;
        for (int u = threadIdx.x; u < units; u += S::THREADS) {
            const int col = u / S::CHUNKS, ch = u - col * S::CHUNKS, iw = iw0 + col;
            const bool ok = row_ok && iw >= 0 && iw < p.Wi;
            arch::copy_async_16(dst + (ch * cols + col) * 16, ok ? first + u * 8 : in, ok);
        }
    }
}

// Bytes of one tap's filter slice: C / 8 chunks of tile_n 16-byte rows.
template <class S> constexpr u32 kTapBytes = S::CHUNKS* S::TN * 16;

// One tap of a row: C / 16 k16 steps x tile_n / 64 m64 blocks, A from the tap's filter slice
// (descriptor a_tap), B from the band row and column the tap reads (descriptor b_tap), not
// waited for. A descriptor's start address is its low field in 16-byte units and no shared
// address reaches 2^18, so a start `delta` bytes on is the descriptor + delta / 16: the row's
// two descriptors are built once and every wgmma's are additions.
template <class S>
GCONV_DEVICE void issue_tap(float (*acc)[S::ACC], u64 a_tap, u64 b_tap, u32 b_lbo16) {
#pragma unroll
    for (int kk = 0; kk < S::CIN / 16; ++kk)
#pragma unroll
        for (int mb = 0; mb < S::MB; ++mb)
            wgmma_m64k16<S::NPIX, S::IS_HALF, false>(acc[mb], a_tap + 2 * kk * S::TN + mb * 64,
                                                     b_tap + 2 * kk * b_lbo16);
}

// Two fp32 sums as the 16-bit pair of one 32-bit register, the first in the low half.
template <class T> GCONV_DEVICE u32 pack2(float lo, float hi) {
    return static_cast<u32>(from_float<T>(lo).bits) |
           (static_cast<u32>(from_float<T>(hi).bits) << 16);
}

// Stores m64 block `acc` of one output row: staged as [pixel][channel] in the warpgroup's buffer,
// then `width` pixels of 64 channels as 16-byte vectors. The sums of an n8 column block are an
// m16n8 C fragment per warp (channel rows warp * 16 + lane / 4 (+ 8), pixel columns 2 * (lane % 4)
// (+ 1)), so stmatrix .trans writes them as pixel rows of 8 channels: four 8 x 8 matrices (two
// column blocks x two channel halves) per instruction instead of 32 two-byte stores. Pixel rows
// are STAGE_LD * 2 = 144 bytes apart: the 8 rows of a matrix fall in 8 different bank quads.
template <class S>
GCONV_DEVICE void store_block(const float* acc, typename S::T* stage, typename S::T* out, int width,
                              int k_stride, int wg) {
    typedef typename S::T T;
    constexpr int BLOCKS = S::NPIX / 8; // n8 column blocks
    const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
    const u32 base = arch::shared_address(stage) + (warp * 16 + 8 * ((lane / 8) % 2)) * 2;
    arch::named_barrier<128>(1 + wg); // the previous block's vectors have left the buffer
#pragma unroll
    for (int j = 0; j + 1 < BLOCKS; j += 2) {
        const u32 row = base + ((8 * (j + lane / 16) + lane % 8) * S::STAGE_LD) * 2;
        const float* a = acc + 4 * j;
        asm volatile(
            "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(row),
            "r"(pack2<T>(a[0], a[1])), "r"(pack2<T>(a[2], a[3])), "r"(pack2<T>(a[4], a[5])),
            "r"(pack2<T>(a[6], a[7]))
            : "memory");
    }
    if constexpr (BLOCKS % 2 == 1) { // the last column block alone: lanes 0-15 give its rows
        const u32 row = base + ((8 * (BLOCKS - 1) + lane % 8) * S::STAGE_LD) * 2;
        const float* a = acc + 4 * (BLOCKS - 1);
        asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(row),
                     "r"(pack2<T>(a[0], a[1])), "r"(pack2<T>(a[2], a[3]))
                     : "memory");
    }
    arch::named_barrier<128>(1 + wg);
    for (int v = t; v < width * 8; v += 128) {
        const int x = v / 8, kv = v % 8;
        *reinterpret_cast<Raw<16>*>(out + static_cast<i64>(x) * k_stride + kv * 8) =
            *reinterpret_cast<const Raw<16>*>(stage + x * S::STAGE_LD + kv * 8);
    }
}

#endif

template <class Cfg> GCONV_DEVICE void forward(const ConvParams& p) {
    typedef Shape<Cfg> S;
#if !defined(GCONV_HAS_WGMMA)
    static_assert(sizeof(Cfg) == 0, "direct_wgmma kernels need sm_90a (rule pipeline_hardware)");
#else
    typedef typename S::T T;
    const int taps = p.Y * p.X;
    const int cols = S::NPIX + (p.X - 1) * p.dilation_w;
    const u32 row_bytes = static_cast<u32>(S::CHUNKS * cols * 16);
    const u32 smem = arch::shared_address(gconv_dynamic_smem);
    const u32 base = (smem + 127) & ~127u;
    const u32 filter = base;
    const u32 stage_at = filter + static_cast<u32>(taps) * S::CHUNKS * S::TN * 16;
    const u32 bands_at = stage_at + S::WGS * S::STAGE_BYTES;
    const u32 band_bytes = (dynamic_smem_bytes() - fixed_bytes<S>(taps)) / 2;
    const int band_rows = static_cast<int>(band_bytes / row_bytes);
    const int halo_rows = (p.Y - 1) * p.dilation_h + 1;
    Walk walk;
    walk.rows = (band_rows - halo_rows) / p.stride_h + 1;
    walk.bands = (p.Ho + walk.rows - 1) / walk.rows;
    walk.col_tiles = (p.Wo + S::NPIX - 1) / S::NPIX;
    walk.kblocks = p.K / S::TN;
    walk.tile_w = S::NPIX;
    walk.total = p.N * walk.bands * walk.col_tiles * walk.kblocks;

    // Broadcast, so that the compiler sees a warp-uniform value and keeps the wgmmas of the row
    // loop asynchronous (a divergent-looking loop makes it serialize them).
    const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
    T* stage =
        reinterpret_cast<T*>(gconv_dynamic_smem + (stage_at - smem)) + wg * (S::STAGE_BYTES / 2);
    T* out = static_cast<T*>(p.out);
    const u32 b_lbo = row_bytes / S::CHUNKS, b_lbo16 = b_lbo / 16;
    const u64 a_desc = descriptor(filter, S::TN * 16, 128);

    int staged_kb = -1, b = blockIdx.x;
    if (b < walk.total) load_band<S>(p, bands_at, walk.at(b), band_rows, cols);
    arch::async_commit();
    for (int i = 0; b < walk.total; b += gridDim.x, ++i) {
        const Item it = walk.at(b);
        if (it.kb != staged_kb) { // every warpgroup left the filter at the last barrier
            load_filter<S>(p, filter, it.kb, taps);
            staged_kb = it.kb;
        }
        arch::async_commit();
        const int nb = b + gridDim.x;
        if (nb < walk.total)
            load_band<S>(p, bands_at + ((i + 1) & 1) * band_bytes, walk.at(nb), band_rows, cols);
        arch::async_commit();
        arch::async_wait<1>(); // this item's band and filter
        fence_proxy_async();
        arch::barrier();

        const u32 band = bands_at + (i & 1) * band_bytes;
        const int rows = p.Ho - it.r0 < walk.rows ? p.Ho - it.r0 : walk.rows;
        const int width = p.Wo - it.x0 < S::NPIX ? p.Wo - it.x0 : S::NPIX;
        for (int rr = wg; rr < rows; rr += S::WGS) {
            float acc[S::MB][S::ACC];
#pragma unroll
            for (int mb = 0; mb < S::MB; ++mb)
#pragma unroll
                for (int e = 0; e < S::ACC; ++e) acc[mb][e] = 0.f; // the wgmmas accumulate
            // In 16-byte units, as descriptor starts move.
            const u64 b_desc = descriptor(band + rr * p.stride_h * row_bytes, b_lbo, 128);
            const u32 b_dy = p.dilation_h * row_bytes / 16, b_dx = p.dilation_w;
            // Each path closes its own wgmma group: a join inside the group made ptxas
            // serialize the wgmmas (accumulators moved between them).
            if (p.Y == 3 && p.X == 3) {
                // The common filter with its taps known: every wgmma of the row back to back.
                mma_fence();
#pragma unroll
                for (int tap = 0; tap < 9; ++tap)
                    issue_tap<S>(acc, a_desc + tap * (kTapBytes<S> / 16),
                                 b_desc + (tap / 3) * b_dy + (tap % 3) * b_dx, b_lbo16);
                mma_commit();
                mma_wait<0>();
            } else {
                // Any filter: one tap per iteration, each behind its own wgmma.fence (the
                // accumulators cross the loop's back edge); unrolled, the remainder's join made
                // ptxas serialize them.
#pragma unroll 1
                for (int tap = 0; tap < taps; ++tap) {
                    const int dy = tap / p.X, dx = tap - dy * p.X;
                    mma_fence();
                    issue_tap<S>(acc, a_desc + tap * (kTapBytes<S> / 16),
                                 b_desc + dy * b_dy + dx * b_dx, b_lbo16);
                }
                mma_commit();
                mma_wait<0>();
            }
            T* orow = out + ((static_cast<i64>(it.n) * p.Ho + it.r0 + rr) * p.Wo + it.x0) * p.K +
                      it.kb * S::TN;
#pragma unroll
            for (int mb = 0; mb < S::MB; ++mb)
                store_block<S>(acc[mb], stage, orow + mb * 64, width, p.K, wg);
        }
        arch::barrier(); // every warpgroup is done with this band (and the filter) before the
                         // refill
    }
    arch::async_wait<0>();
#endif
}

} // namespace direct_wgmma
} // namespace gconv
