#pragma once
// Element conversions between the storage types and fp32 (accumulation type).
#include "gconv_arch.h"

namespace gconv {

template <int DTYPE> struct DTypeOf;
// Codes shared with the host generator: 0 bf16, 1 fp16, 2 fp32 (DataType's order).
template <> struct DTypeOf<0> { typedef bf16_t type; };
template <> struct DTypeOf<1> { typedef fp16_t type; };
template <> struct DTypeOf<2> { typedef float type; };

GCONV_DEVICE float to_float(float v) {
    return v;
}
GCONV_DEVICE float to_float(bf16_t v) {
    return arch::bits_float(static_cast<u32>(v.bits) << 16);
}
GCONV_DEVICE float to_float(fp16_t v) {
    return arch::half_bits_to_float(v.bits);
}

template <typename T> GCONV_DEVICE T from_float(float f);
template <> GCONV_DEVICE float from_float<float>(float f) {
    return f;
}
// Round to nearest, ties to even; NaN stays a (quiet) NaN.
template <> GCONV_DEVICE bf16_t from_float<bf16_t>(float f) {
    return bf16_t{arch::float_to_bf16_bits(f)};
}
template <> GCONV_DEVICE fp16_t from_float<fp16_t>(float f) {
    return fp16_t{arch::float_to_half_bits(f)};
}

} // namespace gconv
