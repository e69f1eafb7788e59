#pragma once
// Verification kernels: direct convolution in all three directions (any input dtype, fp32
// accumulation, fp32 result), a seeded random fill and a NaN poison fill. Deliberately simple:
// one thread per result element, 64-bit indices, no shared memory, no tiling.
#include "gconv_arch.h"
#include "gconv_convert.h"
#include "gconv_params.h"

namespace gconv {
namespace ref {

GCONV_DEVICE i64 global_thread() {
    return static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
}
GCONV_DEVICE i64 grid_threads() {
    return static_cast<i64>(gridDim.x) * blockDim.x;
}

// Element offsets in the three layouts (64-bit).
GCONV_DEVICE i64 in_index(const ConvParams& p, i64 n, i64 d, i64 h, i64 w, i64 g, i64 c) {
    return ((((n * p.Di + d) * p.Hi + h) * p.Wi + w) * p.G + g) * p.c_per_group + c;
}
GCONV_DEVICE i64 wei_index(const ConvParams& p, i64 g, i64 k, i64 z, i64 y, i64 x, i64 c) {
    return ((((g * p.k_per_group + k) * p.Z + z) * p.Y + y) * p.X + x) * p.c_per_group + c;
}
GCONV_DEVICE i64 out_index(const ConvParams& p, i64 n, i64 d, i64 h, i64 w, i64 g, i64 k) {
    return ((((n * p.Do + d) * p.Ho + h) * p.Wo + w) * p.G + g) * p.k_per_group + k;
}

// Input coordinate of output coordinate o through filter tap f; false when it lies in padding.
GCONV_DEVICE bool tap(int o, int f, int stride, int pad, int dil, int extent, int& i) {
    i = o * stride - pad + f * dil;
    return i >= 0 && i < extent;
}
// Output coordinate reached from input coordinate i through tap f, if any.
GCONV_DEVICE bool tap_back(int i, int f, int stride, int pad, int dil, int extent, int& o) {
    const int t = i + pad - f * dil;
    if (t < 0 || t % stride != 0) return false;
    o = t / stride;
    return o < extent;
}

// result[n,do,ho,wo,g,k] = sum in[n,di,hi,wi,g,c] * wei[g,k,z,y,x,c]
template <typename T> GCONV_DEVICE void forward(const ConvParams& p, float* result) {
    const T* in = static_cast<const T*>(p.in);
    const T* wei = static_cast<const T*>(p.wei);
    const i64 total = static_cast<i64>(p.N) * p.Do * p.Ho * p.Wo * p.K;
    for (i64 e = global_thread(); e < total; e += grid_threads()) {
        i64 r = e;
        const int k = static_cast<int>(r % p.k_per_group);
        r /= p.k_per_group;
        const int g = static_cast<int>(r % p.G);
        r /= p.G;
        const int ow = static_cast<int>(r % p.Wo);
        r /= p.Wo;
        const int oh = static_cast<int>(r % p.Ho);
        r /= p.Ho;
        const int od = static_cast<int>(r % p.Do);
        r /= p.Do;
        const i64 n = r;
        float sum = 0.f;
        for (int z = 0; z < p.Z; ++z) {
            int di;
            if (!tap(od, z, p.stride_d, p.pad_d, p.dilation_d, p.Di, di)) continue;
            for (int y = 0; y < p.Y; ++y) {
                int hi;
                if (!tap(oh, y, p.stride_h, p.pad_h, p.dilation_h, p.Hi, hi)) continue;
                for (int x = 0; x < p.X; ++x) {
                    int wi;
                    if (!tap(ow, x, p.stride_w, p.pad_w, p.dilation_w, p.Wi, wi)) continue;
                    const T* a = in + in_index(p, n, di, hi, wi, g, 0);
                    const T* b = wei + wei_index(p, g, k, z, y, x, 0);
                    for (int c = 0; c < p.c_per_group; ++c) sum += to_float(a[c]) * to_float(b[c]);
                }
            }
        }
        result[e] = sum;
    }
}

// bwd_data: result = dIn[n,di,hi,wi,g,c] = sum dOut[n,do,ho,wo,g,k] * wei[g,k,z,y,x,c]
// (dOut is read from p.out).
template <typename T> GCONV_DEVICE void bwd_data(const ConvParams& p, float* result) {
    const T* dout = static_cast<const T*>(p.out);
    const T* wei = static_cast<const T*>(p.wei);
    const i64 total = static_cast<i64>(p.N) * p.Di * p.Hi * p.Wi * p.C;
    for (i64 e = global_thread(); e < total; e += grid_threads()) {
        i64 r = e;
        const int c = static_cast<int>(r % p.c_per_group);
        r /= p.c_per_group;
        const int g = static_cast<int>(r % p.G);
        r /= p.G;
        const int wi = static_cast<int>(r % p.Wi);
        r /= p.Wi;
        const int hi = static_cast<int>(r % p.Hi);
        r /= p.Hi;
        const int di = static_cast<int>(r % p.Di);
        r /= p.Di;
        const i64 n = r;
        float sum = 0.f;
        for (int z = 0; z < p.Z; ++z) {
            int od;
            if (!tap_back(di, z, p.stride_d, p.pad_d, p.dilation_d, p.Do, od)) continue;
            for (int y = 0; y < p.Y; ++y) {
                int oh;
                if (!tap_back(hi, y, p.stride_h, p.pad_h, p.dilation_h, p.Ho, oh)) continue;
                for (int x = 0; x < p.X; ++x) {
                    int ow;
                    if (!tap_back(wi, x, p.stride_w, p.pad_w, p.dilation_w, p.Wo, ow)) continue;
                    const T* a = dout + out_index(p, n, od, oh, ow, g, 0);
                    for (int k = 0; k < p.k_per_group; ++k)
                        sum += to_float(a[k]) * to_float(wei[wei_index(p, g, k, z, y, x, c)]);
                }
            }
        }
        result[e] = sum;
    }
}

// bwd_weight: result = dWei[g,k,z,y,x,c] = sum over n,do,ho,wo of dOut[..,g,k] * in[..,g,c]
template <typename T> GCONV_DEVICE void bwd_weight(const ConvParams& p, float* result) {
    const T* in = static_cast<const T*>(p.in);
    const T* dout = static_cast<const T*>(p.out);
    const i64 total = static_cast<i64>(p.G) * p.k_per_group * p.Z * p.Y * p.X * p.c_per_group;
    for (i64 e = global_thread(); e < total; e += grid_threads()) {
        i64 r = e;
        const int c = static_cast<int>(r % p.c_per_group);
        r /= p.c_per_group;
        const int x = static_cast<int>(r % p.X);
        r /= p.X;
        const int y = static_cast<int>(r % p.Y);
        r /= p.Y;
        const int z = static_cast<int>(r % p.Z);
        r /= p.Z;
        const int k = static_cast<int>(r % p.k_per_group);
        r /= p.k_per_group;
        const int g = static_cast<int>(r);
        float sum = 0.f;
        for (int n = 0; n < p.N; ++n)
            for (int od = 0; od < p.Do; ++od) {
                int di;
                if (!tap(od, z, p.stride_d, p.pad_d, p.dilation_d, p.Di, di)) continue;
                for (int oh = 0; oh < p.Ho; ++oh) {
                    int hi;
                    if (!tap(oh, y, p.stride_h, p.pad_h, p.dilation_h, p.Hi, hi)) continue;
                    for (int ow = 0; ow < p.Wo; ++ow) {
                        int wi;
                        if (!tap(ow, x, p.stride_w, p.pad_w, p.dilation_w, p.Wi, wi)) continue;
                        sum += to_float(dout[out_index(p, n, od, oh, ow, g, k)]) *
                               to_float(in[in_index(p, n, di, hi, wi, g, c)]);
                    }
                }
            }
        result[e] = sum;
    }
}

// Counter-based hash (splitmix64 finaliser) of (seed, index): the same buffer is reproduced
// by any launch shape.
GCONV_DEVICE u64 mix(u64 x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
// Uniform in [-1, 1) times scale, rounded to T.
template <typename T> GCONV_DEVICE void fill_random(void* dst, i64 count, u64 seed, float scale) {
    T* d = static_cast<T*>(dst);
    for (i64 e = global_thread(); e < count; e += grid_threads()) {
        const u64 h = mix(seed * 0x2545f4914f6cdd1dull + static_cast<u64>(e));
        const float u = static_cast<float>(static_cast<u32>(h >> 40)) * (1.0f / 8388608.0f) - 1.0f;
        d[e] = from_float<T>(u * scale);
    }
}

// A quiet NaN with a recognisable payload: any element the kernel under test fails to write
// stays NaN and fails verification.
template <typename T> GCONV_DEVICE T poison_value();
template <> GCONV_DEVICE float poison_value<float>() {
    return arch::bits_float(0x7fc0bad0u);
}
template <> GCONV_DEVICE bf16_t poison_value<bf16_t>() {
    return bf16_t{0x7fc5};
}
template <> GCONV_DEVICE fp16_t poison_value<fp16_t>() {
    return fp16_t{0x7e05};
}

template <typename T> GCONV_DEVICE void fill_poison(void* dst, i64 count) {
    T* d = static_cast<T*>(dst);
    for (i64 e = global_thread(); e < count; e += grid_threads()) d[e] = poison_value<T>();
}

} // namespace ref
} // namespace gconv
