#pragma once
// Vendor layer: the only place that knows whether the device code is built by NVRTC (NVIDIA)
// or by clang HIP (AMD). Everything above it speaks in warps, barriers, fragments and copies.
// No vendor header is included: NVRTC and hipRTC both predefine threadIdx, blockIdx,
// blockDim, gridDim and __syncthreads().
#include "gconv_types.h"

#if defined(__HIP_DEVICE_COMPILE__) || defined(__AMDGCN__) || defined(__HIPCC_RTC__)
#define GCONV_AMD 1
#define GCONV_WARP_SIZE 64
#else
#define GCONV_NV 1
#define GCONV_WARP_SIZE 32
#endif

#define GCONV_DEVICE __device__ __forceinline__
#define GCONV_ALIGN(n) __attribute__((aligned(n)))

// The block's dynamic shared memory (GCONV_EMU: the CPU emulator's, core/emu/device/).
#if defined(GCONV_EMU)
#define gconv_dynamic_smem (::gconv_emu::dynamic_shared())
#else
namespace gconv {
extern __shared__ GCONV_ALIGN(16) u8 gconv_dynamic_smem[];
} // namespace gconv
#endif

// Launch bounds: `threads` per block, at least `blocks` resident per multiprocessor / CU.
// HIP's second __launch_bounds__ argument counts waves per execution unit (4 SIMDs per CU),
// not blocks, so the AMD form converts.
#if defined(GCONV_NV)
#define GCONV_LAUNCH_BOUNDS(threads, blocks) __launch_bounds__(threads, blocks)
#else
#define GCONV_LAUNCH_BOUNDS(threads, blocks)                                                       \
    __attribute__((amdgpu_flat_work_group_size(1, threads),                                        \
                   amdgpu_waves_per_eu(((threads) / 64 * (blocks) + 3) / 4)))
#endif

// A kernel launched in thread-block clusters of `n` blocks along x (compile-time cluster size,
// so a plain launch forms them; the wgmma kernels' A multicast, gconv_wgmma.h). NVIDIA only.
#if defined(GCONV_NV)
#define GCONV_CLUSTER_DIMS(n) __cluster_dims__(n, 1, 1)
#else
#define GCONV_CLUSTER_DIMS(n)
#endif

namespace gconv {
namespace arch {

GCONV_DEVICE void barrier() {
    __syncthreads();
}

#if defined(GCONV_NV)
// Barrier `id` (1 to 15; 0 is the block's) over THREADS threads of the block, whole warps: the
// warps that share a piece of work meet without stopping the others.
template <int THREADS> GCONV_DEVICE void named_barrier(int id) {
#if defined(GCONV_EMU)
    gconv_emu::named_barrier(id, THREADS);
#else
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(THREADS) : "memory");
#endif
}
#endif

// Stops the kernel with an error the launch reports (an entry that must never run).
GCONV_DEVICE void trap() {
#if defined(GCONV_NV)
    __trap();
#else
    __builtin_trap();
#endif
}

GCONV_DEVICE u32 float_bits(float f) {
#if defined(GCONV_NV)
    return __float_as_uint(f);
#else
    return __builtin_bit_cast(u32, f);
#endif
}
GCONV_DEVICE float bits_float(u32 u) {
#if defined(GCONV_NV)
    return __uint_as_float(u);
#else
    return __builtin_bit_cast(float, u);
#endif
}

// fp16 <-> fp32 with round-to-nearest-even.
GCONV_DEVICE u16 float_to_half_bits(float f) {
#if defined(GCONV_EMU)
    return gconv_emu::float_to_half(f);
#elif defined(GCONV_NV)
    u16 h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    return __builtin_bit_cast(u16, static_cast<_Float16>(f));
#endif
}
GCONV_DEVICE float half_bits_to_float(u16 h) {
#if defined(GCONV_EMU)
    return gconv_emu::half_to_float(h);
#elif defined(GCONV_NV)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    return static_cast<float>(__builtin_bit_cast(_Float16, h));
#endif
}

// fp32 -> bf16 bits, round to nearest, ties to even; NaN stays a quiet NaN. sm_80+ has one
// instruction for it, which keeps a tile's epilogue (one conversion per accumulator) short for
// ptxas as well as at run time.
GCONV_DEVICE u16 float_to_bf16_bits(float f) {
#if defined(GCONV_NV) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    u16 h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    const u32 u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<u16>((u >> 16) | 0x40u);
    const u32 rounded = u + 0x7fffu + ((u >> 16) & 1u);
    return static_cast<u16>(rounded >> 16);
#endif
}

#if defined(GCONV_EMU)
GCONV_DEVICE u32 shared_address(const void* p) {
    return gconv_emu::shared_offset(p);
}
#elif defined(GCONV_NV)
GCONV_DEVICE u32 shared_address(const void* p) {
    u32 a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}
#endif

#if defined(GCONV_NV) && !defined(GCONV_EMU)
// cp.async of 16 bytes to a shared-memory address (kernels that address shared memory as 32-bit
// offsets: descriptors, stmatrix), zero-filled when !valid.
GCONV_DEVICE void copy_async_16(u32 smem_addr, const void* gmem, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem),
                 "r"(valid ? 16 : 0));
}
#endif

