#pragma once
// A random 2D or 3D grouped problem (G 1-40, C/G and K/G 1-48, small images, 1-3 taps, strides
// 1-2, pads 0-1) for tests that check how a problem is described, not how it computes.
#include "problem/problem.h"

#include <random>

namespace gconv::test {

inline Problem random_problem(std::mt19937& rng, int ndim) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Problem p;
    p.ndim_spatial = ndim;
    p.G = pick(1, 40);
    p.C = p.G * pick(1, 48);
    p.K = p.G * pick(1, 48);
    p.N = pick(1, 16);
    p.Hi = pick(3, 60), p.Wi = pick(3, 60);
    p.Y = pick(1, 3), p.X = pick(1, 3);
    p.stride_h = pick(1, 2), p.stride_w = pick(1, 2);
    p.pad_h = pick(0, 1), p.pad_w = pick(0, 1);
    if (ndim == 3)
        p.Di = pick(1, 9), p.Z = pick(1, 3), p.stride_d = pick(1, 2), p.pad_d = pick(0, 1);
    return p;
}

} // namespace gconv::test
