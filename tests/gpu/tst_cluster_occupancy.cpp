// How many clusters of a kernel fit on the device at once (worker/cluster_occupancy.h): the
// persistent cluster grids launch no more. Two probe kernels with compile-time clusters of two
// and four blocks; the driver's answer has to be a positive count that four-block clusters of
// heavy blocks do not exceed SMs / 4, that lighter blocks do not lower, and that two-block
// clusters meet at least as often. Needs an sm_90 device; the compile case needs only NVRTC.
#include "gpu/context.h"
#include "gpu/device.h"
#include "gpu/module.h"
#include "jit/compiler.h"
#include "probe_compile.h"
#include "worker/cluster_occupancy.h"

#include <QtTest>

using namespace gconv;

namespace {

// One entry per cluster size: the occupancy query reads the size from the compiled kernel.
const char* k_source = R"(
#define PROBE(size)                                                                         \
    extern "C" __global__ void __cluster_dims__(size, 1, 1) __launch_bounds__(384)          \
        gconv_tst_cluster##size(int* out) {                                                 \
        extern __shared__ int scratch[];                                                    \
        scratch[threadIdx.x] = threadIdx.x;                                                 \
        __syncthreads();                                                                    \
        if (out) out[blockIdx.x] = scratch[0];                                              \
    }
PROBE(2)
PROBE(4)
)";

jit::CompileResult compile_probe() {
    return test::compile_probe_source("tst_cluster_occupancy.hip", k_source, "sm_90a");
}

constexpr unsigned k_heavy_shared = 220 * 1024; // a wgmma block's ring and C buffer

} // namespace

class TestClusterOccupancy : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (QByteArray(QTest::currentTestFunction()) == "probeCompiles") return;
        if (gpu::device_count() == 0) QSKIP("no GPU visible");
        if (gpu::query(0).arch.rfind("sm_9", 0) != 0) QSKIP("thread-block clusters need sm_90");
        gpu::make_context_current(0);
    }

    void probeCompiles() {
        if (jit::native_platform() != jit::Platform::nvidia) QSKIP("clusters are NVIDIA's");
        const jit::CompileResult compiled = compile_probe();
        QVERIFY2(compiled.ok, compiled.log.c_str());
    }

    void clustersThatFitAtOnce() {
        const jit::CompileResult compiled = compile_probe();
        QVERIFY2(compiled.ok, compiled.log.c_str());
        gpu::Module module(compiled.code);
        gpu::Kernel four = module.function("gconv_tst_cluster4");
        gpu::Kernel two = module.function("gconv_tst_cluster2");
        four.allow_dynamic_shared(k_heavy_shared);
        two.allow_dynamic_shared(k_heavy_shared);
        const unsigned sms = static_cast<unsigned>(gpu::query(0).sm_count);
        const unsigned heavy4 = worker::max_active_clusters(four.get(), 4, 384, k_heavy_shared);
        const unsigned light4 = worker::max_active_clusters(four.get(), 4, 128, 0);
        const unsigned heavy2 = worker::max_active_clusters(two.get(), 2, 384, k_heavy_shared);
        qInfo("%u multiprocessors: %u clusters of four 220 KB blocks, %u of four light ones, %u "
              "of two 220 KB blocks",
              sms, heavy4, light4, heavy2);
        QVERIFY(heavy4 >= 1);
        QVERIFY(heavy4 * 4 <= sms);
        QVERIFY(light4 >= heavy4);
        QVERIFY(heavy2 * 2 <= sms);
        QVERIFY(heavy2 * 2 >= heavy4 * 4);
        QCOMPARE(worker::max_active_clusters(four.get(), 1, 384, k_heavy_shared), 0u);
    }
};

QTEST_APPLESS_MAIN(TestClusterOccupancy)
#include "tst_cluster_occupancy.moc"