// Asynchronous global -> shared copy of BYTES (2, 4, 8 or 16), zero-filled when !valid.
// NVIDIA: cp.async (the src-size operand 0 reads nothing and writes zeros); 2-byte copies
// and AMD (gfx90a has no general async LDS copy) fall back to a plain load + store, which
// is complete by the time the following barrier is passed.
template <int BYTES> GCONV_DEVICE void copy_async(void* smem, const void* gmem, bool valid) {
#if defined(GCONV_EMU)
    if constexpr (BYTES >= 4) {
        gconv_emu::copy_async<BYTES>(smem, gmem, valid);
        return;
    }
#elif defined(GCONV_NV)
    if constexpr (BYTES == 16) {
        copy_async_16(shared_address(smem), gmem, valid);
        return;
    } else if constexpr (BYTES == 8 || BYTES == 4) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(shared_address(smem)),
                     "l"(gmem), "n"(BYTES), "r"(valid ? BYTES : 0));
        return;
    }
#endif
    Raw<BYTES> r = valid ? *static_cast<const Raw<BYTES>*>(gmem) : Raw<BYTES>::zero();
    *static_cast<Raw<BYTES>*>(smem) = r;
}
GCONV_DEVICE void async_commit() {
#if defined(GCONV_EMU)
    gconv_emu::async_commit();
#elif defined(GCONV_NV)
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most N committed copy groups of this thread are still in flight.
template <int N> GCONV_DEVICE void async_wait() {
#if defined(GCONV_EMU)
    gconv_emu::async_wait(N);
#elif defined(GCONV_NV)
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

#if defined(GCONV_EMU)
GCONV_DEVICE void ldmatrix_x4(u32 (&r)[4], const void* row) {
    gconv_emu::ldmatrix<4, false>(r, shared_address(row));
}
GCONV_DEVICE void ldmatrix_x2(u32 (&r)[2], const void* row) {
    gconv_emu::ldmatrix<2, false>(r, shared_address(row));
}
GCONV_DEVICE void ldmatrix_x4_trans(u32 (&r)[4], const void* row) {
    gconv_emu::ldmatrix<4, true>(r, shared_address(row));
}
GCONV_DEVICE void ldmatrix_x2_trans(u32 (&r)[2], const void* row) {
    gconv_emu::ldmatrix<2, true>(r, shared_address(row));
}
template <bool IS_HALF> GCONV_DEVICE void mma_16816(float* d, const u32 (&a)[4], const u32* b) {
    gconv_emu::mma_16816<IS_HALF>(d, a, b);
}
#elif defined(GCONV_NV)
// ldmatrix: four (or two) 8x8 b16 matrices; each lane passes one row address.
GCONV_DEVICE void ldmatrix_x4(u32 (&r)[4], const void* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(row)));
}
GCONV_DEVICE void ldmatrix_x2(u32 (&r)[2], const void* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(shared_address(row)));
}
// The same with each 8x8 matrix transposed: rows addressed as k, delivered as M/N rows.
GCONV_DEVICE void ldmatrix_x4_trans(u32 (&r)[4], const void* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(row)));
}
GCONV_DEVICE void ldmatrix_x2_trans(u32 (&r)[2], const void* row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(shared_address(row)));
}
// D = A(16x16, row) * B(16x8, col) + D, fp32 accumulate. IS_HALF picks fp16 over bf16.
template <bool IS_HALF> GCONV_DEVICE void mma_16816(float* d, const u32 (&a)[4], const u32* b) {
    if constexpr (IS_HALF) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}
