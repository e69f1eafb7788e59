// The GPU runtime on a real device: query, allocate, JIT-compile, launch, verify. Every case
// skips cleanly where no device is visible (the CI machines).
#include "gpu/buffer.h"
#include "gpu/context.h"
#include "gpu/device.h"
#include "gpu/hip_check.h"
#include "gpu/module.h"
#include "gpu/self_test.h"
#include "gpu/stream.h"
#include "jit/cache.h"
#include "jit/compiler.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <regex>

using namespace gconv;

namespace {

// Pointer, 32-bit and 64-bit scalars mixed, so that the packed argument buffer's alignment
// is exercised (the 64-bit value must land at offset 16, not 12).
const char* k_source = R"(
extern "C" __global__ void gconv_tst_affine(unsigned* out, unsigned n,
                                            unsigned long long mul, unsigned add) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = (unsigned)(((unsigned long long)i * mul) >> 7) + add;
}
)";

bool have_device() {
    return gpu::device_count() > 0;
}

jit::CompileResult compile_test_kernel(const jit::KernelCache& cache, const std::string& arch) {
    jit::CompileRequest request;
    request.name = "tst_runtime.hip";
    request.source = k_source;
    request.arch = arch;
    return jit::compile_cached(cache, jit::native_toolchain(), request);
}

} // namespace

class TestRuntime : public QObject {
    Q_OBJECT

private slots:
    void init();
    void deviceInfoIsSane();
    void launchFillsEveryElement();
    void selfTestPasses();
    void errorsCarryCallAndCode();
    void classifiersSortErrors();
};

void TestRuntime::init() {
    // classifiersSortErrors needs no device.
    if (QByteArray(QTest::currentTestFunction()) == "classifiersSortErrors") return;
    if (!have_device()) QSKIP("no GPU visible (hipGetDeviceCount failed or found none)");
}

void TestRuntime::deviceInfoIsSane() {
    const gpu::DeviceInfo info = gpu::query(0);
    QCOMPARE(info.index, 0);
    QVERIFY(!info.name.empty());
    // A 9.0 device reports its arch-specific target (sm_90a: wgmma), the others plain sm_XY.
    QVERIFY2(std::regex_match(info.arch, std::regex("^(sm_[0-9]{2,3}a?|gfx[0-9a-f]{3,4})$")),
             info.arch.c_str());
    QVERIFY(info.sm_count > 0);
    QVERIFY(info.warp_size == 32 || info.warp_size == 64);
    QVERIFY(info.max_threads_per_block >= 256);
    QVERIFY(info.shared_per_block >= 16 * 1024);
    QVERIFY(info.shared_per_block_optin >= info.shared_per_block);
    QVERIFY(info.shared_per_sm >= info.shared_per_block);
    QVERIFY(info.registers_per_block > 0);
    QVERIFY(info.l2_bytes > 0);
    QVERIFY(info.clock_khz > 100'000);
    QVERIFY(info.memory_clock_khz > 0);
    QVERIFY(info.memory_bytes > (std::size_t(1) << 30));
    QVERIFY(info.driver_version > 0);
    QVERIFY(info.runtime_version > 0);
    QVERIFY_THROWS_EXCEPTION(gpu::GpuError, gpu::query(gpu::device_count()));
}

void TestRuntime::launchFillsEveryElement() {
    QTemporaryDir dir;
    const jit::KernelCache cache(dir.path().toStdString());
    const gpu::DeviceInfo info = gpu::query(0);
    gpu::make_context_current(0);
    const jit::CompileResult compiled = compile_test_kernel(cache, info.arch);
    QVERIFY2(compiled.ok, compiled.log.c_str());

    auto* random = QRandomGenerator::global();
    const unsigned n = 100'000 + random->bounded(900'000u);
    const std::uint64_t mul = random->generate64() | 1;
    const unsigned add = random->generate();

    gpu::Module module(compiled.code);
    gpu::Kernel kernel = module.function("gconv_tst_affine");
    QVERIFY(kernel.attributes().registers > 0);
    gpu::DeviceBuffer out(std::size_t(n) * sizeof(unsigned));
    out.fill_bytes(0xEE);
    gpu::Stream stream;
    gpu::LaunchConfig config;
    config.block = {128 * (1u + random->bounded(4u)), 1, 1};
    config.grid = {(n + config.block.x - 1) / config.block.x / (1u + random->bounded(3u)) + 1, 1,
                   1};
    config.stream = stream.get();
    gpu::KernelArgs args;
    args.add(out.as<unsigned>()).add(n).add(mul).add(add);
    QCOMPARE(args.size(), std::size_t(28));

    gpu::EventTimer timer;
    timer.start(stream.get());
    gpu::launch(kernel, config, args);
    timer.stop(stream.get());
    QVERIFY(timer.elapsed_ms() >= 0.0f);
    stream.synchronize();

    std::vector<unsigned> host(n);
    out.download(std::span<unsigned>(host));
    std::size_t wrong = 0;
    for (unsigned i = 0; i < n; ++i) {
        if (host[i] != unsigned((std::uint64_t(i) * mul) >> 7) + add) ++wrong;
    }
    QCOMPARE(wrong, std::size_t(0));
}

