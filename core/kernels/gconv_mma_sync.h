#pragma once
// mma.sync building blocks shared by the tensor-core kernels that drive mma.sync from shared
// memory themselves (gconv_direct_mma.h, gconv_direct_tc.h): ldmatrix and 32-bit shared loads
// on 32-bit shared-window addresses, and the register shuffles around them. NVIDIA only.
#include "gconv_arch.h"

#if !defined(GCONV_NV)
#error "gconv_mma_sync.h is NVIDIA only (ldmatrix, mma.sync)"
#endif

namespace gconv {
namespace mma {

// A compile-time int as a value (the lambdas' immediate offsets and checks).
template <int N> struct IntConst { static constexpr int value = N; };

#if defined(GCONV_EMU)
GCONV_DEVICE void ldsm_x4(u32 (&r)[4], u32 addr) {
    gconv_emu::ldmatrix<4, false>(r, addr);
}
GCONV_DEVICE void ldsm_x2(u32 (&r)[2], u32 addr) {
    gconv_emu::ldmatrix<2, false>(r, addr);
}
GCONV_DEVICE void ldsm_x4_trans(u32 (&r)[4], u32 addr) {
    gconv_emu::ldmatrix<4, true>(r, addr);
}
GCONV_DEVICE void ldsm_x2_trans(u32 (&r)[2], u32 addr) {
    gconv_emu::ldmatrix<2, true>(r, addr);
}
template <int OFF> GCONV_DEVICE void ldsm_x4_at(u32 (&r)[4], u32 addr) {
    gconv_emu::ldmatrix<4, false>(r, addr + OFF);
}
template <int OFF> GCONV_DEVICE void ldsm_x2_at(u32 (&r)[2], u32 addr) {
    gconv_emu::ldmatrix<2, false>(r, addr + OFF);
}
template <int OFF> GCONV_DEVICE u32 lds_u32(u32 addr) {
    return gconv_emu::load_u32(gconv_emu::shared_at(addr + OFF, 4, 4, "ld.shared.u32"));
}
template <bool IS_HALF> GCONV_DEVICE u32 pack2(float lo, float hi) {
    if constexpr (IS_HALF)
        return gconv_emu::float_to_half(lo) | static_cast<u32>(gconv_emu::float_to_half(hi)) << 16;
    else
        return gconv_emu::float_to_bf16(lo) | static_cast<u32>(gconv_emu::float_to_bf16(hi)) << 16;
}
GCONV_DEVICE u32 prmt(u32 a, u32 b, u32 selector) {
    return gconv_emu::permute(a, b, selector);
}
#else

// ldmatrix on 32-bit shared-window addresses (the k loop adds byte offsets to them, no generic
// pointer conversions per step).
GCONV_DEVICE void ldsm_x4(u32 (&r)[4], u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
GCONV_DEVICE void ldsm_x2(u32 (&r)[2], u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
}
// The same with each 8x8 matrix transposed (rows in memory are the reduction index).
GCONV_DEVICE void ldsm_x4_trans(u32 (&r)[4], u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
GCONV_DEVICE void ldsm_x2_trans(u32 (&r)[2], u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
}
// The same at a compile-time byte offset from `addr`, and a 32-bit shared load likewise.
template <int OFF> GCONV_DEVICE void ldsm_x4_at(u32 (&r)[4], u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4+%5];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr), "n"(OFF));
}
template <int OFF> GCONV_DEVICE void ldsm_x2_at(u32 (&r)[2], u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2+%3];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr), "n"(OFF));
}
template <int OFF> GCONV_DEVICE u32 lds_u32(u32 addr) {
    u32 v;
    asm volatile("ld.shared.u32 %0, [%1+%2];\n" : "=r"(v) : "r"(addr), "n"(OFF));
    return v;
}
// Two fp32 values to one 32-bit pair of bf16 / fp16 (lo in the low half), round to nearest even.
template <bool IS_HALF> GCONV_DEVICE u32 pack2(float lo, float hi) {
    u32 d;
    if constexpr (IS_HALF)
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    else
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}
// Bytes of a and b picked by the selector (prmt.b32): 0x5410 the low halves, 0x7632 the high.
GCONV_DEVICE u32 prmt(u32 a, u32 b, u32 selector) {
    u32 d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(selector));
    return d;
}
#endif

} // namespace mma
} // namespace gconv
