#pragma once
// A depthwise 2D problem (C = K = G) of n images of h x w, a square f x f filter and a pad.
#include "problem/problem.h"

#include <cstdint>

namespace gconv::test {

inline Problem depthwise(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t pad) {
    Problem p;
    p.N = n, p.C = c, p.K = c, p.G = c, p.Hi = h, p.Wi = w, p.Y = f, p.X = f;
    p.pad_h = p.pad_w = pad;
    return p;
}

} // namespace gconv::test
