#pragma once
// The channel-padded copy (KernelConfig::channel_pad, codegen/channel_pad.h): the first kernel of
// the launch sequence writes the input and then the filter into the workspace with C/G padded
// with zeros to the GEMM's vector, so that the GEMM after it (params of the padded problem, the
// workspace in its input and weight slots) loads whole vectors. `p` holds the padded sizes, the
// stored C/G in p.stored_c_per_group, and the stored tensors in p.in and p.wei.
#include "gconv_arch.h"
#include "gconv_convert.h"
#include "gconv_params.h"

namespace gconv {

// Elements of the padded input, rounded up to 8 so that the padded filter after it starts on
// 16 bytes (codegen/channel_pad.cpp padded_input_span is the host's copy of this formula).
GCONV_DEVICE long long padded_input_span(const ConvParams& p) {
    const long long elements = static_cast<long long>(p.N) * p.Di * p.Hi * p.Wi * p.C;
    return (elements + 7) / 8 * 8;
}

// Both tensors end in C/G: rows of stored_c_per_group elements become rows of c_per_group, the
// rest zero. One element per thread of a grid-stride loop over the input's rows, then the
// filter's (K x taps of them).
template <class T> GCONV_DEVICE void pad_channels(const ConvParams& p, void* workspace) {
    T* dst = static_cast<T*>(workspace);
    const int cp = p.c_per_group, cs = p.stored_c_per_group;
    const long long in_elements = static_cast<long long>(p.N) * p.Di * p.Hi * p.Wi * p.C;
    const long long wei_elements = static_cast<long long>(p.K) * p.Z * p.Y * p.X * cp;
    const long long span = padded_input_span(p);
    const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
         e < in_elements + wei_elements; e += step) {
        const bool filter = e >= in_elements;
        const long long at = filter ? e - in_elements : e;
        const long long row = at / cp;
        const int ch = static_cast<int>(at - row * cp);
        const T* src = static_cast<const T*>(filter ? p.wei : p.in);
        dst[(filter ? span : 0) + at] = ch < cs ? src[row * cs + ch] : from_float<T>(0.0f);
    }
}

} // namespace gconv
