// The shipped kernel pools run on the CPU emulator (core/emu/): from every pool the emulator can
// run (all but wgmma), kernels spread over its enumeration order, each on problems of its
// direction's test_validation set it supports, over the launch sequence a worker runs, in both
// thread orders, verified against the host convolution with the worker's tolerance. What a GPU
// would verify, without one: wrong indexing, unwritten outputs (NaN poison), races on shared
// memory, cp.async read early, shared memory past the launch's, misaligned shared accesses.
// The split-K and direct bwd_weight pools run once more on workspaces kept zero
// (GCONV_WORKSPACE_KEPT_ZERO=1: no memset, their converters leave sums and tickets zero), where
// the emulator zeroes the workspace before the first run only and fails a run that leaves a
// byte of it set.
// GCONV_EMU_KERNELS_PER_POOL=N takes N kernels per pool (default 2; "all" for every one).
#include "codegen/launch_sequence.h"
#include "config/arch_spec.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "emu/emulated_check.h"
#include "emu/isolated_run.h"
#include "problem/problem_set.h"
#include "test_paths.h"

#include <QtTest>

#include <algorithm>
#include <sstream>

using namespace gconv;

namespace {

// Every n-th of `count` items, `want` of them (all when want >= count).
std::vector<std::size_t> spread(std::size_t count, std::size_t want) {
    std::vector<std::size_t> picked;
    if (count == 0 || want == 0) return picked;
    if (want >= count) {
        for (std::size_t i = 0; i < count; ++i) picked.push_back(i);
        return picked;
    }
    for (std::size_t i = 0; i < want; ++i) picked.push_back(i * count / want);
    return picked;
}

std::size_t kernels_per_pool() {
    const QByteArray env = qgetenv("GCONV_EMU_KERNELS_PER_POOL");
    if (env == "all") return std::size_t(-1);
    bool ok = false;
    const int n = env.toInt(&ok);
    return ok && n > 0 ? std::size_t(n) : 2;
}

// The problems `c` runs on, through steps the emulator runs (wgmma's are not emulated).
std::vector<Problem> supported(const KernelConfig& c, const std::vector<Problem>& problems) {
    std::vector<Problem> out;
    for (const Problem& p : problems) {
        try {
            const LaunchSequence seq = plan_sequence(c, p, 32, emu::k_emulated_shared_optin);
            if (std::none_of(seq.steps.begin(), seq.steps.end(),
                             [](const LaunchStep& s) { return s.kernel.wgmma_maps; }))
                out.push_back(p);
        } catch (const std::invalid_argument&) {
        }
    }
    return out;
}

} // namespace

