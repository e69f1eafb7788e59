#include "sweep/measurement.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <thread>

namespace gconv {

TimingStats summarize_timings(const std::vector<float>& launch_ms) {
    if (launch_ms.empty()) throw Error("no timed launches to summarise");
    TimingStats s;
    const double n = double(launch_ms.size());
    s.mean_ms = std::accumulate(launch_ms.begin(), launch_ms.end(), 0.0) / n;
    std::vector<float> sorted = launch_ms;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t mid = sorted.size() / 2;
    s.median_ms = sorted.size() % 2 ? sorted[mid] : 0.5 * (double(sorted[mid - 1]) + sorted[mid]);
    s.min_ms = sorted.front();
    double var = 0.0;
    for (float t : launch_ms) var += (t - s.mean_ms) * (t - s.mean_ms);
    var = launch_ms.size() > 1 ? var / (n - 1) : 0.0;
    s.cv = s.mean_ms > 0 ? std::sqrt(var) / s.mean_ms : 0.0;
    return s;
}

double verification_tolerance(DataType dtype) {
    switch (dtype) {
    case DataType::BF16:
        return 1e-2; // 8-bit mantissa: output rounding alone is up to 2^-9
    case DataType::FP16:
        return 2e-3; // 11-bit mantissa
    case DataType::FP32:
        return 1e-4;
    }
    return 0.0;
}

float bf16_to_float(uint16_t bits) {
    const uint32_t u = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t float_to_bf16(float value) {
    uint32_t u;
    std::memcpy(&u, &value, 4);
    if (std::isnan(value)) return 0x7fc0;
    u += 0x7fff + ((u >> 16) & 1);
    return uint16_t(u >> 16);
}

float fp16_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16;
    const int exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    uint32_t u;
    if (exp == 0) {
        if (mant == 0) {
            u = sign;
        } else { // subnormal: normalise
            int e = -1;
            do {
                ++e;
                mant <<= 1;
            } while (!(mant & 0x400));
            u = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
        }
    } else if (exp == 31) {
        u = sign | 0x7f800000u | mant << 13;
    } else {
        u = sign | uint32_t(exp - 15 + 127) << 23 | mant << 13;
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t float_to_fp16(float value) {
    uint32_t u;
    std::memcpy(&u, &value, 4);
    const uint16_t sign = uint16_t((u >> 16) & 0x8000);
    if (std::isnan(value)) return sign | 0x7e00;
    const float a = std::fabs(value);
    if (a >= 65520.0f) return sign | 0x7c00;
    if (a < 6.103515625e-05f) { // subnormal range: round in units of 2^-24
        const int q = int(std::nearbyint(a * 16777216.0f));
        return sign | uint16_t(q);
    }
    int e;
    const float m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
    int mant = int(std::nearbyint((m * 2.0f - 1.0f) * 1024.0f));
    int exp = e - 1 + 15;
    if (mant == 1024) {
        mant = 0;
        ++exp;
    }
    if (exp >= 31) return sign | 0x7c00;
    return sign | uint16_t(exp << 10) | uint16_t(mant);
}

double reference_scale(const float* reference, std::size_t count) {
    double m = 0.0;
    for (std::size_t i = 0; i < count; ++i) m = std::max(m, double(std::fabs(reference[i])));
    return m;
}

namespace {

uint16_t half_bits(const char* bytes, std::size_t i) {
    uint16_t b;
    std::memcpy(&b, bytes + i * 2, 2);
    return b;
}

struct ChunkTally {
    double max_abs_err = 0.0;
    std::size_t nan_count = 0, mismatches = 0;
    bool non_zero = false;
};

template <typename Load>
ChunkTally tally(const Load& load, const float* reference, std::size_t begin, std::size_t end,
                 double limit) {
    ChunkTally t;
    for (std::size_t i = begin; i < end; ++i) {
        const float o = load(i);
        if (!std::isfinite(o)) {
            ++t.nan_count;
            continue;
        }
        t.non_zero |= o != 0.0f;
        const double err = std::fabs(double(o) - reference[i]);
        t.mismatches += err > limit;
        t.max_abs_err = std::max(t.max_abs_err, err);
    }
    return t;
}

template <typename Load>
ChunkTally tally_parallel(const Load& load, const float* reference, std::size_t count,
                          double limit) {
    // Large outputs (tens of millions of elements) are checked on several cores: this runs
    // once per benchmark cell, so it bounds the sweep's overhead per cell.
    constexpr std::size_t k_per_thread = std::size_t(1) << 20;
    const std::size_t threads =
        std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()),
                              (count + k_per_thread - 1) / k_per_thread);
    if (threads <= 1) return tally(load, reference, 0, count, limit);
    std::vector<ChunkTally> parts(threads);
    std::vector<std::thread> pool;
    const std::size_t step = (count + threads - 1) / threads;
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            parts[t] = tally(load, reference, std::min(count, t * step),
                             std::min(count, (t + 1) * step), limit);
        });
    for (auto& th : pool) th.join();
    ChunkTally all;
    for (const auto& p : parts) {
        all.max_abs_err = std::max(all.max_abs_err, p.max_abs_err);
        all.nan_count += p.nan_count;
        all.mismatches += p.mismatches;
        all.non_zero |= p.non_zero;
    }
    return all;
}

} // namespace

