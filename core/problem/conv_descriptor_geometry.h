#pragma once
// gconv's tensors as a vendor convolution library's descriptors see them. Dimensions come in the
// N, C, (D), H, W order (weight: K, C/G, (Z), Y, X) that cuDNN's tensor descriptors use, with the
// element strides of gconv's physical layouts (N,D,H,W,G,C/G; G,K/G,Z,Y,X,C/G; N,D,H,W,G,K/G).
// The groups are no dimension of their own: in N,H,W,G,C/G the G * C/G channels of a pixel are
// contiguous, so the input is channels-last with C channels and the weight K rows of C/G
// channels each; the library infers G as C(input) / C(weight). A 2D problem has 4 dimensions,
// a 3D one 5, matching the convolution's 2 or 3 spatial dimensions.
#include "problem/problem.h"

#include <cstdint>
#include <vector>

namespace gconv {

struct TensorGeometry {
    std::vector<int64_t> dims;    // N, C, spatial... (weight: K, C/G, filter...)
    std::vector<int64_t> strides; // in elements, same order
};

struct ConvDescriptorGeometry {
    int spatial_dims = 2;
    TensorGeometry input, weight, output;
    std::vector<int64_t> pad, stride, dilation; // per spatial dimension, outermost first
};

ConvDescriptorGeometry conv_descriptor_geometry(const Problem& problem);

// The int arrays the vendor libraries' descriptor calls take.
std::vector<int> as_int32(const std::vector<int64_t>& values);

} // namespace gconv
