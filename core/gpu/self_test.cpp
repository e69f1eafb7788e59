#include "gpu/self_test.h"

#include "gpu/buffer.h"
#include "gpu/context.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "jit/compiler.h"
#include "util/error.h"

#include <algorithm>
#include <vector>

namespace gconv::gpu {
namespace {

// The pattern lives in a named header so that the self test also exercises header passing.
constexpr const char* k_pattern_header = R"(#pragma once
__device__ __forceinline__ unsigned gconv_selftest_pattern(unsigned i, unsigned long long seed,
                                                           unsigned salt) {
    unsigned long long x = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed;
    x ^= x >> 31;
    return (unsigned)(x * 0xBF58476D1CE4E5B9ull >> 32) ^ salt;
}
)";

constexpr const char* k_source = R"(#include "gconv_selftest_pattern.h"

extern "C" __global__ void gconv_selftest_fill(unsigned* out, unsigned n,
                                               unsigned long long seed, unsigned salt) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = gconv_selftest_pattern(i, seed, salt);
}

// Each block reverses its slice through dynamic shared memory of `count` words.
extern "C" __global__ void gconv_selftest_reverse(const unsigned* in, unsigned* out,
                                                  unsigned count) {
    extern __shared__ unsigned tile[];
    const unsigned base = blockIdx.x * count;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) tile[i] = in[base + i];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
        out[base + i] = tile[count - 1 - i];
}
)";

std::uint32_t host_pattern(std::uint32_t i, std::uint64_t seed, std::uint32_t salt) {
    std::uint64_t x = std::uint64_t(i) * 0x9E3779B97F4A7C15ull + seed;
    x ^= x >> 31;
    return std::uint32_t(x * 0xBF58476D1CE4E5B9ull >> 32) ^ salt;
}

std::uint64_t splitmix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

SelfTestReport run_self_test(int device, const jit::KernelCache& cache, std::size_t elements,
                             std::uint32_t seed) {
    if (elements == 0 || elements > 0xFFFFFFFFu) throw Error("self test: elements out of range");
    SelfTestReport report;
    report.device = query(device);
    report.seed = seed;
    report.elements = elements;
    make_context_current(device);

    const jit::Toolchain toolchain = jit::native_toolchain();
    jit::CompileRequest request;
    request.name = "gconv_selftest.hip";
    request.source = k_source;
    request.headers = {{"gconv_selftest_pattern.h", k_pattern_header}};
    request.arch = report.device.arch;
    const jit::CompileResult compiled = jit::compile_cached(cache, toolchain, request);
    if (!compiled.ok) throw Error("self test kernel did not compile:\n" + compiled.log);
    report.compiler = toolchain.identity;
    report.compile_seconds = compiled.seconds;
    report.from_cache = compiled.from_cache;
    report.code_bytes = compiled.code.size();

    Module module(compiled.code);
    Kernel fill = module.function("gconv_selftest_fill");
    Kernel reverse = module.function("gconv_selftest_reverse");
    report.registers = fill.attributes().registers;

    std::uint64_t state = seed;
    const std::uint64_t pattern_seed = splitmix(state);
    const auto salt = std::uint32_t(splitmix(state));
    const auto n = std::uint32_t(elements);

    DeviceBuffer out(elements * sizeof(std::uint32_t));
    Stream stream;
    LaunchConfig config;
    config.block = {256, 1, 1};
    config.grid = {std::min<unsigned>((n + 255) / 256, unsigned(report.device.sm_count) * 16), 1,
                   1};
    config.stream = stream.get();
    KernelArgs args;
    args.add(out.as<std::uint32_t>()).add(n).add(pattern_seed).add(salt);

    // Poisoned first, so that an element the kernel skips cannot pass by accident.
    out.fill_bytes(0xA5);
    launch(fill, config, args);
    stream.synchronize();
    std::vector<std::uint32_t> host(elements);
    out.download(std::span<std::uint32_t>(host));
    for (std::uint32_t i = 0; i < n; ++i) {
        if (host[i] != host_pattern(i, pattern_seed, salt)) ++report.mismatches;
    }

    std::vector<double> times;
    EventTimer timer;
    for (int rep = 0; rep < 9; ++rep) {
        timer.start(stream.get());
        launch(fill, config, args);
        timer.stop(stream.get());
        times.push_back(timer.elapsed_ms());
    }
    std::sort(times.begin(), times.end());
    report.fill_ms = times[times.size() / 2];
    report.fill_gbytes_per_s = double(elements * sizeof(std::uint32_t)) / (report.fill_ms * 1e6);

    // Reverse slices through more dynamic shared memory than the default 48 KB, within the
    // device's opt-in limit.
    const std::size_t shared_bytes =
        std::min<std::size_t>(report.device.shared_per_block_optin, 96 * 1024) / 4 * 4;
    const auto count = unsigned(shared_bytes / sizeof(std::uint32_t));
    const unsigned blocks = std::max(1u, std::min(n / count, 64u));
    report.shared_bytes = shared_bytes;
    DeviceBuffer reversed(std::size_t(blocks) * count * sizeof(std::uint32_t));
    reversed.fill_bytes(0x5A);
    LaunchConfig reverse_config;
    reverse_config.grid = {blocks, 1, 1};
    reverse_config.block = {256, 1, 1};
    reverse_config.dynamic_shared_bytes = unsigned(shared_bytes);
    reverse_config.stream = stream.get();
    KernelArgs reverse_args;
    reverse_args.add(static_cast<const std::uint32_t*>(out.as<std::uint32_t>()))
        .add(reversed.as<std::uint32_t>())
        .add(count);
    if (std::size_t(blocks) * count <= elements) {
        launch(reverse, reverse_config, reverse_args);
        stream.synchronize();
        std::vector<std::uint32_t> back(std::size_t(blocks) * count);
        reversed.download(std::span<std::uint32_t>(back));
        for (unsigned b = 0; b < blocks; ++b) {
            for (unsigned i = 0; i < count; ++i) {
                if (back[std::size_t(b) * count + i] !=
                    host[std::size_t(b) * count + count - 1 - i])
                    ++report.shared_mismatches;
            }
        }
    } else {
        report.shared_bytes = 0; // too few elements for one slice: not run
    }
    return report;
}

} // namespace gconv::gpu
