#pragma once
// compv5 on sm_90a: a warp-specialised wgmma main loop for K-major operands (forward).
//
// Block = one producer warpgroup (warps 0-3) + C consumer warpgroups (the config's wave layout
// [4C, 1, 1]: the consumer warps). A ring of STAGES shared-memory stages holds the A (im2col)
// and B tiles of one K tile each, every M/N row as one 128-byte row (tile_k = 64 16-bit
// elements) written with the 128-byte XOR swizzle that the wgmma matrix descriptors name:
// 16-byte chunk c of row r lives at chunk c ^ (r % 8) of its row, in 1024-byte atoms of 8 rows.
//
// Producer: per K tile, waits until the consumers released the stage (mbarrier `empty`), issues
// the tile's cp.async copies through the direction's source (a_src / b_src: im2col, tails and
// padding halo zero-filled by src-size 0), commits them as one group; LAG tiles later it waits
// for that group, makes its writes visible to the async proxy (fence.proxy.async: wgmma reads
// shared memory through it) and arrives on the stage's `full` barrier (128 arrivals). The
// writer-side fence after cp.async.wait_group is used instead of cp.async.mbarrier.arrive.noinc
// because the proxy fence must follow the completed generic-proxy writes in the writing thread;
// the LAG keeps STAGES-2 tiles in flight behind the one being waited for.
// With tensor maps (maps.enabled, host-side eligibility in core/codegen/wgmma_tma.h) one
// producer thread replaces the 128 cp.async loaders: per K tile one im2col bulk tensor copy for
// A (TM pixels of one tap, 64 channels, zero-filled halo and tails) and one tiled copy for B,
// both completing on `full` through its transaction count (1 arrival), written by the copy
// engine in the same 128-byte swizzle. No address arithmetic per vector, no wait in the loop.
// tile_k 32 (K-major, tensor maps only): a K tile is one tap's 32-channel slice, each row 64
// bytes in the 64-byte swizzle, two k16 steps, up to 8 stages in the bytes of 4: C/G 32 under a
// 3x3 filter then multiplies no zero-filled half tiles.
// Consumers: per K tile, wait on `full`, issue TK / 16 k16 steps x RM wgmma.m64nNk16 (N = tile_n,
// both operands by descriptor), commit, wait until the previous tile's group finished and
// release that tile's stage (one arrival per consumer warp). Consumer warpgroup g owns the
// 64-row blocks r * C + g (r < RM): accumulators in the mma.sync C-fragment order per n8
// column block, so the engine's coord() / store_direct() apply unchanged. Split in N (wave
// layout [4, 2, 1]), warpgroup g owns every 64-row block over columns g * WN ... g * WN + WN - 1
// (wgmma.m64nWNk16, WN = tile_n / 2): 192-row tiles with two consumers.
// Epilogues: cshuffle stages C in the (drained) ring, one tile per block; direct stores from
// registers and cshufflebuf shuffles through a C buffer after the ring, both on a persistent
// grid (TileWalk) whose producer refills the ring while the consumers store.
// Ping-pong (the interwave scheduler, two consumer warpgroups, direct or cshufflebuf): each
// consumer warpgroup computes every other tile of the block whole (tile_m rows), skipping the
// other's K tiles in the ring count, so one warpgroup's epilogue runs while the other multiplies;
// one warpgroup releases a stage, and each has its own C buffer and named barrier (1 + wg).
#include "gconv_gemm.h"

namespace gconv {
namespace wgmma {

#if defined(GCONV_NV) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GCONV_HAS_WGMMA 1

GCONV_DEVICE void mbar_init(u32 bar, u32 count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
GCONV_DEVICE void mbar_arrive(u32 bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
GCONV_DEVICE void mbar_wait(u32 bar, u32 parity) {
    u32 done = 0;
    do {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
// Arrives on mbarrier `bar` of block `cta` of the cluster (the same shared offset there). The
// arrival only says that this block's wgmma reads of a stage are done, so it releases at block
// scope: a cluster-scope release orders every earlier write of the thread (the previous tile's
// output stores among them) at cluster scope, on every stage of the main loop.
GCONV_DEVICE void mbar_arrive_cluster(u32 bar, u32 cta) {
    u32 remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(bar), "r"(cta));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote) : "memory");
}
// Every thread of every block of the cluster meets (threads arrive one by one: not .aligned).
GCONV_DEVICE void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// The address of shared offset `local` in block `cta` of the cluster.
GCONV_DEVICE u32 cluster_address(u32 local, u32 cta) {
    u32 remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(local), "r"(cta));
    return remote;
}
// sum[0 .. N-1] += the N fp32 values at `addr` of the cluster's shared window (N: 1, 2 or a
// multiple of 4, aligned to its own size up to 16 bytes).
template <int N> GCONV_DEVICE void add_cluster_f32(float* sum, u32 addr) {
    if constexpr (N % 4 == 0) {
#pragma unroll
        for (int i = 0; i < N; i += 4) {
            float a, b, c, d;
            asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                         : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
                         : "r"(addr + 4 * i)
                         : "memory");
            sum[i] += a, sum[i + 1] += b, sum[i + 2] += c, sum[i + 3] += d;
        }
    } else if constexpr (N == 2) {
        float a, b;
        asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];\n"
                     : "=f"(a), "=f"(b)
                     : "r"(addr)
                     : "memory");
        sum[0] += a, sum[1] += b;
    } else {
        static_assert(N == 1, "1, 2 or a multiple of 4 values");
        float a;
        asm volatile("ld.shared::cluster.f32 %0, [%1];\n" : "=f"(a) : "r"(addr) : "memory");
        sum[0] += a;
    }
}
GCONV_DEVICE void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
GCONV_DEVICE void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
GCONV_DEVICE void mma_fence() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
GCONV_DEVICE void mma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> GCONV_DEVICE void mma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from touching an accumulator across a wgmma wait.
GCONV_DEVICE void fence_operand(float& r) {
    asm volatile("" : "+f"(r)::"memory");
}
template <int REGS> GCONV_DEVICE void regs_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS> GCONV_DEVICE void regs_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

GCONV_DEVICE void mbar_expect_tx(u32 bar, u32 bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
// Bulk tensor copies into this block's shared memory, completing on mbarrier `bar`.
GCONV_DEVICE void tma_im2col_4d(u32 dst, const TensorMapBits* map, u32 bar, int c, int w, int h,
                                int n, u16 ow, u16 oh) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::"
                 "bytes [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};\n" ::"r"(dst),
                 "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c), "r"(w), "r"(h), "r"(n), "h"(ow),
                 "h"(oh)
                 : "memory");
}
// The same copies into the same shared offsets of every block of the cluster in `mask`, each
// completing on its own mbarrier at offset `bar`.
GCONV_DEVICE void tma_im2col_4d_multicast(u32 dst, const TensorMapBits* map, u32 bar, int c, int w,
                                          int h, int n, u16 ow, u16 oh, u16 mask) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::"
        "bytes.multicast::cluster [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8}, %9;\n" ::"r"(dst),
        "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c), "r"(w), "r"(h), "r"(n), "h"(ow), "h"(oh),
        "h"(mask)
        : "memory");
}
GCONV_DEVICE void tma_im2col_5d_multicast(u32 dst, const TensorMapBits* map, u32 bar, int c, int w,
                                          int h, int d, int n, u16 ow, u16 oh, u16 od, u16 mask) {
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::"
                 "bytes.multicast::cluster [%0], [%1, {%3, %4, %5, %6, %7}], [%2], {%8, %9, %10}, "
                 "%11;\n" ::"r"(dst),
                 "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c), "r"(w), "r"(h), "r"(d), "r"(n),
                 "h"(ow), "h"(oh), "h"(od), "h"(mask)
                 : "memory");
}
GCONV_DEVICE void tma_im2col_5d(u32 dst, const TensorMapBits* map, u32 bar, int c, int w, int h,
                                int d, int n, u16 ow, u16 oh, u16 od) {
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::"
                 "bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2], {%8, %9, %10};\n" ::"r"(dst),
                 "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(c), "r"(w), "r"(h), "r"(d), "r"(n),
                 "h"(ow), "h"(oh), "h"(od)
                 : "memory");
}
GCONV_DEVICE void tma_tile_3d(u32 dst, const TensorMapBits* map, u32 bar, int x, int y, int z) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
                 "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(x), "r"(y), "r"(z)
                 : "memory");
}
GCONV_DEVICE void tma_tile_3d_multicast(u32 dst, const TensorMapBits* map, u32 bar, int x, int y,
                                        int z, u16 mask) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;\n" ::"r"(dst),
                 "l"(reinterpret_cast<u64>(map)), "r"(bar), "r"(x), "r"(y), "r"(z), "h"(mask)
                 : "memory");
}

