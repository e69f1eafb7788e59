#pragma once
// The convolution on the host, accumulating in double: the independent reference that checks
// the device's reference kernels (tests/gpu/tst_reference.cpp) and emulated kernels
// (emu/emulated_check.h). Tensors are fp32 values already rounded to their data type, in the
// device layouts (gconv_params.h).
#include "config/enums.h"
#include "problem/problem.h"

#include <cstdint>
#include <random>
#include <vector>

namespace gconv {

// Per result element: the value, sum |a * b| over its products (the scale of its rounding
// error) and the number of products.
struct HostResult {
    std::vector<double> value, abs_sum;
    std::vector<int> terms;
};

// The result tensor of `variant`: forward's output from (in, wei), bwd_data's input gradient
// from (out, wei), bwd_weight's filter gradient from (in, out); the third tensor is unused.
HostResult host_convolution(const Problem& p, Variant variant, const std::vector<float>& in,
                            const std::vector<float>& wei, const std::vector<float>& out);

// One tensor as the device stores it (bytes of the data type) and as the host reads it (the
// same values, already rounded to the type): uniform in [-1, 1), never all zeros.
struct HostTensor {
    std::vector<float> values;
    std::vector<char> bytes;
};
HostTensor random_tensor(std::size_t n, DataType dtype, std::mt19937_64& rng);

} // namespace gconv
