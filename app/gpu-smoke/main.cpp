// gconv-gpu-smoke: proves the GPU path end to end on a machine without Qt: device query,
// hipRTC JIT through the kernel cache, module load, launch, read-back, verification, timing.
// Usage: gconv-gpu-smoke [--device N] [--elements N] [--seed N] [--cache DIR]
#include "gpu/device.h"
#include "gpu/hip_check.h"
#include "gpu/module.h"
#include "gpu/self_test.h"
#include "jit/cache.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace {

void print_device(const gconv::gpu::DeviceInfo& d) {
    std::printf("device %d: %s, arch %s, %d SMs, warp %d, max threads/block %d\n", d.index,
                d.name.c_str(), d.arch.c_str(), d.sm_count, d.warp_size, d.max_threads_per_block);
    std::printf("  shared/block %zu B (opt-in %zu B), shared/SM %zu B, regs/block %d, L2 %zu B\n",
                d.shared_per_block, d.shared_per_block_optin, d.shared_per_sm,
                d.registers_per_block, d.l2_bytes);
    std::printf("  clock %d kHz, memory clock %d kHz, memory %.1f GiB, driver %d, runtime %d\n",
                d.clock_khz, d.memory_clock_khz, double(d.memory_bytes) / (1u << 30),
                d.driver_version, d.runtime_version);
}

void print_report(const char* label, const gconv::gpu::SelfTestReport& r) {
    std::printf("%s: %s, compile %.3f s (%s), code %zu B, %d regs, seed %u\n", label,
                r.compiler.c_str(), r.compile_seconds, r.from_cache ? "cache hit" : "compiled",
                r.code_bytes, r.registers, r.seed);
    std::printf("  fill %zu elements: %zu mismatches, median %.4f ms, %.1f GB/s written\n",
                r.elements, r.mismatches, r.fill_ms, r.fill_gbytes_per_s);
    std::printf("  reverse through %zu B dynamic shared: %zu mismatches\n", r.shared_bytes,
                r.shared_mismatches);
}

} // namespace

int main(int argc, char** argv) {
    int device = 0;
    std::size_t elements = std::size_t(1) << 28; // 1 GiB of uint32
    auto seed = std::uint32_t(std::chrono::steady_clock::now().time_since_epoch().count());
    std::string cache_dir;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--device")
            device = std::atoi(argv[i + 1]);
        else if (flag == "--elements")
            elements = std::strtoull(argv[i + 1], nullptr, 10);
        else if (flag == "--seed")
            seed = std::uint32_t(std::strtoul(argv[i + 1], nullptr, 10));
        else if (flag == "--cache")
            cache_dir = argv[i + 1];
        else {
            std::fprintf(stderr,
                         "unknown option %s (allowed: --device --elements --seed --cache)\n",
                         argv[i]);
            return 2;
        }
    }
    try {
        const int count = gconv::gpu::device_count();
        std::printf("devices: %d\n", count);
        if (count == 0) {
            std::printf("GPU_SMOKE SKIP: no device\n");
            return 0;
        }
        print_device(gconv::gpu::query(device));
        const gconv::jit::KernelCache cache(cache_dir.empty()
                                                ? gconv::jit::KernelCache::default_root()
                                                : std::filesystem::path(cache_dir));
        std::printf("cache: %s\n", cache.root().c_str());

        const auto first = gconv::gpu::run_self_test(device, cache, elements, seed);
        print_report("run 1", first);
        const auto second = gconv::gpu::run_self_test(device, cache, elements, seed + 1);
        print_report("run 2", second);

        // The error path: a code object the driver must refuse.
        try {
            const char garbage[] = "not a code object";
            gconv::gpu::Module bad(garbage);
            std::printf("error path: garbage module loaded (unexpected)\n");
        } catch (const gconv::gpu::GpuError& error) {
            std::printf("error path: %s (sticky: %s)\n", error.what(),
                        error.sticky() ? "yes" : "no");
        }

        const bool ok = first.passed() && second.passed() && second.from_cache;
        std::printf("GPU_SMOKE %s\n", ok ? "PASS" : "FAIL");
        return ok ? 0 : 1;
    } catch (const std::exception& error) {
        std::printf("GPU_SMOKE FAIL: %s\n", error.what());
        return 1;
    }
}
