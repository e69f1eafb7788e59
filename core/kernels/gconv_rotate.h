#pragma once
// The filter of bwd_data's forward view (codegen/forward_view.h): the stored filter rotated by
// 180 degrees with its two channel axes swapped, written into the workspace by the first
// kernel of the launch sequence. `v` holds the view's sizes (its C is dOut's K, its K dIn's C)
// and the stored filter in v.wei.
#include "gconv_arch.h"
#include "gconv_params.h"

namespace gconv {

// View filter in GKZYXC: view group g, view output channel k (dIn's c), tap t, view input
// channel c (dOut's k) holds the stored w[(g, c)][taps - 1 - t][k]. One element per thread of a
// grid-stride loop (the filter is small: K x taps x C/G elements).
template <class T> GCONV_DEVICE void rotate_filter(const ConvParams& v, void* workspace) {
    const T* w = static_cast<const T*>(v.wei);
    T* dst = static_cast<T*>(workspace);
    const int taps = v.Z * v.Y * v.X;
    const int kv = v.k_per_group, cv = v.c_per_group;
    const int total = v.K * taps * cv;
    for (int e = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); e < total;
         e += static_cast<int>(gridDim.x * blockDim.x)) {
        const int c = e % cv;
        const int rest = e / cv;
        const int t = rest % taps, ch = rest / taps; // ch = (g, k)
        const int g = ch / kv, k = ch - g * kv;
        dst[e] = w[((g * cv + c) * taps + taps - 1 - t) * kv + k];
    }
}

} // namespace gconv
