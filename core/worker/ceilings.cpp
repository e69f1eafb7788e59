#include "worker/ceilings.h"

#include "gpu/buffer.h"
#include "gpu/context.h"
#include "gpu/device.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "jit/build_pool.h"
#include "jit/compiler.h"
#include "worker/blas_matmul.h"
#include "worker/launch_timer.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace gconv::worker {
namespace {

// No vendor header: NVRTC and hipRTC both predefine the launch built-ins. The fill writes
// random bf16 values of magnitude 2^-7..1 with random signs (no float bit casts, which the two
// compilers spell differently), so the matmul never multiplies zeros or denormals.
constexpr const char* k_source = R"(
struct __attribute__((aligned(16))) gconv_vec16 { unsigned x, y, z, w; };

extern "C" __global__ void gconv_ceiling_copy(const gconv_vec16* __restrict__ src,
                                              gconv_vec16* __restrict__ dst,
                                              unsigned long long n) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    // Four independent loads in flight per thread before their stores.
    for (; i + 3 * stride < n; i += 4 * stride) {
        const gconv_vec16 a = src[i], b = src[i + stride];
        const gconv_vec16 c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a;
        dst[i + stride] = b;
        dst[i + 2 * stride] = c;
        dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride) dst[i] = src[i];
}

extern "C" __global__ void gconv_ceiling_fill_bf16(unsigned short* out, unsigned long long n,
                                                   unsigned salt) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((unsigned long long)salt << 40);
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 32;
        const unsigned sign = (unsigned)(x >> 63) << 15;
        const unsigned exponent = 120u + (unsigned)((x >> 8) % 7u);
        out[i] = (unsigned short)(sign | (exponent << 7) | ((unsigned)x & 0x7Fu));
    }
}
)";

// Mean milliseconds of `repeat` back-to-back runs between two events, after `warmup` runs.
double mean_ms(hipStream_t stream, int warmup, int repeat, const std::function<void()>& run) {
    for (int i = 0; i < warmup; ++i) run();
    gpu::EventTimer timer;
    timer.start(stream);
    for (int i = 0; i < repeat; ++i) run();
    timer.stop(stream);
    return double(timer.elapsed_ms()) / double(std::max(repeat, 1));
}

// A copy that moved the wrong bytes would be a fast lie: the heads and tails must agree.
bool copies_agree(const gpu::DeviceBuffer& src, const gpu::DeviceBuffer& dst) {
    const std::size_t probe = std::min<std::size_t>(src.bytes(), 1 << 16);
    std::vector<char> a(probe), b(probe);
    for (const std::size_t offset : {std::size_t{0}, src.bytes() - probe}) {
        GCONV_HIP_CHECK(hipMemcpy(a.data(), src.as<char>() + offset, probe, hipMemcpyDeviceToHost));
        GCONV_HIP_CHECK(hipMemcpy(b.data(), dst.as<char>() + offset, probe, hipMemcpyDeviceToHost));
        if (a != b) return false;
    }
    return true;
}

std::string gib(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(1ull << 30));
    return text;
}

void add_note(Ceilings& c, const std::string& note) {
    c.notes += (c.notes.empty() ? "" : "; ") + note;
}

} // namespace

