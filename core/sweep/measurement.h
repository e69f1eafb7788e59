#pragma once
// What a worker derives from raw timings and outputs: latency statistics, throughput, and the
// verdict of comparing a kernel's output with the reference. Free of GPU code so CI tests it.
#include "config/enums.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gconv {

struct TimingStats {
    double mean_ms = 0.0;
    double median_ms = 0.0;
    double cv = 0.0; // standard deviation / mean of the individual launches
    double min_ms = 0.0;
};
// Throws gconv::Error for an empty sample.
TimingStats summarize_timings(const std::vector<float>& launch_ms);

// Largest accepted max_rel_err (max |out - ref| / max |ref|) per data type: the output's own
// rounding plus a margin for a different summation order.
double verification_tolerance(DataType dtype);

struct Verification {
    double max_rel_err = 0.0; // NaN when any output is NaN or unwritten
    double max_abs_err = 0.0;
    double ref_max_abs = 0.0;
    std::size_t nan_count = 0;  // NaN or infinite outputs (the poison pattern counts here)
    std::size_t mismatches = 0; // elements whose error exceeds the tolerance x ref scale
    bool non_zero = false;      // any output element != 0
    bool passed = false;
};

// max |reference|: the scale errors are measured against (computed once per problem).
double reference_scale(const float* reference, std::size_t count);

// `output` holds `count` elements of `dtype` as raw bytes (the kernel's result tensor);
// `reference` the fp32 reference of the same tensor; `ref_max_abs` its reference_scale(), or
// negative to compute it here.
Verification verify_output(const void* output, const float* reference, std::size_t count,
                           DataType dtype, double ref_max_abs = -1.0);

// What the device check (gconv_verify) counts; the worker verifies on the GPU and only this
// comes back to the host.
struct VerificationTally {
    float max_abs_err = 0.0f;
    std::size_t non_finite = 0;
    std::size_t off = 0; // finite elements further than verification_limit() from the reference
    std::size_t non_zero = 0;
};

// Absolute error limit for one element: tolerance x the reference's scale (1 when the
// reference is all zeros).
double verification_limit(DataType dtype, double ref_max_abs);

// The verdict on `count` elements from their tally; the same rules as verify_output().
Verification verification_from_tally(const VerificationTally& tally, std::size_t count,
                                     double ref_max_abs);

// Host conversions of the device storage types (round-to-nearest-even for bf16).
float bf16_to_float(uint16_t bits);
float fp16_to_float(uint16_t bits);
uint16_t float_to_bf16(float value);
uint16_t float_to_fp16(float value);

} // namespace gconv
