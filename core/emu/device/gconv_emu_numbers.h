#pragma once
// Bit casts and the 16-bit float conversions of cvt (round to nearest even) and prmt.
#include <cstdint>
#include <cstring>

namespace gconv_emu {

typedef std::uint16_t u16;
typedef std::uint32_t u32;

inline float bits_to_float(u32 u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline u32 float_to_bits(float f) {
    u32 u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float half_to_float(u16 h) {
    const u32 sign = static_cast<u32>(h & 0x8000u) << 16;
    const u32 e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        const float v = static_cast<float>(m) * 5.9604644775390625e-8f; // m x 2^-24, exact
        return bits_to_float(sign | float_to_bits(v));
    }
    if (e == 31) return bits_to_float(sign | 0x7f800000u | m << 13);
    return bits_to_float(sign | (e + 112) << 23 | m << 13);
}
// Round to nearest even, as cvt.rn.f16.f32.
inline u16 float_to_half(float f) {
    const u32 x = float_to_bits(f);
    const u32 sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) return static_cast<u16>(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (a >= 0x477ff000u) return static_cast<u16>(sign | 0x7c00u); // 65520 and up: infinity
    if (a < 0x38800000u) {                                         // below 2^-14: subnormal
        const int e = static_cast<int>(a >> 23);
        if (e < 102) return static_cast<u16>(sign);
        const u32 m = (a & 0x7fffffu) | 0x800000u;
        const int shift = 126 - e;
        u32 q = m >> shift;
        const u32 rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1))) ++q;
        return static_cast<u16>(sign | q);
    }
    u32 q = (a - 0x38000000u) >> 13;
    const u32 rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1))) ++q;
    return static_cast<u16>(sign | q);
}
inline u16 float_to_bf16(float f) {
    const u32 u = float_to_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<u16>((u >> 16) | 0x40u);
    return static_cast<u16>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// prmt.b32 (default mode): byte i of the result is byte (selector nibble i & 7) of {b, a},
// replicated sign bit when the nibble's bit 3 is set.
inline u32 permute(u32 a, u32 b, u32 selector) {
    const unsigned long long both = static_cast<unsigned long long>(b) << 32 | a;
    u32 d = 0;
    for (int i = 0; i < 4; ++i) {
        const u32 nibble = (selector >> (4 * i)) & 0xfu;
        u32 byte = static_cast<u32>(both >> (8 * (nibble & 7u))) & 0xffu;
        if (nibble & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
        d |= byte << (8 * i);
    }
    return d;
}

} // namespace gconv_emu
