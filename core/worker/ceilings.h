#pragma once
// The device's measured ceilings, against which a kernel's GB/s and TFLOP/s are judged: the
// copy bandwidth (bytes read + written by a device-to-device copy) and the bf16 matmul rate of
// the vendor BLAS. Measured on the device a sweep runs on, in the same run (gconv-worker
// --ceilings), so that "share of the ceiling" never mixes machines or clocks.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace gconv::worker {

struct CeilingOptions {
    int device = 0;
    std::size_t copy_bytes = std::size_t{2} << 30; // per buffer; shrunk to fit free memory
    int copy_warmup = 2;
    int copy_repeat = 10;
    int matmul_size = 8192; // m = n = k
    int matmul_warmup = 3;
    int matmul_repeat = 10;
};

struct Ceilings {
    std::string device;
    std::string arch;
    std::size_t copy_bytes = 0;               // per buffer
    std::optional<double> copy_kernel_gbps;   // 16-byte-vector copy kernel (JIT)
    std::optional<double> memcpy_gbps;        // hipMemcpyAsync device to device
    std::optional<double> copy_gbps;          // the higher of the two
    std::optional<double> launch_floor_ms;    // one tiny launch, timed as a cell's launches
    std::optional<double> matmul_bf16_tflops; // null when no BLAS could be loaded or run
    std::string matmul_library;               // which library and version gave the rate
    std::string notes;                        // why a figure is missing
    std::string how;                          // one sentence on the method
};

// Throws gconv::Error / GpuError only when the device itself cannot be used; a missing BLAS or
// a copy kernel that does not compile leaves its figure empty and says why in `notes`.
Ceilings measure_ceilings(const CeilingOptions& options);

// The JSON line gconv-worker --ceilings prints; missing figures are null.
nlohmann::json ceilings_to_json(const Ceilings& c);

} // namespace gconv::worker
