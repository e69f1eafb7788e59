#include "codegen/fold_to_2d.h"

#include <cassert>

namespace gconv {

bool has_batch_depth(const Problem& p) {
    return p.ndim_spatial == 3 && p.Z == 1 && p.stride_d == 1 && p.pad_d == 0;
}

Problem fold_depth(const Problem& p) {
    assert(has_batch_depth(p));
    Problem f = p;
    f.N = p.N * p.Di;
    f.Di = 1;
    f.dilation_d = 1; // a one-tap filter reads no dilation
    f.ndim_spatial = 2;
    return f;
}

bool has_pointwise_plane(const Problem& p) {
    return p.ndim_spatial == 3 && p.Y == 1 && p.X == 1 && p.stride_h == 1 && p.stride_w == 1 &&
           p.pad_h == 0 && p.pad_w == 0;
}

Problem fold_plane(const Problem& p) {
    assert(has_pointwise_plane(p));
    Problem f = p;
    f.Hi = p.Di, f.Wi = p.Hi * p.Wi;
    f.Y = p.Z, f.stride_h = p.stride_d, f.pad_h = p.pad_d, f.dilation_h = p.dilation_d;
    f.dilation_w = 1; // one-tap filters along H and W read no dilation
    f.Di = f.Z = f.stride_d = f.dilation_d = 1;
    f.pad_d = 0;
    f.ndim_spatial = 2;
    return f;
}

} // namespace gconv