template <int THREADS> GCONV_DEVICE void consumer_barrier() {
    asm volatile("bar.sync 1, %0;\n" ::"n"(THREADS) : "memory");
}
// The consumer warpgroups as the team that finishes a split-K tile (gconv_weight_runs.h):
// their accumulators are dead by then, so 16 loads per thread are in flight (a 128 x 256 tile
// takes 8 L2 round trips, the kernel's tail where its last tile finishes).
template <int THREADS> struct ConsumerTeam {
    static constexpr int kThreads = THREADS, kBatch = 16;
    GCONV_DEVICE int rank() const { return static_cast<int>(threadIdx.x) - 128; }
    GCONV_DEVICE void sync() const { consumer_barrier<THREADS>(); }
};
// Named barrier `id` (1 + warpgroup: one per ping-pong consumer) of THREADS threads.
template <int THREADS> GCONV_DEVICE void named_arrive(int id) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "n"(THREADS) : "memory");
}

// Shared-memory matrix descriptor of a K-major operand: `layout` is one of the two below (the
// swizzle mode and the stride byte offset between 8-row atoms); the leading byte offset is
// unused for swizzled K-major operands.
GCONV_DEVICE u64 descriptor_k(u32 smem_addr, u64 layout) {
    return static_cast<u64>((smem_addr & 0x3FFFF) >> 4) | (static_cast<u64>(1) << 16) | layout;
}
// The layout of a K-major tile of TK-element rows: 64 (128 bytes) in the 128-byte swizzle, atoms
// of 8 rows 1024 bytes apart; 32 (tile_k 32, 64 bytes) in the 64-byte swizzle, 512 bytes apart.
template <int TK> constexpr u64 k_major_layout() {
    return TK == 32 ? (static_cast<u64>(512 >> 4) << 32) | (static_cast<u64>(2) << 62)
                    : (static_cast<u64>(1024 >> 4) << 32) | (static_cast<u64>(1) << 62);
}

// MN-major operand (bwd_weight: the tile holds 64 K rows (output pixels) of 64 M / N elements,
// 128 bytes each, in the same swizzle): 8-row groups 1024 bytes apart along K (stride byte
// offset), 64-element blocks `lbo` bytes apart along M / N (leading byte offset).
GCONV_DEVICE u64 descriptor_mn(u32 smem_addr, u32 lbo) {
    return static_cast<u64>((smem_addr & 0x3FFFF) >> 4) | (static_cast<u64>(lbo >> 4) << 16) |
           (static_cast<u64>(1024 >> 4) << 32) | (static_cast<u64>(1) << 62);
}
// The same in 32-element blocks (bwd_weight's B at C/G % 64 == 32: 64-byte rows in the 64-byte
// swizzle): 8-row groups 512 bytes apart along K.
GCONV_DEVICE u64 descriptor_mn32(u32 smem_addr, u32 lbo) {
    return static_cast<u64>((smem_addr & 0x3FFFF) >> 4) | (static_cast<u64>(lbo >> 4) << 16) |
           (static_cast<u64>(512 >> 4) << 32) | (static_cast<u64>(2) << 62);
}
// bwd_weight's B column blocks: one tap's channel slice per tensor copy, 64 channels wide where
// C/G and the tile allow it, else 32 (host-checked: C/G % 32 == 0; codegen/wgmma_tma.cpp
// narrow_weight_copies decides the same).
template <int TN> GCONV_DEVICE bool narrow_b_blocks(int c_per_group) {
    return c_per_group % 64 != 0 || TN % 64 != 0;
}

// D(64 x N, fp32) += A(64 x 16) * B(16 x N), both from shared memory; IS_HALF picks fp16;
// MN: both operands MN-major (the transpose immediates of the instruction).
template <int N, bool IS_HALF, bool MN> GCONV_DEVICE void wgmma_m64k16(float* d, u64 a, u64 b);
// 16 accumulators d[o] ... d[o + 15] as "+f" asm operands, and 32, 8, 4.
#define GCONV_WGMMA_D16(o)                                                                         \
    "+f"(d[o + 0]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3]), "+f"(d[o + 4]),                \
        "+f"(d[o + 5]), "+f"(d[o + 6]), "+f"(d[o + 7]), "+f"(d[o + 8]), "+f"(d[o + 9]),            \
        "+f"(d[o + 10]), "+f"(d[o + 11]), "+f"(d[o + 12]), "+f"(d[o + 13]), "+f"(d[o + 14]),       \
        "+f"(d[o + 15])
#define GCONV_WGMMA_D32(o) GCONV_WGMMA_D16(o), GCONV_WGMMA_D16(o + 16)
#define GCONV_WGMMA_D8(o)                                                                          \
    "+f"(d[o + 0]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3]), "+f"(d[o + 4]),                \
        "+f"(d[o + 5]), "+f"(d[o + 6]), "+f"(d[o + 7])