Ceilings measure_ceilings(const CeilingOptions& o) {
    Ceilings c;
    const gpu::DeviceInfo info = gpu::query(o.device);
    c.device = info.name;
    c.arch = info.arch;
    gpu::make_context_current(o.device);
    gpu::Stream stream;

    jit::CompileRequest request;
    request.name = "gconv_ceilings.hip";
    request.source = k_source;
    request.arch = info.arch;
    const jit::CompileResult compiled = jit::compile(request);
    std::unique_ptr<gpu::Module> module;
    std::unique_ptr<gpu::Kernel> copy, fill;
    if (compiled.ok) {
        module = std::make_unique<gpu::Module>(std::span<const char>(compiled.code));
        copy = std::make_unique<gpu::Kernel>(module->function("gconv_ceiling_copy"));
        fill = std::make_unique<gpu::Kernel>(module->function("gconv_ceiling_fill_bf16"));
    } else {
        add_note(c, "the copy kernel did not compile: " + jit::log_head(compiled.log, 3, 300));
    }
    const unsigned sms = unsigned(std::max(info.sm_count, 1));
    auto fill_bf16 = [&](void* ptr, std::size_t count, unsigned salt) {
        if (!fill) {
            GCONV_HIP_CHECK(hipMemsetAsync(ptr, 0x3c, count * 2, stream.get()));
            return;
        }
        gpu::KernelArgs args;
        args.add(ptr).add((unsigned long long)count).add(salt);
        gpu::launch(*fill, {{sms * 8}, {256}, 0, stream.get()}, args);
    };

    {
        std::size_t free_bytes = 0, total_bytes = 0;
        GCONV_HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
        // Two buffers, leaving a third of the free memory alone; whole 16-byte vectors.
        const std::size_t bytes = std::min(o.copy_bytes, free_bytes / 3) / 4096 * 4096;
        c.copy_bytes = bytes;
        gpu::DeviceBuffer src(bytes), dst(bytes);
        fill_bf16(src.data(), bytes / 2, 7);
        GCONV_HIP_CHECK(hipMemsetAsync(dst.data(), 0, bytes, stream.get()));
        const double moved = 2.0 * double(bytes); // read + written
        const double memcpy_ms = mean_ms(stream.get(), o.copy_warmup, o.copy_repeat, [&] {
            GCONV_HIP_CHECK(hipMemcpyAsync(dst.data(), src.data(), bytes, hipMemcpyDeviceToDevice,
                                           stream.get()));
        });
        stream.synchronize();
        if (copies_agree(src, dst))
            c.memcpy_gbps = moved / (memcpy_ms * 1e6);
        else
            add_note(c, "hipMemcpyAsync's copy differs from its source");
        if (copy) {
            GCONV_HIP_CHECK(hipMemsetAsync(dst.data(), 0, bytes, stream.get()));
            const unsigned long long vectors = bytes / 16;
            // A few grid shapes, the best kept: the rate a well-written copy reaches.
            double best_ms = 0.0;
            for (const auto& [threads, blocks_per_sm] :
                 {std::pair{256u, 8u}, {512u, 4u}, {1024u, 2u}, {256u, 32u}}) {
                gpu::KernelArgs args;
                args.add(src.data()).add(dst.data()).add(vectors);
                const gpu::LaunchConfig launch{{sms * blocks_per_sm}, {threads}, 0, stream.get()};
                const double ms = mean_ms(stream.get(), o.copy_warmup, o.copy_repeat,
                                          [&] { gpu::launch(*copy, launch, args); });
                if (best_ms == 0.0 || ms < best_ms) best_ms = ms;
            }
            stream.synchronize();
            if (copies_agree(src, dst))
                c.copy_kernel_gbps = moved / (best_ms * 1e6);
            else
                add_note(c, "the copy kernel's copy differs from its source");
        }
        if (c.memcpy_gbps || c.copy_kernel_gbps)
            c.copy_gbps = std::max(c.memcpy_gbps.value_or(0.0), c.copy_kernel_gbps.value_or(0.0));
    }

    if (copy) {
        // The per-launch floor: a one-block copy of 4 KiB timed as a cell's launches are (an
        // event after each of back-to-back launches), the median. No kernel shows less in a
        // cell, whatever its bytes, so a shape's best time is at least this plus its bytes at
        // the copy ceiling (bench/report.py --classes: the "at floor" figures).
        gpu::DeviceBuffer src(4096), dst(4096);
        fill_bf16(src.data(), 2048, 11);
        GCONV_HIP_CHECK(hipMemsetAsync(dst.data(), 0, 4096, stream.get()));
        gpu::KernelArgs args;
        args.add(src.data()).add(dst.data()).add((unsigned long long)(4096 / 16));
        const gpu::LaunchConfig launch{{1}, {256}, 0, stream.get()};
        for (int i = 0; i < o.copy_warmup; ++i) gpu::launch(*copy, launch, args);
        LaunchTimer timer(std::max(o.copy_repeat, 1));
        std::vector<float> ms = timer.run(stream.get(), [&] { gpu::launch(*copy, launch, args); });
        stream.synchronize();
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        if (copies_agree(src, dst))
            c.launch_floor_ms = double(ms[ms.size() / 2]);
        else
            add_note(c, "the one-block copy differs from its source");
    }

    const MatmulRate rate = measure_bf16_matmul(o.matmul_size, o.matmul_warmup, o.matmul_repeat,
                                                stream.get(), fill_bf16);
    c.matmul_bf16_tflops = rate.tflops;
    c.matmul_library = rate.library;
    if (!rate.why.empty()) add_note(c, rate.why);

    const std::string n = std::to_string(o.matmul_size);
    c.how = "copy: the higher of a 16-byte-vector copy kernel (JIT, best of 4 grid shapes) and "
            "hipMemcpyAsync device to device, 2 x " +
            gib(c.copy_bytes) + ", bytes read + written, mean of " + std::to_string(o.copy_repeat) +
            " after " + std::to_string(o.copy_warmup) +
            " warm-ups between events; launch floor: the median of " +
            std::to_string(o.copy_repeat) +
            " one-block copies of 4 KiB, an event after each; matmul: cublasGemmEx bf16 in and "
            "out, fp32 compute, " +
            n + "x" + n + "x" + n + " on random data, mean of " + std::to_string(o.matmul_repeat) +
            " after " + std::to_string(o.matmul_warmup) + " warm-ups" +
            (rate.library.empty() ? "" : " (" + rate.library + ")");
    return c;
}

nlohmann::json ceilings_to_json(const Ceilings& c) {
    auto value = [](const std::optional<double>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    nlohmann::json j{{"event", "ceilings"},
                     {"device", c.device},
                     {"arch", c.arch},
                     {"copy_gbps", value(c.copy_gbps)},
                     {"copy_kernel_gbps", value(c.copy_kernel_gbps)},
                     {"launch_floor_ms", value(c.launch_floor_ms)},
                     {"memcpy_gbps", value(c.memcpy_gbps)},
                     {"copy_bytes", c.copy_bytes},
                     {"matmul_bf16_tflops", value(c.matmul_bf16_tflops)},
                     {"matmul_library", c.matmul_library},
                     {"how", c.how}};
    if (!c.notes.empty()) j["notes"] = c.notes;
    return j;
}

} // namespace gconv::worker