#else
typedef short gconv_short4 __attribute__((ext_vector_type(4)));
typedef _Float16 gconv_half4 __attribute__((ext_vector_type(4)));
typedef float gconv_float4 __attribute__((ext_vector_type(4)));
// D(16x16) += A(16x16) * B(16x16) on one wave64: lane l holds A[l%16][4*(l/16)..+3],
// B[4*(l/16)..+3][l%16] (both as 4 packed 16-bit values) and D[4*(l/16)+i][l%16].
template <bool IS_HALF>
GCONV_DEVICE void mfma_16x16x16(float* d, const u32 (&a)[2], const u32 (&b)[2]) {
    gconv_float4 c = {d[0], d[1], d[2], d[3]};
    if constexpr (IS_HALF) {
        c = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(gconv_half4, a),
                                                  __builtin_bit_cast(gconv_half4, b), c, 0, 0, 0);
    } else {
        c = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(
            __builtin_bit_cast(gconv_short4, a), __builtin_bit_cast(gconv_short4, b), c, 0, 0, 0);
    }
    d[0] = c[0];
    d[1] = c[1];
    d[2] = c[2];
    d[3] = c[3];
}
#endif

// fp32 add to global memory without a return value (split-K accumulation).
GCONV_DEVICE void atomic_add(float* dst, float v) {
#if defined(GCONV_EMU)
    gconv_emu::atomic_add(dst, v);
#elif defined(GCONV_NV)
    asm volatile("red.global.add.f32 [%0], %1;\n" ::"l"(dst), "f"(v) : "memory");
#else
    atomicAdd(dst, v);
#endif
}

// A load that reads what other blocks' atomics and stores left in L2, past this SM's L1 (after
// a fence and a ticket say they are done).
GCONV_DEVICE float load_l2(const float* src) {
#if defined(GCONV_NV)
    return __ldcg(src);
#else
    return __builtin_nontemporal_load(src);
#endif
}

// N consecutive fp32 adds (dst aligned to N values, N a power of two): on sm_90 and later as
// vector reductions of up to 4 values (red.global.add.v4.f32; the L2 applies a reduction per
// transaction, so a vector adds 4 values for the cost of one), elsewhere one by one.
template <int N> GCONV_DEVICE void atomic_add_run(float* dst, const float* v) {
#if defined(GCONV_NV) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (N >= 4) {
#pragma unroll
        for (int e = 0; e < N; e += 4)
            asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(dst + e),
                         "f"(v[e]), "f"(v[e + 1]), "f"(v[e + 2]), "f"(v[e + 3])
                         : "memory");
        return;
    } else if constexpr (N == 2) {
        asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(dst), "f"(v[0]), "f"(v[1])
                     : "memory");
        return;
    }
#endif
#pragma unroll
    for (int e = 0; e < N; ++e) atomic_add(dst + e, v[e]);
}

} // namespace arch
} // namespace gconv
