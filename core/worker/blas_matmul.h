#pragma once
// The bf16 matmul rate of the vendor BLAS (cuBLAS, loaded at run time like cuDNN: gconv neither
// links nor needs it): cublasGemmEx, bf16 inputs and output, fp32 compute, on random data.
#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace gconv::worker {

struct MatmulRate {
    std::optional<double> tflops; // mean of the timed launches; empty when it could not run
    std::string library;          // "libcublas.so.13 (cuBLAS 13.1.0)"
    std::string why;              // when empty tflops
};

// Measures C = A * B with m = n = k = `size` on `stream` (the device's context current).
// `fill_bf16(ptr, count, salt)` writes random bf16 values into a device buffer (the caller's
// JIT fill kernel), so that the inputs are never zeros.
MatmulRate measure_bf16_matmul(
    int size, int warmup, int repeat, hipStream_t stream,
    const std::function<void(void* ptr, std::size_t count, unsigned salt)>& fill_bf16);

} // namespace gconv::worker