void TestRuntime::selfTestPasses() {
    QTemporaryDir dir;
    const jit::KernelCache cache(dir.path().toStdString());
    const auto seed = QRandomGenerator::global()->generate();
    const gpu::SelfTestReport first = gpu::run_self_test(0, cache, 1u << 22, seed);
    QCOMPARE(first.mismatches, std::size_t(0));
    QCOMPARE(first.shared_mismatches, std::size_t(0));
    QVERIFY(first.shared_bytes > 48 * 1024 || first.device.shared_per_block_optin <= 48 * 1024);
    QVERIFY(!first.from_cache);
    const gpu::SelfTestReport second = gpu::run_self_test(0, cache, 1u << 20, seed + 1);
    QVERIFY(second.passed());
    QVERIFY(second.from_cache);
}

void TestRuntime::errorsCarryCallAndCode() {
    gpu::make_context_current(0);
    const char garbage[] = "definitely not a code object";
    try {
        gpu::Module bad(garbage);
        QFAIL("a garbage code object was accepted");
    } catch (const gpu::GpuError& error) {
        QVERIFY(error.code() != hipSuccess);
        QVERIFY(std::string(error.what()).find("hipModuleLoadData") != std::string::npos);
        QVERIFY(!error.code_text().empty());
        QVERIFY(!error.sticky());
    }

    QTemporaryDir dir;
    const jit::KernelCache cache(dir.path().toStdString());
    const jit::CompileResult compiled = compile_test_kernel(cache, gpu::query(0).arch);
    QVERIFY2(compiled.ok, compiled.log.c_str());
    gpu::Module module(compiled.code);
    try {
        (void)module.function("gconv_no_such_kernel");
        QFAIL("a missing kernel was found");
    } catch (const gpu::GpuError& error) {
        QVERIFY(std::string(error.what()).find("gconv_no_such_kernel") != std::string::npos);
    }

    // More threads per block than any device allows: refused at launch, context intact.
    gpu::Kernel kernel = module.function("gconv_tst_affine");
    gpu::DeviceBuffer out(1024);
    gpu::KernelArgs args;
    args.add(out.as<unsigned>()).add(256u).add(std::uint64_t(3)).add(1u);
    gpu::LaunchConfig config;
    config.block = {4096, 1, 1};
    try {
        gpu::launch(kernel, config, args);
        QFAIL("a launch of 4096 threads per block was accepted");
    } catch (const gpu::GpuError& error) {
        QVERIFY(std::string(error.what()).find("hipModuleLaunchKernel") != std::string::npos);
        QVERIFY(!error.sticky());
    }
    config.block = {256, 1, 1};
    gpu::launch(kernel, config, args);
    GCONV_HIP_CHECK(hipDeviceSynchronize());
}

void TestRuntime::classifiersSortErrors() {
    QVERIFY(gpu::is_sticky_error(hipErrorIllegalAddress));
    QVERIFY(gpu::is_sticky_error(hipErrorLaunchFailure));
    QVERIFY(!gpu::is_sticky_error(hipErrorInvalidValue));
    QVERIFY(!gpu::is_sticky_error(hipErrorOutOfMemory));
    QVERIFY(gpu::is_out_of_memory_error(hipErrorOutOfMemory));
    QVERIFY(!gpu::is_out_of_memory_error(hipErrorIllegalAddress));
    const gpu::GpuError error("hipMalloc(&p, huge)", hipErrorOutOfMemory, __FILE__, __LINE__);
    QVERIFY(error.out_of_memory());
    QVERIFY(std::string(error.what()).find("hipMalloc(&p, huge)") != std::string::npos);
    QVERIFY(std::string(error.what()).find("tst_runtime.cpp") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestRuntime)
#include "tst_runtime.moc"
