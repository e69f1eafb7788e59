#include "worker/stream_hold.h"

#include "gpu/device.h"
#include "gpu/hip_check.h"
#include "gpu/module.h"
#include "jit/build_pool.h"
#include "jit/compiler.h"

#include <atomic>
#include <iostream>
#include <span>

namespace gconv::worker {
namespace {

// Waits until the host's generation number reaches `generation` (a signed difference, so the
// count may wrap) or `timeout` clock cycles pass.
constexpr const char* k_source = R"(
extern "C" __global__ void gconv_stream_hold(const volatile unsigned* released,
                                             unsigned generation, long long timeout) {
    const long long start = clock64();
    while ((int)(*released - generation) < 0 && clock64() - start < timeout) {
    }
}
)";

// About a second at the clocks of current GPUs.
constexpr long long k_timeout_cycles = 2000000000LL;

} // namespace

struct StreamHold::Impl {
    std::unique_ptr<gpu::Module> module;
    std::unique_ptr<gpu::Kernel> kernel;
    unsigned* host = nullptr;   // mapped host memory: the released generation
    unsigned* device = nullptr; // the same word as the device sees it
    unsigned generation = 0;

    ~Impl() {
        if (host) (void)hipHostFree(host);
    }
};

StreamHold::StreamHold(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamHold::~StreamHold() = default;

std::unique_ptr<StreamHold> StreamHold::create(std::string& why) {
    int device = 0;
    if (hipGetDevice(&device) != hipSuccess) {
        why = "no current device";
        return nullptr;
    }
    jit::CompileRequest request;
    request.name = "gconv_stream_hold.hip";
    request.source = k_source;
    request.arch = gpu::query(device).arch;
    const jit::CompileResult compiled = jit::compile(request);
    if (!compiled.ok) {
        why = "the hold kernel did not compile: " + jit::log_head(compiled.log, 3, 300);
        return nullptr;
    }
    auto impl = std::make_unique<Impl>();
    impl->module = std::make_unique<gpu::Module>(std::span<const char>(compiled.code));
    impl->kernel = std::make_unique<gpu::Kernel>(impl->module->function("gconv_stream_hold"));
    if (hipHostMalloc(reinterpret_cast<void**>(&impl->host), sizeof(unsigned),
                      hipHostMallocMapped) != hipSuccess) {
        impl->host = nullptr;
        why = "mapped host memory refused";
        return nullptr;
    }
    *impl->host = 0;
    GCONV_HIP_CHECK(
        hipHostGetDevicePointer(reinterpret_cast<void**>(&impl->device), impl->host, 0));
    return std::unique_ptr<StreamHold>(new StreamHold(std::move(impl)));
}

void StreamHold::hold(hipStream_t stream) {
    gpu::KernelArgs args;
    args.add(static_cast<const unsigned*>(impl_->device)).add(++impl_->generation);
    args.add(k_timeout_cycles);
    gpu::launch(*impl_->kernel, gpu::LaunchConfig{{1}, {1}, 0, stream}, args);
}

void StreamHold::release() {
    __atomic_store_n(impl_->host, impl_->generation, __ATOMIC_RELEASE);
}

namespace {
std::atomic<bool> g_hold_enabled{true};
} // namespace

void StreamHold::set_enabled(bool enabled) {
    g_hold_enabled.store(enabled, std::memory_order_relaxed);
}

StreamHold* StreamHold::active() {
    if (!g_hold_enabled.load(std::memory_order_relaxed)) return nullptr;
    // Never destroyed: at exit the context may be gone before a static destructor ran.
    static StreamHold* const hold = [] {
        std::string why;
        std::unique_ptr<StreamHold> made = create(why);
        if (!made)
            std::cerr << "gconv: no stream hold, launches timed as they come: " << why << "\n";
        return made.release();
    }();
    return hold;
}

} // namespace gconv::worker
