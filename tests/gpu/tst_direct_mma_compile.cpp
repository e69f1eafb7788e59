// The tensor-core direct kernels (gconv_direct_mma.h) compile for sm_90 through NVRTC for every
// group width they are built for, in bf16 and fp16 (bwd_data in bf16 too), with one to four m16
// fragments per item, with one and two halo buffers, and ptxas reports no spills. The pipeline is
// NVIDIA-only (ldmatrix, mma.sync): the rules cull it on AMD, and the header refuses to compile
// there. No GPU is needed.
#include "codegen/direct_mma_plan.h"
#include "codegen/kernel_source.h"
#include "config/kernel_name.h"
#include "jit/compiler.h"
#include "jit/kernel_build.h"

#include <QRegularExpression>
#include <QtTest>

using namespace gconv;

namespace {

KernelConfig mma_config(DataType dt, int cpg, int warp_tile_m) {
    KernelConfig c;
    c.dtype = dt;
    c.pipeline = Pipeline::DirectMma;
    c.epilogue = Epilogue::Direct;
    c.wave_m = 4, c.wave_n = 1, c.wave_k = 1;
    c.tile_m = 112, c.tile_k = cpg;
    c.tile_n = direct_mma_unit_channels(c) * (cpg >= 32 ? 2 : cpg == 24 ? 2 : 4);
    c.warp_tile_m = warp_tile_m, c.warp_tile_n = direct_mma_warp_tile_n(cpg), c.warp_tile_k = 16;
    return c;
}

// Compiles c for sm_90 with ptxas's report; empty when it built without spills, else what went
// wrong. `log` gets ptxas's report.
QString spills_or_failure(const KernelConfig& c, QString* log = nullptr) {
    static const QRegularExpression spill("([1-9][0-9]*) bytes spill stores");
    auto request = jit::kernel_compile_request(c, "sm_90");
    request.options.push_back("--ptxas-options=-v");
    const auto result = jit::compile(request);
    const QString text = QString::fromStdString(result.log);
    if (log) *log = text;
    if (result.ok && !result.code.empty() && !spill.match(text).hasMatch()) return {};
    return QString::fromStdString(kernel_name(c) + ":\n" + jit::log_head(result.log, 12));
}

} // namespace

class TestDirectMmaCompile : public QObject {
    Q_OBJECT

private slots:
    void sm90_direct_mma_kernels_compile_without_spills() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        QStringList failures;
        int compiled = 0;
        const QRegularExpression spill("([1-9][0-9]*) bytes spill stores");
        for (DataType dt : {DataType::BF16, DataType::FP16})
            for (int cpg : {1, 2, 4, 8, 16, 24, 32})
                for (int wtm : {16, 32, 64}) {
                    if (cpg == 32 && wtm == 64) continue; // 64 accumulators: legal, slow to build
                    KernelConfig c = mma_config(dt, cpg, wtm);
                    c.double_smem_buffer = wtm != 16; // both halo schemes
                    auto request = jit::kernel_compile_request(c, "sm_90");
                    request.options.push_back("--ptxas-options=-v");
                    const auto result = jit::compile(request);
                    ++compiled;
                    const QString log = QString::fromStdString(result.log);
                    if (!result.ok || result.code.empty() || spill.match(log).hasMatch())
                        failures << QString::fromStdString(kernel_name(c) + ":\n" +
                                                           jit::log_head(result.log, 12));
                    else if (dt == DataType::BF16 && wtm == 32)
                        qInfo("%s: %s", kernel_name(c).c_str(),
                              qPrintable(log.simplified().right(160)));
                }
        QCOMPARE(compiled, 40);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    }

    // bwd_data shares the forward code through its view, staging the stored filter rotated;
    // its entry compiles for every staging shape (block-diagonal below C/G 8, rows above).
    void sm90_bwd_data_kernels_compile_without_spills() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        for (int cpg : {1, 4, 8, 32}) {
            KernelConfig c = mma_config(DataType::BF16, cpg, 32);
            c.variant = Variant::BwdData;
            c.double_smem_buffer = cpg >= 8;
            const QString failure = spills_or_failure(c);
            QVERIFY2(failure.isEmpty(), qPrintable(failure));
            const std::string source = generate_kernel_source(c);
            for (const char* text :
                 {"gconv::direct_mma::forward<GconvConfig>(p)", "kViewFilter = 1;"})
                QVERIFY2(source.find(text) != std::string::npos, text);
        }
    }

    // 3D kernels (a halo of several input planes, taps over z, y, x; with dsb the plane walk) in
    // every direction, and bwd_weight in 2D (its tile loop sits beside the walk), for the group
    // widths of the 3D baseline shapes and the block-diagonal staging below C/G 8.
    void sm90_3d_and_bwd_weight_kernels_compile_without_spills() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        int compiled = 0;
        for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight})
            for (int dims : {2, 3}) {
                if (dims == 2 && v != Variant::BwdWeight) continue; // the tests above
                for (int cpg : {4, 8, 32, 33}) {
                    // 33: C/G 32 with bwd_weight's widest warp (7 pairs, 112 accumulators), and
                    // forward's 16-warp block (128 registers a thread at most).
                    if (cpg == 33 && (v == Variant::BwdData || dims != 3)) continue;
                    const int width = std::min(cpg, 32);
                    KernelConfig c = mma_config(DataType::BF16, width,
                                                v != Variant::BwdWeight ? 32
                                                : cpg == 33             ? 112
                                                                        : 64);
                    c.variant = v;
                    c.ndim_spatial = dims;
                    c.double_smem_buffer = width != 4;
                    if (cpg == 33 && v == Variant::Forward) c.wave_m = 16, c.tile_m = 224;
                    if (v == Variant::BwdWeight)
                        c.split_k = 16, c.split_k_mode = SplitKMode::Atomic, c.tile_m = 56;
                    QVERIFY(generate_kernel_source(c).find("kNdim = " + std::to_string(dims) +
                                                           ";") != std::string::npos);
                    ++compiled;
                    const QString failure = spills_or_failure(c);
                    QVERIFY2(failure.isEmpty(), qPrintable(failure));
                }
            }
        QCOMPARE(compiled, 14);
    }

    // wave_k 2: 16 warps (128 registers a thread) with 32-pixel warp tiles of C/G 32 and 16, 2D
    // and 3D, forward and bwd_data's view: no spills; the pair's named barriers are in the code.
    void sm90_split_pairs_compile_without_spills() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        for (Variant v : {Variant::Forward, Variant::BwdData})
            for (int dims : {2, 3})
                for (int cpg : {16, 32}) {
                    KernelConfig c = mma_config(DataType::BF16, cpg, 32);
                    c.variant = v, c.ndim_spatial = dims;
                    c.wave_m = 8, c.wave_k = 2, c.tile_m = 224, c.tile_n = 32;
                    c.double_smem_buffer = true;
                    QString log;
                    const QString failure = spills_or_failure(c, &log);
                    QVERIFY2(failure.isEmpty(), qPrintable(failure));
                    QVERIFY(log.contains("used 16 barriers"));
                }
    }

    void a_broken_direct_mma_source_fails() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        auto request = jit::kernel_compile_request(mma_config(DataType::BF16, 8, 32), "sm_90");
        request.source +=
            "\nstatic_assert(gconv::direct_mma::kPipelineCode == 7, \"wrong code\");\n";
        QVERIFY(!jit::compile(request).ok);
    }
};

QTEST_APPLESS_MAIN(TestDirectMmaCompile)
#include "tst_direct_mma_compile.moc"
