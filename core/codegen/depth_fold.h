#pragma once
// A 3D problem whose filter does not mix depth (Z = 1, stride_d = 1, pad_d = 0) is a 2D problem
// of N x Di images: its NDHWGC input and output are (N*D)HWGC, its G K/G 1 Y X C/G filter is
// G K/G Y X C/G, byte for byte. 2D kernels compute such a problem as that 2D problem, so every
// 2D pool (more tiles, and the pipelines that exist only in 2D) competes on the pointwise and
// 1 x k x k layers of 3D networks. The result row keeps the problem as given.
#include "config/kernel_config.h"
#include "problem/problem.h"

namespace gconv {

// Whether the depth of a 3D problem is a batch dimension (false for 2D problems).
bool has_batch_depth(const Problem& problem);
// The 2D problem of N x Di images; `problem` must have a batch depth.
Problem fold_depth(const Problem& problem);
// The problem a kernel computes: fold_depth(problem) for a 2D kernel and a 3D problem with a batch
// depth, else the problem as given. Every planning entry (is_supported, plan_sequence,
// note_entries) starts from it.
Problem kernel_problem(const KernelConfig& config, const Problem& problem);

} // namespace gconv
