// The AMD path compiles for gfx90a through ROCm's hipRTC, loaded beside the NVIDIA build.
// Skips where no ROCm hipRTC library exists (the GPU machine carries none).
#include "jit/amd_hiprtc.h"
#include "util/error.h"

#include <QRandomGenerator>
#include <QtTest>

using namespace gconv::jit;

namespace {

const char* k_mfma_header = R"(#pragma once
typedef float gconv_float4 __attribute__((ext_vector_type(4)));
)";

std::string mfma_source(unsigned salt) {
    return R"(#include "gconv_amd_types.h"
extern "C" __global__ void gconv_tst_mfma(const float* a, const float* b, float* c) {
    const unsigned lane = threadIdx.x;
    gconv_float4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[lane], b[lane], acc, 0, 0, 0);
    for (int i = 0; i < 4; ++i) c[lane * 4 + i] = acc[i] + )" +
           std::to_string(salt % 1000) + R"(.0f;
}
)";
}

} // namespace

class TestAmdCompile : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void mfmaKernelCompilesForGfx90a();
    void brokenSourceFailsWithLog();
    void refusesNvidiaArch();
    void namesALibraryThatIsNotHiprtc();

private:
    std::unique_ptr<AmdHiprtc> hiprtc_;
};

void TestAmdCompile::initTestCase() {
    if (!AmdHiprtc::available()) {
        // CI must prove the AMD path compiles: there a missing hipRTC is a failure.
        if (qEnvironmentVariableIsSet("GCONV_REQUIRE_AMD_COMPILE"))
            QFAIL("GCONV_REQUIRE_AMD_COMPILE is set but no ROCm hipRTC can be loaded");
        QSKIP("no ROCm hipRTC library to load");
    }
    hiprtc_ = std::make_unique<AmdHiprtc>();
    QVERIFY(hiprtc_->version().rfind("hiprtc ", 0) == 0);
}

void TestAmdCompile::mfmaKernelCompilesForGfx90a() {
    CompileRequest request;
    request.name = "tst_amd_mfma.hip";
    request.source = mfma_source(QRandomGenerator::global()->generate());
    request.headers = {{"gconv_amd_types.h", k_mfma_header}};
    request.arch = "gfx90a";
    const CompileResult result = hiprtc_->compile(request);
    QVERIFY2(result.ok, result.log.c_str());
    QCOMPARE(result.kind, CodeKind::hsaco);
    QVERIFY(result.code.size() > 64);
    // A code object is an ELF file (an offload bundle wraps one on some versions).
    const std::string head(result.code.data(), std::min<std::size_t>(result.code.size(), 24));
    QVERIFY2(head.rfind("\x7f"
                        "ELF",
                        0) == 0 ||
                 head.rfind("__CLANG_OFFLOAD_BUNDLE__", 0) == 0,
             "unexpected code object header");
}

void TestAmdCompile::brokenSourceFailsWithLog() {
    CompileRequest request;
    const unsigned salt = QRandomGenerator::global()->generate();
    request.source =
        "extern \"C\" __global__ void k() { missing_" + std::to_string(salt) + "(); }\n";
    request.arch = "gfx90a";
    const CompileResult result = hiprtc_->compile(request);
    QVERIFY(!result.ok);
    QVERIFY(result.code.empty());
    QVERIFY2(result.log.find("missing_" + std::to_string(salt)) != std::string::npos,
             result.log.c_str());
}

void TestAmdCompile::refusesNvidiaArch() {
    CompileRequest request;
    request.source = "extern \"C\" __global__ void k() {}\n";
    request.arch = "sm_90";
    QVERIFY_THROWS_EXCEPTION(gconv::Error, hiprtc_->compile(request));
}

// A library that loads but lacks the hipRTC entry points is refused by name, before anything
// else on the candidate list is tried.
void TestAmdCompile::namesALibraryThatIsNotHiprtc() {
    try {
        AmdHiprtc wrong("libm.so.6");
        QFAIL("libm.so.6 was taken for a hipRTC library");
    } catch (const gconv::Error& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.contains("libm.so.6 has no symbol hiprtcCreateProgram"), qPrintable(what));
        QVERIFY2(what.contains("hiprtcGetErrorString"), qPrintable(what));
    }
}

QTEST_APPLESS_MAIN(TestAmdCompile)
#include "tst_amd_compile.moc"