#define GCONV_WGMMA_D4(o) "+f"(d[o + 0]), "+f"(d[o + 1]), "+f"(d[o + 2]), "+f"(d[o + 3])
// One wgmma.m64nNk16 for both types ("bf16", "f16") and both operand majors (TR: the transpose
// immediates, "0" K-major, "1" MN-major). Per N: OPS_N<N> names the N / 2 accumulator operands
// and then A's and B's descriptors, PRED_N<N> the operand of the scale-d flag, ACC_N<N> the
// accumulators themselves.
#define GCONV_WGMMA_SHAPE(N, IS_HALF, TYPE, MN, TR, PRED, OPS, ...)                                \
    template <> GCONV_DEVICE void wgmma_m64k16<N, IS_HALF, MN>(float* d, u64 a, u64 b) {           \
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, " PRED ", 0;\n"                           \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " {" OPS      \
                     ", p, 1, 1, " TR ", " TR ";\n}\n"                                             \
                     : __VA_ARGS__                                                                 \
                     : "l"(a), "l"(b), "r"(1));                                                    \
    }
#define GCONV_WGMMA_OPS_N64                                                                        \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33"
#define GCONV_WGMMA_PRED_N64 "%34"
#define GCONV_WGMMA_ACC_N64 GCONV_WGMMA_D32(0)
#define GCONV_WGMMA_OPS_N72                                                                        \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35}, %36, %37"
#define GCONV_WGMMA_PRED_N72 "%38"
#define GCONV_WGMMA_ACC_N72 GCONV_WGMMA_D32(0), GCONV_WGMMA_D4(32)
#define GCONV_WGMMA_OPS_N80                                                                        \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39}, %40, %41"
#define GCONV_WGMMA_PRED_N80 "%42"
#define GCONV_WGMMA_ACC_N80 GCONV_WGMMA_D32(0), GCONV_WGMMA_D8(32)
#define GCONV_WGMMA_OPS_N88                                                                        \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43}, %44, %45"
#define GCONV_WGMMA_PRED_N88 "%46"
#define GCONV_WGMMA_ACC_N88 GCONV_WGMMA_D32(0), GCONV_WGMMA_D8(32), GCONV_WGMMA_D4(40)
#define GCONV_WGMMA_OPS_N96                                                                        \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47}, %48, %49"
#define GCONV_WGMMA_PRED_N96 "%50"
#define GCONV_WGMMA_ACC_N96 GCONV_WGMMA_D32(0), GCONV_WGMMA_D16(32)
#define GCONV_WGMMA_OPS_N104                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47,%48,%49,%50,%51}, %52, %53"
#define GCONV_WGMMA_PRED_N104 "%54"
#define GCONV_WGMMA_ACC_N104 GCONV_WGMMA_D32(0), GCONV_WGMMA_D16(32), GCONV_WGMMA_D4(48)
#define GCONV_WGMMA_OPS_N112                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55}, %56, %57"
#define GCONV_WGMMA_PRED_N112 "%58"
#define GCONV_WGMMA_ACC_N112 GCONV_WGMMA_D32(0), GCONV_WGMMA_D16(32), GCONV_WGMMA_D8(48)
#define GCONV_WGMMA_OPS_N120                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59}, %60, %61"
#define GCONV_WGMMA_PRED_N120 "%62"
#define GCONV_WGMMA_ACC_N120                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D16(32), GCONV_WGMMA_D8(48), GCONV_WGMMA_D4(56)
#define GCONV_WGMMA_OPS_N128                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65"
#define GCONV_WGMMA_PRED_N128 "%66"
#define GCONV_WGMMA_ACC_N128 GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32)
#define GCONV_WGMMA_OPS_N160                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,"     \
    "%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79}, %80, %81"
#define GCONV_WGMMA_PRED_N160 "%82"
#define GCONV_WGMMA_ACC_N160 GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D16(64)
#define GCONV_WGMMA_OPS_N192                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,"     \
    "%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,"     \
    "%90,%91,%92,%93,%94,%95}, %96, %97"
#define GCONV_WGMMA_PRED_N192 "%98"
#define GCONV_WGMMA_ACC_N192 GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64)
#define GCONV_WGMMA_OPS_N224                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,"     \
    "%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,"     \
    "%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,"        \
    "%109,%110,%111}, %112, %113"
#define GCONV_WGMMA_PRED_N224 "%114"
#define GCONV_WGMMA_ACC_N224                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64), GCONV_WGMMA_D16(96)
#define GCONV_WGMMA_OPS_N256                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,"     \
    "%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,"     \
    "%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,"     \
    "%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,"        \
    "%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,"        \
    "%126,%127}, %128, %129"
#define GCONV_WGMMA_PRED_N256 "%130"
#define GCONV_WGMMA_ACC_N256                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64), GCONV_WGMMA_D32(96)
// pixels_on_n: the pixel edges between 128 and 256 that are not built above.
#define GCONV_WGMMA_OPS_N136                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67}, %68, %69"
#define GCONV_WGMMA_PRED_N136 "%70"
#define GCONV_WGMMA_ACC_N136 GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D4(64)
#define GCONV_WGMMA_OPS_N144                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71}, %72, %73"
#define GCONV_WGMMA_PRED_N144 "%74"
#define GCONV_WGMMA_ACC_N144 GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D8(64)
#define GCONV_WGMMA_OPS_N152                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75}, %76, %77"
#define GCONV_WGMMA_PRED_N152 "%78"
#define GCONV_WGMMA_ACC_N152                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D8(64), GCONV_WGMMA_D4(72)
#define GCONV_WGMMA_OPS_N168                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83}, %84, %85"
#define GCONV_WGMMA_PRED_N168 "%86"
#define GCONV_WGMMA_ACC_N168                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D16(64), GCONV_WGMMA_D4(80)
#define GCONV_WGMMA_OPS_N176                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87}, %88, %89"
#define GCONV_WGMMA_PRED_N176 "%90"
#define GCONV_WGMMA_ACC_N176                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D16(64), GCONV_WGMMA_D8(80)
#define GCONV_WGMMA_OPS_N184                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,"             \
    "%91}, %92, %93"
#define GCONV_WGMMA_PRED_N184 "%94"
#define GCONV_WGMMA_ACC_N184                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D16(64), GCONV_WGMMA_D8(80),              \
        GCONV_WGMMA_D4(88)
#define GCONV_WGMMA_OPS_N200                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93," \
    "%94,%95,%96,%97,%98,%99}, %100, %101"
#define GCONV_WGMMA_PRED_N200 "%102"
#define GCONV_WGMMA_ACC_N200                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64), GCONV_WGMMA_D4(96)
#define GCONV_WGMMA_OPS_N208                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93," \
    "%94,%95,%96,%97,%98,%99,%100,%101,%102,%103}, %104, %105"
#define GCONV_WGMMA_PRED_N208 "%106"
#define GCONV_WGMMA_ACC_N208                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64), GCONV_WGMMA_D8(96)
#define GCONV_WGMMA_OPS_N216                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93," \
    "%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107}, %108, %109"
#define GCONV_WGMMA_PRED_N216 "%110"
#define GCONV_WGMMA_ACC_N216                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64), GCONV_WGMMA_D8(96),              \
        GCONV_WGMMA_D4(104)
#define GCONV_WGMMA_OPS_N232                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93," \
    "%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,"    \
    "%113,%114,%115}, %116, %117"
#define GCONV_WGMMA_PRED_N232 "%118"
#define GCONV_WGMMA_ACC_N232                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64), GCONV_WGMMA_D16(96),             \
        GCONV_WGMMA_D4(112)
#define GCONV_WGMMA_OPS_N240                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93," \
    "%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,"    \
    "%113,%114,%115,%116,%117,%118,%119}, %120, %121"
#define GCONV_WGMMA_PRED_N240 "%122"
#define GCONV_WGMMA_ACC_N240                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64), GCONV_WGMMA_D16(96),             \
        GCONV_WGMMA_D8(112)
#define GCONV_WGMMA_OPS_N248                                                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,"   \
    "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70," \
    "%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93," \
    "%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,"    \
    "%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123}, %124, %125"
#define GCONV_WGMMA_PRED_N248 "%126"
#define GCONV_WGMMA_ACC_N248                                                                       \
    GCONV_WGMMA_D32(0), GCONV_WGMMA_D32(32), GCONV_WGMMA_D32(64), GCONV_WGMMA_D16(96),             \
        GCONV_WGMMA_D8(112), GCONV_WGMMA_D4(120)
#define GCONV_WGMMA_ONE(N, IS_HALF, TYPE, MN, TR)                                                  \
    GCONV_WGMMA_SHAPE(N, IS_HALF, TYPE, MN, TR, GCONV_WGMMA_PRED_N##N, GCONV_WGMMA_OPS_N##N,       \
                      GCONV_WGMMA_ACC_N##N)
#define GCONV_WGMMA_ALL(N)                                                                         \
    GCONV_WGMMA_ONE(N, false, "bf16", false, "0")                                                  \
    GCONV_WGMMA_ONE(N, true, "f16", false, "0")                                                    \
    GCONV_WGMMA_ONE(N, false, "bf16", true, "1")                                                   \
    GCONV_WGMMA_ONE(N, true, "f16", true, "1")
GCONV_WGMMA_ALL(64)
GCONV_WGMMA_ALL(72)
GCONV_WGMMA_ALL(80)
GCONV_WGMMA_ALL(88)
GCONV_WGMMA_ALL(96)
GCONV_WGMMA_ALL(104)
GCONV_WGMMA_ALL(112)
GCONV_WGMMA_ALL(120)
GCONV_WGMMA_ALL(128)
GCONV_WGMMA_ALL(160)
GCONV_WGMMA_ALL(192)
GCONV_WGMMA_ALL(224)
GCONV_WGMMA_ALL(256)
GCONV_WGMMA_ALL(136)
GCONV_WGMMA_ALL(144)
GCONV_WGMMA_ALL(152)
GCONV_WGMMA_ALL(168)
GCONV_WGMMA_ALL(176)
GCONV_WGMMA_ALL(184)
GCONV_WGMMA_ALL(200)
GCONV_WGMMA_ALL(208)
GCONV_WGMMA_ALL(216)
GCONV_WGMMA_ALL(232)
GCONV_WGMMA_ALL(240)
GCONV_WGMMA_ALL(248)
#undef GCONV_WGMMA_ALL
#undef GCONV_WGMMA_ONE
#undef GCONV_WGMMA_OPS_N64
#undef GCONV_WGMMA_PRED_N64
#undef GCONV_WGMMA_ACC_N64
#undef GCONV_WGMMA_OPS_N96
#undef GCONV_WGMMA_PRED_N96
#undef GCONV_WGMMA_ACC_N96
#undef GCONV_WGMMA_OPS_N128
#undef GCONV_WGMMA_PRED_N128
#undef GCONV_WGMMA_ACC_N128
#undef GCONV_WGMMA_OPS_N160
#undef GCONV_WGMMA_PRED_N160
#undef GCONV_WGMMA_ACC_N160
#undef GCONV_WGMMA_OPS_N192
#undef GCONV_WGMMA_PRED_N192
#undef GCONV_WGMMA_ACC_N192
#undef GCONV_WGMMA_OPS_N224
#undef GCONV_WGMMA_PRED_N224
#undef GCONV_WGMMA_ACC_N224
#undef GCONV_WGMMA_OPS_N256
#undef GCONV_WGMMA_PRED_N256
#undef GCONV_WGMMA_ACC_N256
#undef GCONV_WGMMA_OPS_N72
#undef GCONV_WGMMA_PRED_N72
#undef GCONV_WGMMA_ACC_N72
#undef GCONV_WGMMA_OPS_N80
#undef GCONV_WGMMA_PRED_N80
#undef GCONV_WGMMA_ACC_N80
#undef GCONV_WGMMA_OPS_N88
#undef GCONV_WGMMA_PRED_N88
#undef GCONV_WGMMA_ACC_N88
#undef GCONV_WGMMA_OPS_N104
#undef GCONV_WGMMA_PRED_N104
#undef GCONV_WGMMA_ACC_N104
#undef GCONV_WGMMA_OPS_N112
#undef GCONV_WGMMA_PRED_N112
#undef GCONV_WGMMA_ACC_N112
#undef GCONV_WGMMA_OPS_N120
#undef GCONV_WGMMA_PRED_N120
#undef GCONV_WGMMA_ACC_N120
#undef GCONV_WGMMA_OPS_N136
#undef GCONV_WGMMA_PRED_N136
#undef GCONV_WGMMA_ACC_N136
#undef GCONV_WGMMA_OPS_N144
#undef GCONV_WGMMA_PRED_N144
#undef GCONV_WGMMA_ACC_N144
#undef GCONV_WGMMA_OPS_N152
#undef GCONV_WGMMA_PRED_N152
#undef GCONV_WGMMA_ACC_N152
#undef GCONV_WGMMA_OPS_N168
#undef GCONV_WGMMA_PRED_N168
#undef GCONV_WGMMA_ACC_N168
#undef GCONV_WGMMA_OPS_N176
#undef GCONV_WGMMA_PRED_N176
#undef GCONV_WGMMA_ACC_N176
#undef GCONV_WGMMA_OPS_N184
#undef GCONV_WGMMA_PRED_N184
#undef GCONV_WGMMA_ACC_N184
#undef GCONV_WGMMA_OPS_N200
#undef GCONV_WGMMA_PRED_N200
#undef GCONV_WGMMA_ACC_N200
#undef GCONV_WGMMA_OPS_N208
#undef GCONV_WGMMA_PRED_N208
#undef GCONV_WGMMA_ACC_N208
#undef GCONV_WGMMA_OPS_N216
#undef GCONV_WGMMA_PRED_N216
#undef GCONV_WGMMA_ACC_N216
#undef GCONV_WGMMA_OPS_N232
#undef GCONV_WGMMA_PRED_N232
#undef GCONV_WGMMA_ACC_N232
#undef GCONV_WGMMA_OPS_N240
#undef GCONV_WGMMA_PRED_N240
#undef GCONV_WGMMA_ACC_N240
#undef GCONV_WGMMA_OPS_N248
#undef GCONV_WGMMA_PRED_N248
#undef GCONV_WGMMA_ACC_N248
#undef GCONV_WGMMA_SHAPE
#undef GCONV_WGMMA_D32
#undef GCONV_WGMMA_D16
#undef GCONV_WGMMA_D8
#undef GCONV_WGMMA_D4

// Byte offset of element k (< 64) of row `row` in a 128-byte-swizzled operand tile.
GCONV_DEVICE int swizzled(int row, int k) {
    return row * 128 + ((((k >> 3) ^ row) & 7) << 4) + (k & 7) * 2;
}

template <class S> GCONV_DEVICE void copy_tile(const S& s, u8* sa, u8* sb, int tile) {
    typedef typename S::T T;
    typedef typename S::MapA MapA;
    typedef typename S::MapB MapB;
    const int k0 = tile * S::TK;
#pragma unroll
    for (int i = 0; i < S::ITA; ++i) {
        if (!MapA::active(s.t_load, i)) continue;
        bool v;
        const int k = S::a_k(s.t_load, i);
        const T* src = s.a_src(i, k0 + k, v);
        arch::copy_async<S::BYTES_A>(sa + swizzled(S::a_row(s.t_load, i), k), src, v);
    }
#pragma unroll
    for (int i = 0; i < S::ITB; ++i) {
        if (!MapB::active(s.t_load, i)) continue;
        bool v;
        const int k = S::b_k(s.t_load, i);
        const T* src = s.b_src(i, k0 + k, v);
        arch::copy_async<S::BYTES_B>(sb + swizzled(S::b_row(s.t_load, i), k), src, v);
    }
}

// The tensor-map producers' ring step: waits until the consumers released slot q % STAGES from
// its previous fill, arms its `full` barrier for one stage's bytes and returns that barrier;
// dst is the stage's shared address.
template <int STAGES, u32 STAGE_BYTES>
GCONV_DEVICE u32 acquire_stage(u32 bars, u32 tiles_addr, int q, u32& dst) {
    const int st = q % STAGES;
    if (q >= STAGES) mbar_wait(bars + 8 * (STAGES + st), ((q / STAGES) - 1) & 1);
    const u32 full = bars + 8 * st;
    dst = tiles_addr + st * STAGE_BYTES;
    mbar_expect_tx(full, STAGE_BYTES);
    return full;
}

// The K tiles of a K-major block that loads through the tensor maps: one tap's TK-channel slice
// each, the last slice of a tap zero-filled past C/G by the copy engine (the host enables the
// maps for C/G % TK != 0 only where G == 1, so the channels past C/G are past C too and no
// other group's values, possibly not finite, meet the zeros of B).
template <int TK> GCONV_DEVICE int tma_tile_count(const ConvParams& p) {
    return p.Z * p.Y * p.X * ((p.c_per_group + TK - 1) / TK);
}

// The K tiles [begin, begin + count) a block reduces: the source's, or with the tensor maps
// of a K-major kernel its part's share of tma_tile_count(), a part being its split's or, in a
// cluster along K, its rank's (k_rank).
template <class S>
GCONV_DEVICE void block_k_tiles(const S& s, const WgmmaMaps& maps, int k_rank, int& begin,
                                int& count) {
    begin = s.tile_begin();
    count = s.tile_count();
    if constexpr (!S::A_MN) {
        if (!maps.enabled) return;
        constexpr int PARTS = S::SPLITS * S::CLUSTER_K;
        const int all = tma_tile_count<S::TK>(s.p);
        const int per_part = (all + PARTS - 1) / PARTS;
        begin = (s.split * S::CLUSTER_K + k_rank) * per_part;
        count = all - begin < per_part ? all - begin : per_part;
        if (count < 0) count = 0;
    }
}

// Where a K-major block's tensor copies start: its first output pixel's image and filter base
// position (A), its group's first channel and its first filter row (B).
struct TmaOrigin {
    int n, w0, h0, d0, c_base, b_row;
};
template <class S> GCONV_DEVICE TmaOrigin tma_origin(const S& s) {
    const ConvParams& p = s.p;
    const int pixels_out = p.Do * p.Ho * p.Wo, hw_out = p.Ho * p.Wo;
    TmaOrigin o;
    o.n = s.m0 / pixels_out;
    int r = s.m0 - o.n * pixels_out;
    const int od = r / hw_out;
    r -= od * hw_out;
    const int oh = r / p.Wo, ow = r - oh * p.Wo;
    o.w0 = ow * p.stride_w - p.pad_w;
    o.h0 = oh * p.stride_h - p.pad_h;
    o.d0 = od * p.stride_d - p.pad_d;
    o.c_base = s.g0 * p.c_per_group;
    o.b_row = s.g0 * p.k_per_group + s.n0;
    return o;
}

// A producer's walk over (tap, channel slice) pairs, tap-major, slices `width` channels wide:
// increments only (one thread issues every copy, and divisions per copy would cost it).
struct SliceWalk {
    int cc, tap, x, y, z;
    GCONV_DEVICE SliceWalk(const ConvParams& p, int index, int width) {
        const int slices = (p.c_per_group + width - 1) / width;
        tap = index / slices;
        cc = (index - tap * slices) * width;
        x = tap % p.X;
        y = (tap / p.X) % p.Y;
        z = tap / (p.X * p.Y);
    }
    GCONV_DEVICE void next(const ConvParams& p, int width) {
        cc += width;
        if (cc < p.c_per_group) return;
        cc = 0;
        ++tap;
        if (++x < p.X) return;
        x = 0;
        if (++y < p.Y) return;
        y = 0;
        ++z;
    }
};

// The copies of one (tap, slice): A at the tap's im2col offsets (or, input_tiled, the block's
// first pixel row of the input as a matrix), B at (slice, tap, the block's filter rows). In a
// cluster (S::CLUSTER blocks along N, one M tile) the first block copies A into every block of
// the cluster (multicast) and each block copies its own B.
template <class S>
GCONV_DEVICE void load_tap_slice(const S& s, const WgmmaMaps& maps, const TmaOrigin& o, u32 a_dst,
                                 u32 b_dst, u32 full, const SliceWalk& w, int rank) {
    const ConvParams& p = s.p;
    const u16 ox = static_cast<u16>(w.x * p.dilation_w), oy = static_cast<u16>(w.y * p.dilation_h);
    const u16 oz = static_cast<u16>(w.z * p.dilation_d);
    if constexpr (S::CLUSTER > 1) {
        constexpr u16 ALL = static_cast<u16>((1u << S::CLUSTER) - 1);
        if (rank == 0) {
            if (maps.input_tiled)
                tma_tile_3d_multicast(a_dst, &maps.input, full, o.c_base + w.cc, s.m0, 0, ALL);
            else if constexpr (S::NDIM3)
                tma_im2col_5d_multicast(a_dst, &maps.input, full, o.c_base + w.cc, o.w0, o.h0, o.d0,
                                        o.n, ox, oy, oz, ALL);
            else
                tma_im2col_4d_multicast(a_dst, &maps.input, full, o.c_base + w.cc, o.w0, o.h0, o.n,
                                        ox, oy, ALL);
        }
    } else if (maps.input_tiled) {
        tma_tile_3d(a_dst, &maps.input, full, o.c_base + w.cc, s.m0, 0);
    } else if constexpr (S::NDIM3) {
        tma_im2col_5d(a_dst, &maps.input, full, o.c_base + w.cc, o.w0, o.h0, o.d0, o.n, ox, oy, oz);
    } else {
        tma_im2col_4d(a_dst, &maps.input, full, o.c_base + w.cc, o.w0, o.h0, o.n, ox, oy);
    }
    tma_tile_3d(b_dst, &maps.tiled, full, w.cc, w.tap, o.b_row);
}

// The tensor-map producer, one thread: the K tiles run tap-major, tma_tile_count() of them (one
// group per block), so a tile is one tap's TK-channel slice: A at the tile's first output pixel
// shifted by the tap's im2col offsets, B at (channel slice, tap, output channel row).
// `it` counts the K tiles this block has put into the ring before this output tile (the ring
// position and mbarrier phase carry on from tile to tile in a persistent block).
template <class S>
GCONV_DEVICE void produce_tma(const S& s, const WgmmaMaps& maps, u32 bars, u32 tiles_addr,
                              int kt_begin, int ktiles, int it, int rank) {
    constexpr int STAGES = S::STAGES;
    constexpr u32 A_BYTES = S::TM * S::TK * 2, STAGE_BYTES = (S::TM + S::TN) * S::TK * 2;
    const TmaOrigin o = tma_origin(s);
    SliceWalk w(s.p, kt_begin, S::TK);
    for (int t = 0; t < ktiles; ++t) {
        u32 dst;
        const u32 full = acquire_stage<STAGES, STAGE_BYTES>(bars, tiles_addr, it + t, dst);
        // Every block of a cluster arms its own `full` for the whole stage: A lands there from
        // the first block's multicast (possibly before this arming, which the transaction
        // count allows), B from its own copy.
        load_tap_slice(s, maps, o, dst, dst + A_BYTES, full, w, rank);
        w.next(s.p, S::TK);
    }
}

// The tensor-map producer of bwd_weight (both operands MN-major), one thread: a K tile is 64
// consecutive output pixels r0 ... r0 + 63. A: TM / 64 tiled copies of dOut (64 pixels x 64
// output channels of group g each); B: im2col copies of the input for the same 64 output
// pixels, each one tap's channel slice: TN / 64 copies of 64 channels, or at C/G % 64 == 32 or
// TN % 64 == 32 TN / 32 of 32 (narrow_b_blocks; C/G % 32 == 0 host-checked). Copies past the
// last pixel or
// channel are zero-filled by the copy engine; B column blocks past the last tap copy the last
// tap again (their columns are never stored), so every stage receives the same byte count.
template <class S>
GCONV_DEVICE void produce_tma_mn(const S& s, const WgmmaMaps& maps, u32 bars, u32 tiles_addr,
                                 int ktiles, int it) {
    constexpr int STAGES = S::STAGES, BLOCKS_A = S::TM / 64, MAX_BLOCKS_B = S::TN / 32;
    constexpr u32 A_BYTES = S::TM * 128, STAGE_BYTES = (S::TM + S::TN) * 128, BOX = 64 * 128;
    const ConvParams& p = s.p;
    const int cpg = p.c_per_group, taps = p.Z * p.Y * p.X;
    const bool narrow = narrow_b_blocks<S::TN>(cpg);
    const int width = narrow ? 32 : 64, blocks_b = S::TN / width;
    const u32 box_b = static_cast<u32>(64 * 2 * width);
    int b_channel[MAX_BLOCKS_B];
    u16 b_ox[MAX_BLOCKS_B], b_oy[MAX_BLOCKS_B], b_oz[MAX_BLOCKS_B];
#pragma unroll
    for (int j = 0; j < MAX_BLOCKS_B; ++j) {
        const int col = s.n0 + width * j;
        int tap = col / cpg, c0 = col - tap * cpg;
        if (tap >= taps) tap = taps - 1, c0 = 0;
        const int yx = p.Y * p.X;
        const int z = tap / yx, y = (tap - z * yx) / p.X, x = tap - z * yx - y * p.X;
        b_channel[j] = s.g * cpg + c0;
        b_ox[j] = static_cast<u16>(x * p.dilation_w);
        b_oy[j] = static_cast<u16>(y * p.dilation_h);
        b_oz[j] = static_cast<u16>(z * p.dilation_d);
    }
    const int a_channel = s.g * p.k_per_group + s.m0;
    const int pixels_out = p.Do * p.Ho * p.Wo, hw_out = p.Ho * p.Wo;
    for (int t = 0; t < ktiles; ++t) {
        u32 dst;
        const u32 full = acquire_stage<STAGES, STAGE_BYTES>(bars, tiles_addr, it + t, dst);
        const int r0 = (s.tile_begin() + t) * 64;
#pragma unroll
        for (int i = 0; i < BLOCKS_A; ++i)
            tma_tile_3d(dst + i * BOX, &maps.tiled, full, a_channel + 64 * i, r0, 0);
        const int n = r0 / pixels_out;
        int r = r0 - n * pixels_out;
        const int od = r / hw_out;
        r -= od * hw_out;
        const int oh = r / p.Wo, ow = r - oh * p.Wo;
        const int w0 = ow * p.stride_w - p.pad_w, h0 = oh * p.stride_h - p.pad_h;
        const int d0 = od * p.stride_d - p.pad_d;
#pragma unroll
        for (int j = 0; j < MAX_BLOCKS_B; ++j) {
            if (j >= blocks_b) break;
            const u32 b_dst = dst + A_BYTES + j * box_b;
            if constexpr (S::NDIM3)
                tma_im2col_5d(b_dst, &maps.input, full, b_channel[j], w0, h0, d0, n, b_ox[j],
                              b_oy[j], b_oz[j]);
            else
                tma_im2col_4d(b_dst, &maps.input, full, b_channel[j], w0, h0, n, b_ox[j], b_oy[j]);
        }
    }
}
#endif

// Output tiles of a block. cshuffle stages C in the ring, so its block computes the one tile
// of its grid position. The direct and cshufflebuf (C in a buffer of its own after the ring)
// epilogues leave the ring alone, so their grid is persistent
// (launch_plan: at most one block per multiprocessor, KernelStep::persistent) and a block walks
// the tiles blockIdx.x, + gridDim.x, ... in the order of the non-persistent grid: while its
// consumers store one tile, its producer already fills the ring with the next. K-major kernels
// read a tile index N fastest (gemm::tile_n_fastest); bwd_weight's MN-major split-K grid keeps
// the grid's own order. In a cluster of S::CLUSTER blocks along N (consecutive blockIdx.x) the
// walk is over tile groups (one M tile, S::CLUSTER adjacent N tiles) and block `rank` takes the
// group's N tile rank: both walk the same groups in step, so the A tile they share comes once.
// A group's last N tiles may lie past N (an odd count): their block still loads and multiplies
// (B zero-filled past the filter, or another group's rows) and stores nothing (out_ok).
// In a cluster along K (cshuffle only) the S::CLUSTER_K consecutive blocks along x share one
// tile, block `rank_k` reducing the rank_k-th share of its K tiles.
template <class S> struct TileWalk {
    int gx = 1, gy = 1, count = 1, first = 0, step = 1, rank = 0, rank_k = 0;
    GCONV_DEVICE explicit TileWalk(const ConvParams& p) {
        if constexpr (S::CSHUFFLE) {
            gx = static_cast<int>(gridDim.x) / S::CLUSTER_K;
            gy = static_cast<int>(gridDim.y);
            first = static_cast<int>(blockIdx.x) / S::CLUSTER_K +
                    gx * (static_cast<int>(blockIdx.y) + gy * static_cast<int>(blockIdx.z));
            count = first + 1;
            rank_k = static_cast<int>(blockIdx.x) % S::CLUSTER_K;
        } else {
            gx = p.m_tiles_per_piece * ((p.N + p.images_per_piece - 1) / p.images_per_piece);
            gy = ((S::GM * p.k_per_group + S::TN - 1) / S::TN + S::CLUSTER - 1) / S::CLUSTER;
            const int gz = (p.G + S::GM - 1) / S::GM * S::SPLITS;
            count = gx * gy * gz;
            first = static_cast<int>(blockIdx.x) / S::CLUSTER;
            step = static_cast<int>(gridDim.x) / S::CLUSTER;
            rank = static_cast<int>(blockIdx.x) % S::CLUSTER;
        }
    }
    GCONV_DEVICE void coords(int tile, int& bx, int& by, int& bz) const {
        if constexpr (!S::A_MN) {
            gemm::tile_n_fastest(tile, gx, gy, bx, by, bz);
            by = by * S::CLUSTER + rank;
        } else if constexpr (S::CSHUFFLE) {
            bx = static_cast<int>(blockIdx.x);
            by = static_cast<int>(blockIdx.y);
            bz = static_cast<int>(blockIdx.z);
        } else {
            bx = tile % gx;
            const int rest = tile / gx;
            by = rest % gy;
            bz = rest / gy;
        }
    }
};

// COLS columns of the tile's C from column col0 on, staged in shared memory (LD apart), stored
// as whole S::VC-vector rows by the S::CTHREADS threads of the tile (ct: this thread's index
// among them).
template <class S, int COLS, int LD>
GCONV_DEVICE void store_c_rows(S& s, const typename S::OutT* sc, int ct, int col0) {
    constexpr int VPR = COLS / S::VC;
    constexpr int TOTAL = S::TM * VPR;
#pragma unroll
    for (int i = 0; i < (TOTAL + S::CTHREADS - 1) / S::CTHREADS; ++i) {
        const int idx = ct + i * S::CTHREADS;
        if (TOTAL % S::CTHREADS != 0 && idx >= TOTAL) break;
        const int row = idx / VPR, col = (idx % VPR) * S::VC;
        if (!s.out_ok(row, col0 + col)) continue;
        gemm::put<S, S::VC>(s.out_ptr(row, col0 + col), sc + row * LD + col);
    }
}

// The C slice (C_COLS columns) that accumulator `idx` of a wgmma consumer falls in, counted
// from the warpgroup's first column: its n8 column block's, the same for every lane, so an
// unrolled loop over idx keeps the test off the registers' indices.
template <class S> GCONV_DEVICE constexpr int c_slice(int idx) {
    return ((idx >> 2) % S::FN) * S::FRAG_N / S::C_COLS;
}

// pixels_on_n: a consumer's accumulators are channel (row) x pixel (col), so each goes into
// C's pixel row `col` at column `row` of the staged tile (LD apart; B: the output type, or fp32
// for a cluster along K's partial tile).
template <class S, int LD, typename B>
GCONV_DEVICE void stage_transposed(B* sc, const float* acc, int wm, int wn, int lane) {
#pragma unroll
    for (int idx = 0; idx < S::ACC; ++idx) {
        int row, col;
        gemm::coord<S>(idx, wm, wn, lane, row, col);
        sc[col * LD + row] = from_float<B>(acc[idx]);
    }
}

// The consumers' C tile in shared memory, tile_m pixel rows LD apart (B: the output type, or
// fp32 for a cluster along K's partial tile), transposed from the accumulators with
// pixels_on_n.
template <class S, int LD, typename B>
GCONV_DEVICE void stage_tile(B* sc, const float* acc, int wm, int wn, int lane) {
    if constexpr (S::PIXELS_ON_N) {
        stage_transposed<S, LD>(sc, acc, wm, wn, lane);
    } else {
#pragma unroll
        for (int idx = 0; idx < S::ACC; ++idx) {
            int row, col;
            gemm::coord<S>(idx, wm, wn, lane, row, col);
            sc[row * LD + col] = from_float<B>(acc[idx]);
        }
    }
}

#if defined(GCONV_HAS_WGMMA)
// A cluster along K, once every block staged its partial tile: block `rank` sums rows
// rank * TM / CLUSTER_K ... of all of them (its own too, through the cluster's window), in
// rank order, and stores them as whole S::VC-vector rows (ct: this thread among the consumers).
template <class S> GCONV_DEVICE void store_cluster_sum(S& s, u32 part_addr, int ct, int rank) {
    typedef typename S::OutT OutT;
    constexpr int W = S::VC, VPR = S::TN / W, ROWS = S::TM / S::CLUSTER_K, TOTAL = ROWS * VPR;
    static_assert(S::TN % W == 0 && S::TM % S::CLUSTER_K == 0, "whole vectors and row slices");
    for (int idx = ct; idx < TOTAL; idx += S::CTHREADS) {
        const int row = rank * ROWS + idx / VPR, col = (idx % VPR) * W;
        if (!s.out_ok(row, col)) continue;
        const u32 local = part_addr + static_cast<u32>((row * S::LDR + col) * 4);
        float sum[W];
#pragma unroll
        for (int e = 0; e < W; ++e) sum[e] = 0.f;
#pragma unroll
        for (int peer = 0; peer < S::CLUSTER_K; ++peer)
            add_cluster_f32<W>(sum, cluster_address(local, static_cast<u32>(peer)));
        GCONV_ALIGN(16) OutT v[W];
#pragma unroll
        for (int e = 0; e < W; ++e) v[e] = from_float<OutT>(sum[e]);
        gemm::put<S, W>(s.out_ptr(row, col), v);
    }
}
#endif

#if defined(GCONV_HAS_WGMMA)
// One K tile's TK / 16 k16 steps x RM wgmma.m64nWNk16 of a consumer warpgroup (tile_wg: its
// first 64-row block of A, M_WGS warpgroups along M; wn: its WN-column half of B in an N split).
// A k16 step is 16 rows (2048 bytes) of an MN-major tile, 32 bytes along a K-major row; an N
// half starts WN K-major rows (whole 8-row swizzle atoms) into B.
// MN-major B in 32-element blocks (b_narrow) steps 16 rows of 64 bytes.
template <class S, int M_WGS>
GCONV_DEVICE void issue_k_tile(float* acc, u32 a_addr, u32 b_addr, int tile_wg, int wn,
                               bool b_narrow) {
    constexpr bool MN = S::A_MN;
    static_assert(S::CWN == 1 || (!MN && S::WN % 8 == 0), "an N split of K-major B in atoms");
    constexpr u64 LAYOUT = k_major_layout<S::TK>();
    constexpr u32 A_BLOCK = 64 * S::TK * 2; // one 64-row block of A
    if constexpr (S::CWN > 1) b_addr += wn * S::WN * S::TK * 2;
#pragma unroll
    for (int kk = 0; kk < S::TK / 16; ++kk) {
        u64 db;
        if constexpr (MN)
            db = b_narrow ? descriptor_mn32(b_addr + kk * 1024, 64 * 64)
                          : descriptor_mn(b_addr + kk * 2048, 64 * 128);
        else
            db = descriptor_k(b_addr + kk * 32, LAYOUT);
#pragma unroll
        for (int r = 0; r < S::RM; ++r) {
            const u32 block = r * M_WGS + tile_wg;
            wgmma_m64k16<S::WN, S::IS_HALF, MN>(
                acc + r * (S::WN / 2),
                MN ? descriptor_mn(a_addr + block * A_BLOCK + kk * 2048, 64 * 128)
                   : descriptor_k(a_addr + block * A_BLOCK + kk * 32, LAYOUT),
                db);
        }
    }
}

// A consumer warp gives a stage back (`empty`, one arrival per warp): to its own block's
// producer, and in a cluster to every block's, since the first block's A multicast writes this
// block's stage too (each block's `empty` counts the consumer warps of the whole cluster).
template <class S> GCONV_DEVICE void release_stage(u32 empty, int rank) {
    mbar_arrive(empty);
#pragma unroll
    for (int other = 1; other < S::CLUSTER; ++other)
        mbar_arrive_cluster(empty, static_cast<u32>((rank + other) % S::CLUSTER));
}

// A consumer warpgroup's main loop over one output tile's K tiles (ring positions it ... it +
// ktiles - 1): wait for each stage, issue it, release the one before once this one's wgmma
// group is in flight; returns with every wgmma finished and the accumulators fenced.
template <class S, int M_WGS>
GCONV_DEVICE void consume_k_tiles(float* acc, u32 bars, u32 tiles_addr, int it, int ktiles,
                                  int tile_wg, int wn, int wg, int rank, bool b_narrow) {
    constexpr int STAGES = S::STAGES;
    constexpr u32 A_BYTES = S::TM * S::TK * 2, STAGE_BYTES = (S::TM + S::TN) * S::TK * 2;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    for (int t = 0; t < ktiles; ++t) {
        const int q = it + t, st = q % STAGES;
        mbar_wait(bars + 8 * st, (q / STAGES) & 1);
        const u32 a_addr = tiles_addr + st * STAGE_BYTES;
        mma_fence();
        // pixels_on_n: the stage's channel rows are the instruction's A, its pixel rows its B.
        if constexpr (S::PIXELS_ON_N)
            issue_k_tile<S, M_WGS>(acc, a_addr + A_BYTES, a_addr, tile_wg, wn, false);
        else
            issue_k_tile<S, M_WGS>(acc, a_addr, a_addr + A_BYTES, tile_wg, wn, b_narrow);
        mma_commit();
        mma_wait<1>();
        if (t > 0 && lane == 0) release_stage<S>(bars + 8 * (STAGES + (q - 1) % STAGES), rank);
    }
    if constexpr (S::PINGPONG) named_arrive<2 * S::CTHREADS>(3 + (1 - wg));
    mma_wait<0>();
#pragma unroll
    for (int i = 0; i < S::ACC; ++i) fence_operand(acc[i]);
}

#endif

// The whole block: producer / consumer main loop, then the engine's epilogues, per tile.
template <class S> GCONV_DEVICE void run(S& s, const WgmmaMaps& maps) {
#if !defined(GCONV_HAS_WGMMA)
    static_assert(!S::WGMMA, "wgmma kernels (compv5 with a warpgroup warp tile) need sm_90a");
#else
    typedef typename S::OutT OutT;
    (void)sizeof(OutT);
    constexpr int STAGES = S::STAGES, CONSUMERS = S::CONSUMERS;
    // Ping-pong: each consumer warpgroup takes every other tile of the block whole, so one
    // warpgroup consumes (and releases) a stage; otherwise all of them share each tile, M_WGS
    // along M (all of them, or one in an N split: each takes every 64-row block over its half
    // of the columns).
    constexpr bool PP = S::PINGPONG;
    constexpr int TILE_WGS = PP ? 1 : CONSUMERS;
    constexpr int M_WGS = TILE_WGS / S::CWN;
    static_assert(!PP || (CONSUMERS == 2 && !S::CSHUFFLE),
                  "ping-pong: two consumer warpgroups, an epilogue that leaves the ring alone");
    static_assert(S::CLUSTER == 1 ||
                      (!PP && !S::CSHUFFLE && !S::A_MN && S::SPLITS == 1 && S::GM == 1 && S::PAD_N),
                  "a cluster walks tile groups on the persistent grid (rules.cpp cluster)");
    static_assert(!S::PIXELS_ON_N || (!PP && !S::A_MN && S::SPLITS == 1 && S::C_PASSES == 1 &&
                                      (S::CSHUFFLE || S::CSHUFFLE_BUF)),
                  "pixels_on_n: intrawave, one C buffer (rules.cpp pixels_on_n)");
    static_assert(S::CLUSTER_K == 1 || (S::CSHUFFLE && !PP && !S::A_MN && S::CLUSTER == 1 &&
                                        S::SPLITS == 1 && S::GM == 1),
                  "a cluster along K reduces one tile per block (rules.cpp cluster_along_k)");
    constexpr int A_BYTES = S::TM * S::TK * 2, STAGE_BYTES = (S::TM + S::TN) * S::TK * 2;
    // The consumers release tile t-1 only once they hold tile t, so the producer may signal a
    // tile at most STAGES-2 tiles after issuing it (more would deadlock): STAGES >= 3.
    constexpr int LAG = STAGES - 2;
    static_assert(STAGES >= 3, "the wgmma ring needs at least 3 stages");
    static_assert((S::TK == 64 || (S::TK == 32 && !S::A_MN)) && S::ELEM == 2,
                  "one 128-byte (K-major tile_k 32: 64-byte) swizzled row per tile row");
    // K-major operands (forward, bwd_data's forward view), or both MN-major (bwd_weight, tensor
    // maps only).
    constexpr bool MN = S::A_MN;
    static_assert(S::A_MN == S::B_MN, "the wgmma path takes two K-major or two MN-major operands");
    static_assert(!MN || (S::CSHUFFLE && S::TM % 64 == 0 && S::TN % 32 == 0),
                  "MN-major wgmma: one tile per block, whole 64-element A and 32-element B blocks");
    const int tid = static_cast<int>(threadIdx.x);
    const int warp = tid / 32, lane = tid % 32;
    const TileWalk<S> walk(s.p);
    // mbarriers first, then the stages from the next 1024-byte boundary (swizzle atoms).
    u8* raw = gconv_dynamic_smem;
    const u32 raw_addr = arch::shared_address(raw);
    const u32 bars = raw_addr; // full[s] at 8 s, empty[s] at 8 (STAGES + s)
    // Then, where the consumers finish split-K tiles themselves, the flag of their ticket: the
    // dynamic base is 16-byte aligned, so rounding up adds at most 1008 bytes, and the host
    // reserves 1 KiB of slack besides the barriers (launch_plan.cpp wgmma_shared_bytes).
    constexpr u32 FLAG_BYTES = S::FINISH_IN_BLOCK ? 16 : 0;
    int* finish_flag = reinterpret_cast<int*>(raw + 2 * STAGES * 8);
    (void)finish_flag;
    const u32 tiles_addr = (raw_addr + 2 * STAGES * 8 + FLAG_BYTES + 1023) & ~1023u;
    u8* tiles = raw + (tiles_addr - raw_addr);
    if (tid == 0) {
#pragma unroll
        for (int st = 0; st < STAGES; ++st) {
            mbar_init(bars + 8 * st, maps.enabled ? 1 : 128);
            mbar_init(bars + 8 * (STAGES + st), 4 * TILE_WGS * S::CLUSTER);
        }
        fence_barrier_init();
    }
    // A cluster's blocks arrive on each other's barriers and copy into each other's stages:
    // every block's barriers are initialised before any block starts.
    if constexpr (S::CLUSTER > 1)
        cluster_sync();
    else
        arch::barrier();

    // Each role is one branch (setmaxnreg: the producer's registers may not hold anything the
    // consumers need later), so the epilogue runs inside the consumer branch. Both roles walk
    // the same tiles and count the same K tiles (`it`), so ring slots and phases agree.
    if (warp < 4) {
        if constexpr (CONSUMERS > 1) regs_dec<S::PRODUCER_REGS>();
        if constexpr (MN || S::TK != 64 || S::CLUSTER > 1 || S::CLUSTER_K > 1 || S::PIXELS_ON_N) {
            // No cp.async producer for MN-major operands, 64-byte rows (tile_k 32), a cluster
            // (its A is a multicast tensor copy; along K, its blocks split the maps' K tiles)
            // or pixels_on_n (its consumers read the stages in the copy engine's swizzle): the
            // host refuses to launch without the maps, and a launch without them must not wait
            // forever.
            if (!maps.enabled) asm volatile("trap;");
        }
        // One thread issues the tensor copies; the others of a cluster's producer wait at the
        // cluster's barriers, the others of a lone block leave.
        int it = 0;
        const bool issues = !maps.enabled || tid == 0;
        if constexpr (S::CLUSTER == 1 && S::CLUSTER_K == 1)
            if (!issues) return;
        for (int tile = walk.first; issues && tile < walk.count; tile += walk.step) {
            int bx, by, bz;
            walk.coords(tile, bx, by, bz);
            s.setup_at(tid, bx, by, bz);
            if (!s.active()) continue; // uniform per tile
            int kt_begin, ktiles;
            block_k_tiles(s, maps, walk.rank_k, kt_begin, ktiles);
            if constexpr (MN) {
                produce_tma_mn(s, maps, bars, tiles_addr, ktiles, it);
            } else if (maps.enabled) {
                produce_tma(s, maps, bars, tiles_addr, kt_begin, ktiles, it, walk.rank);
            } else if constexpr (S::TK == 64) {
                for (int t = 0; t < ktiles; ++t) {
                    const int q = it + t, st = q % STAGES;
                    if (q >= STAGES) mbar_wait(bars + 8 * (STAGES + st), ((q / STAGES) - 1) & 1);
                    copy_tile(s, tiles + st * STAGE_BYTES, tiles + st * STAGE_BYTES + A_BYTES,
                              kt_begin + t);
                    arch::async_commit();
                    if (t >= LAG) {
                        arch::async_wait<LAG>();
                        fence_proxy_async();
                        mbar_arrive(bars + 8 * ((q - LAG) % STAGES));
                    }
                }
                arch::async_wait<0>();
                fence_proxy_async();
                for (int t = ktiles > LAG ? ktiles - LAG : 0; t < ktiles; ++t)
                    mbar_arrive(bars + 8 * ((it + t) % STAGES));
            }
            it += ktiles;
        }
        // The producer warp's other lanes wait here for the issuing lane, not at the cluster
        // barrier beside a lane that still issues copies.
        if constexpr (S::CLUSTER > 1 || S::CLUSTER_K > 1)
            if (warp == 0) __syncwarp();
        // A cluster along K: the producers meet the consumers' barrier between staging and
        // summing the partial tiles (its block's one tile, where that tile is active: the
        // same for every block of the cluster).
        if constexpr (S::CLUSTER_K > 1) {
            int bx, by, bz;
            walk.coords(walk.first, bx, by, bz);
            s.setup_at(tid, bx, by, bz);
            if (s.active()) cluster_sync();
        }
    } else {
        if constexpr (CONSUMERS > 1) regs_inc<S::CONSUMER_REGS>();
        const int cw = warp - 4; // consumer warp index
        const int wg = cw / 4;
        const int tw = PP ? cw % 4 : cw; // warp index among the tile's consumers
        // The tile's warp grid (gemm::coord): CWM warps along M by CWN warpgroups along N.
        const int wm = S::CWN == 1 ? tw : tw % S::CWM, wn = S::CWN == 1 ? 0 : tw / S::CWM;
        const int tile_wg = PP || S::CWN > 1 ? 0 : wg; // its 64-row blocks in the tile
        int it = 0, turn = 0;
        for (int tile = walk.first; tile < walk.count; tile += walk.step) {
            int bx, by, bz;
            walk.coords(tile, bx, by, bz);
            s.setup_at(tid, bx, by, bz);
            if (!s.active()) continue; // uniform per tile
            int kt_begin, ktiles;
            block_k_tiles(s, maps, walk.rank_k, kt_begin, ktiles);
            (void)kt_begin;
            if constexpr (PP) {
                // The other warpgroup's tile: its K tiles pass through the ring all the same.
                if ((turn++ & 1) != wg) {
                    it += ktiles;
                    continue;
                }
                // Main loops take turns (barrier 3 + wg, arrived at by the other warpgroup once
                // it has waited on every K tile of its tile): a warpgroup that jumped over the
                // other's K tiles would otherwise wait on a stage's phase parity while that stage
                // is still one fill behind, and pass at once.
                if (turn > 1) arch::named_barrier<2 * S::CTHREADS>(3 + wg);
            }
            float acc[S::ACC];
#pragma unroll
            for (int i = 0; i < S::ACC; ++i) acc[i] = 0.f;
            consume_k_tiles<S, M_WGS>(acc, bars, tiles_addr, it, ktiles, tile_wg, wn, wg, walk.rank,
                                      MN && narrow_b_blocks<S::TN>(s.p.c_per_group));
            // The last K tile's stage goes back to the producer (the next tile's loads).
            if (ktiles > 0 && lane == 0)
                release_stage<S>(bars + 8 * (STAGES + (it + ktiles - 1) % STAGES), walk.rank);
            it += ktiles;

            if constexpr (S::CSHUFFLE) {
                // Every tile was consumed, so every copy into the ring has landed and every
                // wgmma has finished reading it: stage C there. Only the consumers meet (named
                // barrier 1). One tile per block (TileWalk), so no copy refills the ring.
                consumer_barrier<S::CTHREADS>();
                if constexpr (S::CLUSTER_K > 1) {
                    // Every block stages its partial sums there as fp32; once all have (the
                    // cluster barrier orders those writes before the reads), each sums and
                    // stores its slice of the rows. The kernel's last cluster barrier keeps
                    // each block's partial tile until its peers have read it.
                    float* part = reinterpret_cast<float*>(tiles);
                    stage_tile<S, S::LDR>(part, acc, wm, wn, lane);
                    cluster_sync();
                    store_cluster_sum(s, arch::shared_address(part), tid - 128, walk.rank_k);
                    continue;
                }
                OutT* sc = reinterpret_cast<OutT*>(tiles);
                stage_tile<S, S::LDC>(sc, acc, wm, wn, lane);
                consumer_barrier<S::CTHREADS>();
                store_c_rows<S, S::TN, S::LDC>(s, sc, tid - 128, 0);
                // Split-K with atomic adds into fp32 sums: the last block to add to the tile
                // converts it (one tile per block, so nothing follows in the loop).
                if constexpr (S::FINISH_IN_BLOCK)
                    s.finish_tile(finish_flag, ConsumerTeam<S::CTHREADS>{});
            } else if constexpr (S::CSHUFFLE_BUF) {
                // C has its own buffer after the ring, so the producer goes on filling the ring
                // with the next tile's K tiles meanwhile. The first barrier of a slice waits
                // until every consumer has read the previous slice (or tile) out of the buffer.
                // Ping-pong: each warpgroup has its own buffer and barrier. A buffer of a
                // column slice (C_PASSES > 1) leaves the ring a stage more.
                static_assert(S::RN == 1, "wgmma: one warp tile spans the warpgroup's columns");
                OutT* sc =
                    reinterpret_cast<OutT*>(tiles + S::WG_RING + (PP ? wg * S::C_TILE_BYTES : 0));
                // Split in N, each warpgroup's columns are WG_PASSES slices of the tile's
                // C_PASSES (or, one slice for the whole tile, both share it): a pass stages the
                // accumulators of one warpgroup, chosen by a uniform branch.
                static_assert(S::C_COLS % S::FRAG_N == 0 &&
                                  (S::C_PASSES == 1 || S::C_PASSES % S::CWN == 0),
                              "whole n8 blocks per C slice, whole slices per N half");
                constexpr int WG_PASSES = S::C_PASSES >= S::CWN ? S::C_PASSES / S::CWN : 1;
#pragma unroll
                for (int pass = 0; pass < S::C_PASSES; ++pass) {
                    const bool stages = S::C_PASSES < S::CWN || pass / WG_PASSES == wn;
                    if constexpr (PP) {
                        arch::named_barrier<S::CTHREADS>(1 + wg);
                    } else {
                        consumer_barrier<S::CTHREADS>();
                    }
                    if constexpr (S::PIXELS_ON_N) { // one pass (C_PASSES 1)
                        stage_transposed<S, S::LDCB>(sc, acc, wm, wn, lane);
                    } else {
                        // A fragment's two adjacent columns go in one store.
#pragma unroll
                        for (int idx = 0; idx < S::ACC; idx += S::RUN) {
                            if (!stages || c_slice<S>(idx) != pass % WG_PASSES) continue;
                            int row, col;
                            gemm::coord<S>(idx, wm, wn, lane, row, col);
                            GCONV_ALIGN(16) OutT v[S::RUN];
#pragma unroll
                            for (int e = 0; e < S::RUN; ++e) v[e] = from_float<OutT>(acc[idx + e]);
                            gemm::copy_run<S::RUN>(sc + row * S::LDCB + col - pass * S::C_COLS, v);
                        }
                    }
                    if constexpr (PP)
                        arch::named_barrier<S::CTHREADS>(1 + wg);
                    else
                        consumer_barrier<S::CTHREADS>();
                    store_c_rows<S, S::C_COLS, S::LDCB>(s, sc, tid - 128 - (PP ? wg * 128 : 0),
                                                        pass * S::C_COLS);
                }
            } else {
                gemm::store_direct(s, acc, wm, wn, lane);
            }
        }
        // The block's last tile was arrived at for a main loop that never comes: the other
        // warpgroup meets it, so no barrier is left half-met at exit.
        if constexpr (PP)
            if (turn > 0 && wg == (turn & 1)) arch::named_barrier<2 * S::CTHREADS>(3 + wg);
    }
    // No block of a cluster leaves while another may still arrive on its barriers (the last
    // stages' releases), copy into its stages or read its partial tile.
    if constexpr (S::CLUSTER > 1 || S::CLUSTER_K > 1) cluster_sync();
#endif
}

} // namespace wgmma
} // namespace gconv
