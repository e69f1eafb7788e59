#pragma once
// Fixed-width integers, raw vector storage and the 16-bit float storage types of the device
// code. No vendor header: bf16/fp16 are plain 16-bit patterns converted by gconv_arch.h.

#define GCONV_RAW_ALIGN(n) __attribute__((aligned(n)))

namespace gconv {

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int i32;
typedef long long i64;
typedef unsigned long long u64;

struct bf16_t {
    u16 bits;
};
struct fp16_t {
    u16 bits;
};

// Raw storage of BYTES (2, 4, 8, 16): one global or shared access of that width.
template <int BYTES> struct Raw;
template <> struct GCONV_RAW_ALIGN(2) Raw<2> {
    u16 v[1];
    static __device__ Raw zero() { return Raw{{0}}; }
};
template <> struct GCONV_RAW_ALIGN(4) Raw<4> {
    u32 v[1];
    static __device__ Raw zero() { return Raw{{0}}; }
};
template <> struct GCONV_RAW_ALIGN(8) Raw<8> {
    u32 v[2];
    static __device__ Raw zero() { return Raw{{0, 0}}; }
};
template <> struct GCONV_RAW_ALIGN(16) Raw<16> {
    u32 v[4];
    static __device__ Raw zero() { return Raw{{0, 0, 0, 0}}; }
};

} // namespace gconv
