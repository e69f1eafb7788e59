#pragma once
// End-to-end check of the GPU path on one device: query it, JIT-compile a kernel through the
// cache, launch it on random inputs, read back and verify every element, and time it. Used by
// gconv-gpu-smoke and the runtime test; a worker can run it before its first real kernel.
#include "gpu/device.h"
#include "jit/cache.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gconv::gpu {

struct SelfTestReport {
    DeviceInfo device;
    std::string compiler;         // toolchain identity
    double compile_seconds = 0.0; // compiler time, of the original compile on a cache hit
    bool from_cache = false;
    std::size_t code_bytes = 0;
    int registers = 0;
    std::size_t elements = 0;
    std::size_t mismatches = 0;        // fill kernel elements differing from the host's value
    std::size_t shared_mismatches = 0; // reversal through >48 KB of dynamic shared memory
    std::size_t shared_bytes = 0;
    double fill_ms = 0.0;           // median of the timed launches
    double fill_gbytes_per_s = 0.0; // bytes written / fill_ms
    std::uint32_t seed = 0;

    bool passed() const { return mismatches == 0 && shared_mismatches == 0; }
};

// elements: size of the fill test (bytes = 4 * elements). Throws GpuError / gconv::Error when
// a step fails; a wrong result is reported, not thrown.
SelfTestReport run_self_test(int device, const jit::KernelCache& cache, std::size_t elements,
                             std::uint32_t seed);

} // namespace gconv::gpu
