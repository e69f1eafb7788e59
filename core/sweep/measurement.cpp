#include "sweep/measurement.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

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

Verification verify_output(const void* output, const float* reference, std::size_t count,
                           DataType dtype) {
    Verification v;
    auto value = [&](std::size_t i) -> float {
        switch (dtype) {
        case DataType::FP32: {
            float f;
            std::memcpy(&f, static_cast<const char*>(output) + i * 4, 4);
            return f;
        }
        case DataType::BF16: {
            uint16_t b;
            std::memcpy(&b, static_cast<const char*>(output) + i * 2, 2);
            return bf16_to_float(b);
        }
        case DataType::FP16: {
            uint16_t b;
            std::memcpy(&b, static_cast<const char*>(output) + i * 2, 2);
            return fp16_to_float(b);
        }
        }
        return 0.0f;
    };
    for (std::size_t i = 0; i < count; ++i)
        v.ref_max_abs = std::max(v.ref_max_abs, double(std::fabs(reference[i])));
    const double scale = v.ref_max_abs > 0 ? v.ref_max_abs : 1.0;
    const double limit = verification_tolerance(dtype) * scale;
    for (std::size_t i = 0; i < count; ++i) {
        const float o = value(i);
        if (!std::isfinite(o)) {
            ++v.nan_count;
            continue;
        }
        if (o != 0.0f) v.non_zero = true;
        const double err = std::fabs(double(o) - reference[i]);
        if (err > limit) ++v.mismatches;
        v.max_abs_err = std::max(v.max_abs_err, err);
    }
    v.max_rel_err = v.nan_count ? std::nan("") : v.max_abs_err / scale;
    v.passed = count > 0 && v.nan_count == 0 && v.mismatches == 0 && v.ref_max_abs > 0;
    return v;
}

} // namespace gconv
