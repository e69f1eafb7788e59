#pragma once
// 3D problems that are 2D problems, byte for byte, so that every 2D pool (more tiles, and the
// pipelines that exist only in 2D) competes on them (kernel_problem.h); the result row keeps
// the problem as given.
// - A filter that does not mix depth (Z = 1, stride_d = 1, pad_d = 0): the depth is a batch. The
//   NDHWGC input and output are (N*D)HWGC, the G K/G 1 Y X C/G filter is G K/G Y X C/G: the 2D
//   problem of N x Di images (pointwise and 1 x k x k layers).
// - A filter that does not mix the plane (Y = X = 1, stride and pad 1 and 0 along H and W): each
//   image is Di rows of Hi x Wi pixels, the filter Z x 1: the 2D problem of Di x (Hi * Wi) images
//   with the depth's filter, stride, pad and dilation along H (the k x 1 x 1 temporal layers).
#include "problem/problem.h"

namespace gconv {

// Whether the depth of a 3D problem is a batch (false for 2D problems).
bool has_batch_depth(const Problem& problem);
// The 2D problem of N x Di images; `problem` must have a batch depth.
Problem fold_depth(const Problem& problem);
// Whether the filter of a 3D problem reads one pixel of each plane (false for 2D problems).
bool has_pointwise_plane(const Problem& problem);
// The 2D problem of Di x (Hi * Wi) images; `problem` must have a pointwise plane.
Problem fold_plane(const Problem& problem);

} // namespace gconv
