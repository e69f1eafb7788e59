#pragma once
// On-device verification of a kernel's result against the fp32 reference, so a benchmark cell
// moves 16 bytes to the host instead of its whole output. One tally per check:
//   [0] max |out - ref| over finite outputs, as float bits (non-negative floats order as
//       their bits, so an unsigned atomicMax is a float max)
//   [1] non-finite outputs (NaN, inf, the poison pattern)
//   [2] finite outputs further than `limit` from the reference
//   [3] non-zero outputs
// and a max |ref| reduction for the tolerance's scale. Launch with 256 threads per block.
#include "gconv_arch.h"
#include "gconv_convert.h"

namespace gconv {
namespace verify {

constexpr int k_threads = 256;

GCONV_DEVICE bool finite_bits(u32 bits) {
    return (bits & 0x7f800000u) != 0x7f800000u;
}

// Block-wide reduction of four per-thread values, then one atomic per block and value.
GCONV_DEVICE void reduce_into(u32* tally, u32 max_bits, u32 bad, u32 off, u32 non_zero) {
    __shared__ u32 s[4][k_threads];
    const int t = threadIdx.x;
    s[0][t] = max_bits;
    s[1][t] = bad;
    s[2][t] = off;
    s[3][t] = non_zero;
    arch::barrier();
    for (int half = k_threads / 2; half > 0; half /= 2) {
        if (t < half) {
            s[0][t] = s[0][t] > s[0][t + half] ? s[0][t] : s[0][t + half];
            s[1][t] += s[1][t + half];
            s[2][t] += s[2][t + half];
            s[3][t] += s[3][t + half];
        }
        arch::barrier();
    }
    if (t == 0) {
        atomicMax(&tally[0], s[0][0]);
        if (s[1][0]) atomicAdd(&tally[1], s[1][0]);
        if (s[2][0]) atomicAdd(&tally[2], s[2][0]);
        if (s[3][0]) atomicAdd(&tally[3], s[3][0]);
    }
}

template <typename T>
GCONV_DEVICE void compare(const void* output, const float* reference, i64 count, float limit,
                          u32* tally) {
    const T* out = static_cast<const T*>(output);
    float max_err = 0.f;
    u32 bad = 0, off = 0, non_zero = 0;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    for (i64 e = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; e < count; e += stride) {
        const float v = to_float(out[e]);
        if (!finite_bits(arch::float_bits(v))) {
            ++bad;
            continue;
        }
        non_zero += v != 0.f;
        const float err = v > reference[e] ? v - reference[e] : reference[e] - v;
        off += err > limit;
        max_err = err > max_err ? err : max_err;
    }
    reduce_into(tally, arch::float_bits(max_err), bad, off, non_zero);
}

// tally[0] = max |reference| as float bits.
GCONV_DEVICE void abs_max(const float* values, i64 count, u32* tally) {
    float m = 0.f;
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    for (i64 e = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; e < count; e += stride) {
        const float a = values[e] < 0.f ? -values[e] : values[e];
        m = a > m ? a : m;
    }
    reduce_into(tally, arch::float_bits(m), 0, 0, 0);
}

} // namespace verify
} // namespace gconv
