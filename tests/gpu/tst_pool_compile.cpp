// A representative subset of every shipped forward pool compiles with zero errors: for sm_90
// through hipRTC -> NVRTC, and for gfx90a through ROCm's hipRTC (loaded beside the NVIDIA
// build). The subset takes, per config, one kernel of each (pipeline, dtype, ndim) present,
// so every pipeline of every pool meets both compilers (the NVIDIA-only direct_mma pool meets
// NVRTC only; on gfx90a it must be empty). No GPU is needed.
#include "codegen/direct_wgmma_plan.h"
#include "codegen/launch_plan.h"
#include "config/arch_spec.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "jit/amd_hiprtc.h"
#include "jit/compiler.h"
#include "jit/kernel_build.h"
#include "shipped_pools.h"
#include "test_paths.h"

#include <QDir>
#include <QRegularExpression>
#include <QtTest>

#include <set>
#include <tuple>

using namespace gconv;

namespace {

// Every shipped pool: forward, bwd_data and bwd_weight (and their fp16 / fp32 / 3D siblings).
// The *_wgmma.json pools exist only on sm_90a (wgmma_only) and are left out elsewhere; with them
// come the wgmma exploration pools of bench/configs, whose shapes (N 192, split-K) are not
// shipped yet; the mma.sync forward split-K exploration pool comes with the others.
QStringList pool_configs(bool wgmma_only = false) {
    QDir dir(test::source_path("configs"));
    QStringList out;
    for (const auto& f : dir.entryList({"forward_*.json", "bwd_*.json"}, QDir::Files))
        if (f.endsWith("_wgmma.json") == wgmma_only) out << dir.filePath(f);
    QDir bench(test::source_path("bench/configs"));
    if (wgmma_only) {
        for (const auto& f : bench.entryList({"*_wgmma_*explore.json"}, QDir::Files))
            out << bench.filePath(f);
    } else {
        // Forward split-K (fp32 sums through vector atomics) on every vendor.
        out << bench.filePath("forward_splitk_explore.json");
    }
    return out;
}

std::vector<KernelConfig> representatives(const KernelPool& pool) {
    std::set<std::tuple<Variant, Pipeline, DataType, int, SplitKMode>> seen;
    std::vector<KernelConfig> picked;
    // Walk from the back too, so that the largest tiles of the pool are among those compiled.
    for (auto it = pool.kernels.rbegin(); it != pool.kernels.rend(); ++it)
        if (seen.insert({it->variant, it->pipeline, it->dtype, it->ndim_spatial, it->split_k_mode})
                .second)
            picked.push_back(*it);
    return picked;
}

// One kernel per (dtype, ndim, tile, wave layout): the wgmma shapes differ in their asm.
std::vector<KernelConfig> wgmma_representatives(const KernelPool& pool) {
    std::set<std::tuple<DataType, int, int, int, int>> seen;
    std::vector<KernelConfig> picked;
    for (const auto& c : pool.kernels)
        if (seen.insert({c.dtype, c.ndim_spatial, c.tile_m, c.tile_n, c.wave_m}).second &&
            (c.ndim_spatial == 2 || picked.size() % 3 == 0))
            picked.push_back(c);
    return picked;
}

} // namespace

class TestPoolCompile : public QObject {
    Q_OBJECT

    void compile_all(const char* arch,
                     const std::function<jit::CompileResult(const jit::CompileRequest&)>& compile,
                     bool wgmma = false) {
        const auto& specs = default_arch_specs();
        int compiled = 0;
        QStringList failures;
        const QRegularExpression spill("([1-9][0-9]*) bytes spill stores");
        for (const auto& path : pool_configs(wgmma)) {
            const auto pool =
                enumerate_pool(load_trait_config(path.toStdString()), specs.get(arch), specs);
            if (test::nvidia_only_pool(path) && specs.get(arch).vendor != "nvidia") {
                QVERIFY2(pool.kernels.empty(), qPrintable(path));
                continue;
            }
            QVERIFY2(!pool.kernels.empty(), qPrintable(path));
            for (const auto& config : wgmma ? wgmma_representatives(pool) : representatives(pool)) {
                if (wgmma)
                    QVERIFY2(uses_wgmma(config) || is_direct_wgmma(config),
                             qPrintable(QString::fromStdString(kernel_name(config))));
                auto request = jit::kernel_compile_request(config, arch);
                // The MN-major (bwd_weight) wgmma kernels hold their producer's per-block copy
                // coordinates beside the accumulators, direct_wgmma its row's sums beside the
                // band's addressing: ptxas must not spill them. (The persistent
                // direct-epilogue 2-consumer forward tiles carry a known 12-byte spill.)
                const bool no_spill =
                    wgmma && (config.variant == Variant::BwdWeight || is_direct_wgmma(config));
                if (no_spill) request.options.push_back("--ptxas-options=-v");
                const auto result = compile(request);
                ++compiled;
                if (!result.ok || result.code.empty() ||
                    (no_spill && spill.match(QString::fromStdString(result.log)).hasMatch()))
                    failures << QString::fromStdString(kernel_name(config) + ":\n" +
                                                       jit::log_head(result.log, 12));
            }
        }
        qInfo("%s: %d kernels compiled", arch, compiled);
        QVERIFY(compiled >= 8);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    }

private slots:
    // CI compiles the wgmma pipeline (NVRTC needs no GPU): every tile shape and consumer count
    // of the *_wgmma.json pools (forward, bwd_data's forward view, bwd_weight's MN-major
    // operands), bf16 and fp16, 2D and 3D; ptxas reports no spills for bwd_weight's.
    void sm90a_wgmma_subset_compiles_through_nvrtc() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        compile_all(
            "sm_90a", [](const jit::CompileRequest& r) { return jit::compile(r); }, true);
    }

    void sm90_subset_compiles_through_nvrtc() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        compile_all("sm_90", [](const jit::CompileRequest& r) { return jit::compile(r); });
    }

    void gfx90a_subset_compiles_through_rocm_hiprtc() {
        if (!jit::AmdHiprtc::available()) {
            // CI must prove the AMD path compiles: there a missing hipRTC is a failure.
            if (qEnvironmentVariableIsSet("GCONV_REQUIRE_AMD_COMPILE"))
                QFAIL("GCONV_REQUIRE_AMD_COMPILE is set but no ROCm hipRTC can be loaded");
            QSKIP("no ROCm hipRTC library to load");
        }
        jit::AmdHiprtc hiprtc;
        compile_all("gfx90a", [&](const jit::CompileRequest& r) { return hiprtc.compile(r); });
    }
};

QTEST_APPLESS_MAIN(TestPoolCompile)
#include "tst_pool_compile.moc"