double verification_limit(DataType dtype, double ref_max_abs) {
    return verification_tolerance(dtype) * (ref_max_abs > 0 ? ref_max_abs : 1.0);
}

Verification verification_from_tally(const VerificationTally& tally, std::size_t count,
                                     double ref_max_abs) {
    Verification v;
    v.ref_max_abs = ref_max_abs;
    const double scale = ref_max_abs > 0 ? ref_max_abs : 1.0;
    v.max_abs_err = tally.max_abs_err;
    v.nan_count = tally.non_finite;
    v.mismatches = tally.off;
    v.non_zero = tally.non_zero > 0;
    v.max_rel_err = v.nan_count ? std::nan("") : v.max_abs_err / scale;
    // An all-zero reference proves nothing about the kernel (the inputs are never zero).
    v.passed = count > 0 && v.nan_count == 0 && v.mismatches == 0 && ref_max_abs > 0;
    return v;
}

Verification verify_output(const void* output, const float* reference, std::size_t count,
                           DataType dtype, double ref_max_abs) {
    if (ref_max_abs < 0) ref_max_abs = reference_scale(reference, count);
    const double limit = verification_limit(dtype, ref_max_abs);
    const auto* bytes = static_cast<const char*>(output);
    ChunkTally t;
    switch (dtype) {
    case DataType::FP32:
        t = tally_parallel(
            [bytes](std::size_t i) {
                float f;
                std::memcpy(&f, bytes + i * 4, 4);
                return f;
            },
            reference, count, limit);
        break;
    case DataType::BF16:
        t = tally_parallel([bytes](std::size_t i) { return bf16_to_float(half_bits(bytes, i)); },
                           reference, count, limit);
        break;
    case DataType::FP16:
        t = tally_parallel([bytes](std::size_t i) { return fp16_to_float(half_bits(bytes, i)); },
                           reference, count, limit);
        break;
    }
    VerificationTally tally;
    tally.max_abs_err = float(t.max_abs_err);
    tally.non_finite = t.nan_count;
    tally.off = t.mismatches;
    tally.non_zero = t.non_zero ? 1 : 0;
    Verification v = verification_from_tally(tally, count, ref_max_abs);
    v.max_abs_err = t.max_abs_err;
    v.max_rel_err =
        v.nan_count ? std::nan("") : t.max_abs_err / (ref_max_abs > 0 ? ref_max_abs : 1.0);
    return v;
}

} // namespace gconv
