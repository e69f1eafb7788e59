#include "codegen/depth_fold.h"

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

Problem kernel_problem(const KernelConfig& c, const Problem& p) {
    return c.ndim_spatial == 2 && has_batch_depth(p) ? fold_depth(p) : p;
}

} // namespace gconv
