#pragma once
// One grouped-convolution problem (sizes only; direction comes from the variant).
// Layouts: input N,Di,Hi,Wi,G,C/G; weight G,K/G,Z,Y,X,C/G; output N,Do,Ho,Wo,G,K/G.
// 2D problems have Di = Z = 1, stride_d = dilation_d = 1, pad_d = 0.
#include "config/enums.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gconv {

struct Problem {
    int64_t N = 1, C = 1, K = 1, G = 1;
    int64_t Di = 1, Hi = 1, Wi = 1;
    int64_t Z = 1, Y = 1, X = 1;
    int64_t stride_d = 1, stride_h = 1, stride_w = 1;
    int64_t pad_d = 0, pad_h = 0, pad_w = 0;
    int64_t dilation_d = 1, dilation_h = 1, dilation_w = 1;
    int ndim_spatial = 2;
    std::string layer; // where the shape came from (e.g. "resnext50.layer2.0.conv2"); not identity

    int64_t c_per_group() const { return C / G; }
    int64_t k_per_group() const { return K / G; }
    int64_t Do() const;
    int64_t Ho() const;
    int64_t Wo() const;

    // 2 * N * K * Do*Ho*Wo * (C/G) * Z*Y*X, identical for all three directions.
    double flops() const;
    // Each tensor (input, weight, output) read or written once, in bytes of dtype.
    double min_bytes(DataType dtype) const;
    int64_t input_elements() const;
    int64_t weight_elements() const;
    int64_t output_elements() const;

    // Implicit-GEMM view per group for a direction.
    struct Gemm {
        int64_t m, n, k;
    };
    Gemm gemm(Variant variant) const;

    // Sizes only (layer excluded): two problems with the same key are the same shape.
    std::string key() const;
    bool operator==(const Problem& other) const { return key() == other.key(); }
};

// Every violated constraint, each naming its field ("C: 30 is not divisible by G = 4").
std::vector<std::string> validate(const Problem& problem);

} // namespace gconv