class TestEmulatedKernels : public QObject {
    Q_OBJECT

private slots:
    void pool_kernels_compute_the_convolution_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("problems");
        QTest::addColumn<int>("max_problems");
        QTest::addColumn<bool>("kept_zero");
        const char* pools[][2] = {
            {"configs/forward_bf16.json", "forward_2d"},
            {"configs/forward_fp16.json", "forward_2d"},
            {"configs/forward_fp32.json", "forward_2d"},
            {"configs/forward_bf16_3d.json", "forward_3d"},
            {"configs/forward_bf16_narrow.json", "forward_2d"},
            {"configs/forward_bf16_narrow.json", "forward_3d"},
            {"configs/forward_bf16_narrow_n.json", "forward_2d"},
            {"configs/forward_bf16_narrow_n.json", "forward_3d"},
            {"configs/forward_direct.json", "forward_2d"},
            {"configs/forward_direct_staged.json", "forward_2d"},
            {"configs/forward_bf16_direct_mma.json", "forward_2d"},
            {"configs/forward_bf16_3d_direct_mma.json", "forward_3d"},
            {"configs/forward_bf16_s2_direct_mma.json", "forward_2d"},
            {"bench/configs/forward_direct_tc_explore.json", "forward_2d"},
            {"bench/configs/forward_2d_direct_mma_ksplit_explore.json", "forward_2d"},
            {"bench/configs/forward_3d_direct_mma_ksplit_explore.json", "forward_3d"},
            {"bench/configs/forward_splitk_explore.json", "forward_2d"},
            {"bench/configs/forward_cpad_explore.json", "forward_2d"},
            {"bench/configs/forward_cpad_explore.json", "forward_3d"},
            // 2D kernels on the 3D problems that are 2D problems (codegen/fold_to_2d.h).
            {"configs/forward_bf16.json", "forward_3d"},
            {"configs/bwd_data.json", "bwd_data_3d"},
            {"configs/bwd_weight.json", "bwd_weight_3d"},
            {"configs/bwd_data.json", "bwd_data_2d"},
            {"configs/bwd_data_fp16.json", "bwd_data_2d"},
            {"configs/bwd_data_fp32.json", "bwd_data_2d"},
            {"configs/bwd_data_3d.json", "bwd_data_3d"},
            {"configs/bwd_data_direct.json", "bwd_data_2d"},
            {"configs/bwd_data_direct_staged.json", "bwd_data_2d"},
            {"configs/bwd_data_direct_mma.json", "bwd_data_2d"},
            {"configs/bwd_data_3d_direct_mma.json", "bwd_data_3d"},
            {"bench/configs/bwd_data_direct_tc_explore.json", "bwd_data_2d"},
            {"bench/configs/bwd_data_2d_direct_mma_ksplit_explore.json", "bwd_data_2d"},
            {"bench/configs/bwd_data_3d_direct_mma_ksplit_explore.json", "bwd_data_3d"},
            {"configs/bwd_weight.json", "bwd_weight_2d"},
            {"configs/bwd_weight_fp16.json", "bwd_weight_2d"},
            {"configs/bwd_weight_fp32.json", "bwd_weight_2d"},
            {"configs/bwd_weight_3d.json", "bwd_weight_3d"},
            {"configs/bwd_weight_direct.json", "bwd_weight_2d"},
            {"configs/bwd_weight_direct_mma.json", "bwd_weight_2d"},
            {"configs/bwd_weight_3d_direct_mma.json", "bwd_weight_3d"},
            {"bench/configs/bwd_weight_direct_tc_explore.json", "bwd_weight_2d"},
        };
        for (const auto& pool : pools)
            QTest::newRow((std::string(pool[0]) + " on " + pool[1]).c_str())
                << QString(pool[0]) << QString("problems/%1_test_validation.json").arg(pool[1]) << 8
                << false;
        const char* kept_zero_pools[][2] = {
            {"bench/configs/forward_splitk_explore.json", "forward_2d"},
            {"configs/bwd_weight.json", "bwd_weight_2d"},
            {"configs/bwd_weight_fp16.json", "bwd_weight_2d"},
            {"configs/bwd_weight_direct.json", "bwd_weight_2d"},
            {"configs/bwd_weight_direct_mma.json", "bwd_weight_2d"},
            {"bench/configs/bwd_weight_direct_tc_explore.json", "bwd_weight_2d"},
        };
        for (const auto& pool : kept_zero_pools)
            QTest::newRow(
                (std::string(pool[0]) + " on " + pool[1] + ", workspace kept zero").c_str())
                << QString(pool[0]) << QString("problems/%1_test_validation.json").arg(pool[1]) << 6
                << true;
        // The 2D-only direct pools on 3D problems that are 2D problems (codegen/fold_to_2d.h),
        // which the test_validation sets hold none of for them.
        for (const char* pool :
             {"configs/forward_direct_staged.json", "configs/forward_direct_tc.json",
              "configs/forward_bf16_direct_mma.json"})
            QTest::newRow((std::string(pool) + " on folded_3d").c_str())
                << QString(pool) << QString("tests/emu/folded_3d.json") << 5 << false;
        // The staged forward entries' stride-2 walk (`gconv_direct_k<K>_s2`).
        for (const char* pool : {"configs/forward_direct_staged.json",
                                 "bench/configs/forward_direct_staged_s2_explore.json"})
            QTest::newRow((std::string(pool) + " on depthwise_stride2").c_str())
                << QString(pool) << QString("tests/emu/depthwise_stride2.json") << 5 << false;
    }
    void pool_kernels_compute_the_convolution() {
        QFETCH(QString, config);
        QFETCH(QString, problems);
        QFETCH(int, max_problems);
        QFETCH(bool, kept_zero);
        // Read by plan_sequence here and in the children run_isolated forks.
        if (kept_zero)
            qputenv("GCONV_WORKSPACE_KEPT_ZERO", "1");
        else
            qunsetenv("GCONV_WORKSPACE_KEPT_ZERO");
        const ArchSpecs& specs = default_arch_specs();
        const KernelPool pool = enumerate_pool(
            load_trait_config(test::source_path(config).toStdString()), specs.get("sm_90"), specs);
        const std::vector<Problem> set =
            load_problem_set(test::source_path(problems).toStdString()).problems;

        // The kernels that run on the set (a pool can hold 3D kernels beside 2D ones).
        std::vector<std::pair<KernelConfig, std::vector<Problem>>> runnable;
        // On workspaces kept zero: the kernels and problems whose sequences keep one.
        for (const KernelConfig& c : pool.kernels) {
            std::vector<Problem> ps = supported(c, set);
            if (kept_zero)
                ps.erase(std::remove_if(ps.begin(), ps.end(),
                                        [&](const Problem& p) {
                                            return !plan_sequence(c, p, 32,
                                                                  emu::k_emulated_shared_optin)
                                                        .workspace_kept_zero;
                                        }),
                         ps.end());
            if (!ps.empty()) runnable.emplace_back(c, ps);
        }
        QVERIFY2(!runnable.empty(), "no kernel of the pool runs on the set");

        const std::filesystem::path work =
            test::binary_path(QStringLiteral("emu-modules")).toStdString();
        QStringList failures;
        int cells = 0, kept_zero_cells = 0;
        for (const std::size_t k : spread(runnable.size(), kernels_per_pool())) {
            const auto& [kernel, all] = runnable[k];
            const QString name = QString::fromStdString(kernel_name(kernel));
            std::vector<Problem> problems_run;
            for (const std::size_t i : spread(all.size(), std::size_t(max_problems))) {
                problems_run.push_back(all[i]);
                kept_zero_cells += plan_sequence(kernel, all[i], 32, emu::k_emulated_shared_optin)
                                       .workspace_kept_zero;
            }
            // In a child: a kernel that faults (a guard page) or hangs fails only its own row.
            const emu::IsolatedExit exit = emu::run_isolated(
                [&](const std::function<void(const std::string&)>& out) {
                    const emu::KernelEmulator emulator(kernel, problems_run, work);
                    for (const Problem& p : problems_run) {
                        const emu::EmulatedCheck r = emulator.check(p, 11);
                        std::ostringstream line;
                        line << "cell";
                        if (!r.passed())
                            line << " " << kernel_name(kernel) << " on " << p.key() << " ("
                                 << r.entry << "): max_rel_err " << r.ascending.max_rel_err << " / "
                                 << r.descending.max_rel_err << ", NaN " << r.ascending.nan_count
                                 << " / " << r.descending.nan_count << ", off "
                                 << r.ascending.mismatches << " / " << r.descending.mismatches
                                 << " (ascending / descending)";
                        out(line.str());
                    }
                },
                [&](const std::string& line) {
                    if (line.rfind("cell", 0) == 0) ++cells;
                    if (line != "cell") failures << QString::fromStdString(line).left(2000);
                },
                std::chrono::seconds(600));
            if (!exit.completed)
                failures << name +
                                ": the emulation ended early: " + QString::fromStdString(exit.why);
        }
        qunsetenv("GCONV_WORKSPACE_KEPT_ZERO");
        qInfo().noquote() << config << ":" << cells << "cells";
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join('\n')));
        QVERIFY(cells > 0);
        if (kept_zero) QVERIFY2(kept_zero_cells > 0, "no cell ran on a workspace kept zero");
    }

    // A direct_wgmma kernel is wgmma instructions only: the emulator refuses it by name
    // instead of handing the host compiler a kernel it cannot build.
    void direct_wgmma_is_refused_by_name() {
        KernelConfig k;
        k.pipeline = Pipeline::DirectWgmma, k.epilogue = Epilogue::CShuffleBuf;
        k.double_smem_buffer = true;
        k.tile_m = 128, k.tile_n = 64, k.tile_k = 32, k.wave_m = 8, k.wave_n = 1;
        k.warp_tile_m = 16, k.warp_tile_n = 128, k.warp_tile_k = 16;
        Problem p;
        p.N = 1, p.C = 32, p.K = 64, p.Hi = p.Wi = 8, p.Y = p.X = 3, p.pad_h = p.pad_w = 1;
        const std::filesystem::path work =
            test::binary_path(QStringLiteral("emu-modules")).toStdString();
        QString why;
        try {
            const emu::KernelEmulator emulator(k, {p}, work);
        } catch (const std::exception& e) {
            why = e.what();
        }
        QVERIFY2(why.contains("direct_wgmma kernels") && why.contains("not emulated"),
                 qPrintable(why));
    }
};

QTEST_APPLESS_MAIN(TestEmulatedKernels)
#include "tst_emulated_kernels.moc"
