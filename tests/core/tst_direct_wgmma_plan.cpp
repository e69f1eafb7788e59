// The wgmma direct pipeline (direct_wgmma): its rules and the reasons they cull, kernel names and
// sources, the problems it takes and refuses by name, bands that fit the block's shared memory
// and hold every input row their taps read, items that cover every output once, the launch
// sequence, and the exploration pool.
#include "codegen/direct_wgmma_plan.h"
#include "codegen/kernel_source.h"
#include "codegen/launch_sequence.h"
#include "config/arch_spec.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "problem/problem_set.h"
#include "rule_messages.h"
#include "test_paths.h"

#include <QRandomGenerator>
#include <QtTest>

#include <functional>
#include <vector>

using namespace gconv;
using test::joined;
using test::rules_of;

namespace {

// Two consumer warpgroups, 168-pixel row tiles of 64 output channels, built for C = c.
KernelConfig base(int c = 32) {
    KernelConfig k;
    k.pipeline = Pipeline::DirectWgmma;
    k.epilogue = Epilogue::CShuffleBuf;
    k.double_smem_buffer = true;
    k.wave_m = 8, k.wave_n = 1, k.wave_k = 1;
    k.tile_m = 168, k.tile_n = 64, k.tile_k = c;
    k.warp_tile_m = 16, k.warp_tile_n = 168, k.warp_tile_k = 16;
    return k;
}

Problem dense(int64_t c, int64_t k, int64_t h, int64_t w, int64_t f = 3, int64_t pad = 1) {
    Problem p;
    p.N = 2, p.C = c, p.K = k, p.G = 1, p.Hi = h, p.Wi = w, p.Y = f, p.X = f;
    p.pad_h = p.pad_w = pad;
    return p;
}

// 64-pixel row tiles: C 64 under a 3x3 filter leaves room for bands of four rows.
KernelConfig narrow(int c) {
    KernelConfig k = base(c);
    k.tile_m = k.warp_tile_n = 64;
    return k;
}

QString reason(const KernelConfig& k, const Problem& p) {
    return QString::fromStdString(is_supported(k, p).reason);
}

// What the kernel reads back from its dynamic shared memory (gconv_direct_wgmma.h, forward()):
// the band's input rows, then its output rows.
int64_t rows_the_kernel_derives(const KernelConfig& k, const Problem& p, std::size_t shared) {
    const int64_t chunks = k.tile_k / 8, cols = k.tile_m + (p.X - 1) * p.dilation_w;
    const int64_t fixed = 128 + p.Y * p.X * chunks * k.tile_n * 16 +
                          direct_wgmma_consumers(k) * k.tile_m * (64 + 8) * 2;
    const int64_t band_bytes = (static_cast<int64_t>(shared) - fixed) / 2;
    const int64_t band_rows = band_bytes / (chunks * cols * 16);
    return (band_rows - ((p.Y - 1) * p.dilation_h + 1)) / p.stride_h + 1;
}

} // namespace

class TestDirectWgmmaPlan : public QObject {
    Q_OBJECT

private slots:
    void base_configs_are_legal_on_sm90a_only() {
        for (int c : {16, 32, 48, 64})
            for (int wave_m : {4, 8}) {
                KernelConfig k = base(c);
                k.wave_m = wave_m;
                QVERIFY2(rules_of(k, "sm_90a").empty(), qPrintable(joined(rules_of(k, "sm_90a"))));
            }
        KernelConfig two = base(64);
        two.tile_m = 128, two.warp_tile_n = 128, two.tile_n = 128;
        QVERIFY2(rules_of(two, "sm_90a").empty(), qPrintable(joined(rules_of(two, "sm_90a"))));
        for (const char* arch : {"sm_90", "sm_80", "gfx90a"}) {
            const QString why = joined(rules_of(base(), arch));
            QVERIFY2(why.contains("pipeline_hardware: direct_wgmma needs wgmma"), qPrintable(why));
        }
    }

    void knobs_it_does_not_have_are_culled_with_a_reason() {
        struct Case {
            std::function<void(KernelConfig&)> change;
            const char* says;
        };
        const std::vector<Case> cases = {
            {[](KernelConfig& k) { k.variant = Variant::BwdData; }, "a forward kernel"},
            {[](KernelConfig& k) { k.ndim_spatial = 3; }, "2D rows"},
            {[](KernelConfig& k) { k.dtype = DataType::FP32; }, "data_type fp32"},
            {[](KernelConfig& k) { k.wave_m = 12; }, "1 or 2 consumer warpgroups"},
            {[](KernelConfig& k) { k.wave_n = 2; }, "1 or 2 consumer warpgroups"},
            {[](KernelConfig& k) { k.scheduler = Scheduler::Interwave; }, "scheduler interwave"},
            {[](KernelConfig& k) { k.epilogue = Epilogue::Direct; }, "cshufflebuf"},
            {[](KernelConfig& k) { k.double_smem_buffer = false; }, "double_smem_buffer false"},
            {[](KernelConfig& k) { k.split_image = true; }, "split_image"},
            {[](KernelConfig& k) { k.pad_n = false; }, "pad_m/n/k false"},
            {[](KernelConfig& k) { k.split_k = 2, k.split_k_mode = SplitKMode::Atomic; },
             "no split-K"},
            {[](KernelConfig& k) { k.block_per_cu = 2; }, "block_per_cu 2"},
            {[](KernelConfig& k) { k.vector_size_a = 4; }, "16-byte vectors"},
            {[](KernelConfig& k) { k.tile_k = 24; }, "tile_k 24"},
            {[](KernelConfig& k) { k.tile_n = 96; }, "tile_n 96"},
            {[](KernelConfig& k) { k.tile_m = 60, k.warp_tile_n = 60; }, "tile_m 60"},
            {[](KernelConfig& k) { k.tile_m = 264, k.warp_tile_n = 264; }, "tile_m 264"},
            {[](KernelConfig& k) { k.tile_n = 128; }, "accumulators"},
            {[](KernelConfig& k) { k.warp_tile_n = 64; }, "[16, tile_m, 16]"},
            {[](KernelConfig& k) { k.runtime_filter = true; }, "runtime_filter"},
            {[](KernelConfig& k) { k.cluster_n = 2; }, "cluster"},
        };
        for (const Case& c : cases) {
            KernelConfig k = base();
            c.change(k);
            const QString all = joined(rules_of(k, "sm_90a"));
            QVERIFY2(all.contains(c.says), qPrintable(QString(c.says) + " not in: " + all));
        }
    }

    void names_follow_the_traits_and_round_trip() {
        const KernelConfig k = base(32);
        QCOMPARE(parse_kernel_name(kernel_name(k)), k);
        QVERIFY(QString::fromStdString(kernel_name(k)).contains("_168x64x32_direct_wgmma_"));
        KernelConfig one = k;
        one.wave_m = 4;
        QVERIFY(kernel_name(one) != kernel_name(k));
        const std::string src = generate_kernel_source(k);
        QVERIFY(src.find("#include \"gconv_direct_wgmma.h\"") != std::string::npos);
        QVERIFY(src.find("kCin = 32;") != std::string::npos);
        QVERIFY(src.find("kConsumers = 2;") != std::string::npos);
        QVERIFY(src.find("kTileM = 168;") != std::string::npos);
        QVERIFY(generate_kernel_source(one).find("kConsumers = 1;") != std::string::npos);
    }

    void supports_dense_small_c_and_refuses_the_rest_by_name() {
        QVERIFY2(is_supported(base(32), dense(32, 64, 165, 165, 3, 0)).ok,
                 is_supported(base(32), dense(32, 64, 165, 165, 3, 0)).reason.c_str());
        QVERIFY(is_supported(narrow(64), dense(64, 192, 20, 300)).ok);
        QVERIFY(is_supported(base(16), dense(16, 64, 20, 30, 1, 0)).ok);
        Problem grouped = dense(64, 64, 20, 20);
        grouped.G = 2;
        QVERIFY(reason(base(32), grouped).startsWith("G:"));
        QVERIFY(reason(base(32), dense(64, 64, 20, 20)).startsWith("tile_k"));
        QVERIFY(reason(base(32), dense(32, 96, 20, 20)).startsWith("K:"));
        Problem strided = dense(32, 64, 20, 20);
        strided.stride_w = 2;
        QVERIFY(reason(base(32), strided).startsWith("stride_w"));
        Problem three = dense(32, 64, 8, 8);
        three.ndim_spatial = 3, three.Di = 4, three.Z = 3, three.pad_d = 1;
        QVERIFY(reason(base(32), three).startsWith("ndim_spatial"));
        KernelConfig bwd = base(32);
        bwd.variant = Variant::BwdData;
        QVERIFY(!is_supported(bwd, dense(32, 64, 20, 20)).ok);
        // A 7x7 filter slice of 64 x 64 channels is 392 KiB: no band fits beside it.
        QVERIFY(reason(narrow(64), dense(64, 64, 30, 30, 7, 3)).contains("shared memory"));
        // 168-pixel rows of C 64: even one-row bands do not fit beside the 3x3 filter slice.
        QVERIFY(reason(base(64), dense(64, 64, 30, 30)).contains("shared memory"));
        // A target that lets a block opt in to less refuses a band that fits in 227 KiB.
        QVERIFY(reason(narrow(64), dense(64, 64, 30, 30)).isEmpty());
        QVERIFY(is_supported(narrow(64), dense(64, 64, 30, 30), 32, k_max_piece_elements, 100000)
                    .reason.find("shared memory") != std::string::npos);
    }

    // Random problems: the plan's rows fit, come in whole rounds of the consumers where they
    // can, are what the kernel reads back from its shared memory, and the items cover every
    // output (image, row, column, channel) exactly once with bands that hold every input row
    // their taps read.
    void bands_fit_and_items_cover_every_output_once() {
        auto* rng = QRandomGenerator::global();
        int checked = 0;
        for (int trial = 0; trial < 300; ++trial) {
            KernelConfig k = base(16 * (1 + rng->bounded(4)));
            k.wave_m = 4 * (1 + rng->bounded(2));
            k.tile_m = 64 + 8 * rng->bounded(25);
            k.warp_tile_n = k.tile_m;
            k.tile_n = k.tile_m <= 128 && rng->bounded(2) ? 128 : 64;
            Problem p = dense(k.tile_k, k.tile_n * (1 + rng->bounded(3)), 1 + rng->bounded(40),
                              1 + rng->bounded(400), 1 + rng->bounded(5), rng->bounded(3));
            p.N = 1 + rng->bounded(3);
            p.X = 1 + rng->bounded(5);
            p.stride_h = 1 + rng->bounded(2);
            p.dilation_h = p.dilation_w = 1 + rng->bounded(2);
            if (!validate(p).empty() || !rules_of(k, "sm_90a").empty()) continue;
            const SupportCheck s = is_supported(k, p);
            if (!s.ok) {
                QVERIFY2(s.reason.find("shared memory") != std::string::npos, s.reason.c_str());
                continue;
            }
            const DirectWgmmaGeometry g = direct_wgmma_geometry(k, p);
            const LaunchPlan plan = plan_launch(k, p);
            const int64_t consumers = direct_wgmma_consumers(k);
            QVERIFY(g.rows >= 1 && g.rows <= k_direct_wgmma_max_rows);
            QVERIFY(g.rows < consumers || g.rows % consumers == 0);
            QVERIFY(plan.shared_bytes <= k_direct_wgmma_shared);
            QCOMPARE(plan.shared_bytes, g.shared_bytes);
            QCOMPARE(int64_t(plan.block_threads), 128 * consumers);
            QCOMPARE(rows_the_kernel_derives(k, p, plan.shared_bytes), g.rows);
            QCOMPARE(int64_t(plan.grid_x), g.items);
            // Items as the kernel's Walk::at numbers them: channel block fastest.
            std::vector<int> hits(p.N * p.Ho() * p.Wo() * p.K, 0);
            for (int64_t i = 0; i < g.items; ++i) {
                int64_t r = i;
                const int64_t kb = r % g.kblocks;
                r /= g.kblocks;
                const int64_t x0 = (r % g.col_tiles) * k.tile_m;
                r /= g.col_tiles;
                const int64_t r0 = (r % g.bands) * g.rows, n = r / g.bands;
                const int64_t ih0 = r0 * p.stride_h - p.pad_h;
                for (int64_t rr = 0; rr < g.rows && r0 + rr < p.Ho(); ++rr) {
                    for (int64_t dy = 0; dy < p.Y; ++dy) {
                        const int64_t band_row =
                            (r0 + rr) * p.stride_h - p.pad_h + dy * p.dilation_h - ih0;
                        QVERIFY(band_row >= 0 && band_row < g.band_rows);
                    }
                    for (int64_t x = x0; x < std::min(x0 + k.tile_m, p.Wo()); ++x)
                        for (int64_t c = kb * k.tile_n; c < (kb + 1) * k.tile_n; ++c)
                            ++hits[((n * p.Ho() + r0 + rr) * p.Wo() + x) * p.K + c];
                }
            }
            QVERIFY(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
            ++checked;
        }
        QVERIFY2(checked >= 50, qPrintable(QString::number(checked) + " problems checked"));
    }

    void runs_as_one_persistent_kernel_without_tensor_maps() {
        Problem p = dense(32, 128, 200, 90);
        p.N = 8;
        const LaunchSequence seq = plan_sequence(base(32), p);
        QCOMPARE(seq.steps.size(), std::size_t(1));
        const KernelStep& step = seq.steps.front().kernel;
        QVERIFY(step.persistent);
        QVERIFY(!step.wgmma_maps);
        QVERIFY(!step.workspace_arg);
        QCOMPARE(step.block_threads, 256u);
        QCOMPARE(seq.workspace_bytes, std::size_t(0));
        // At most one block per multiprocessor, all the items when fewer.
        QCOMPARE(step_grid(step, 132).x, 132u);
        QCOMPARE(step_grid(step, 100000).x, step.grid_x);
    }

    // Every tile of the exploration pool is legal on sm_90a (none is culled) and absent
    // elsewhere.
    void exploration_pool_enumerates_on_sm90a_only() {
        const auto& specs = default_arch_specs();
        const auto traits = load_trait_config(
            test::source_path("bench/configs/forward_direct_wgmma_explore.json").toStdString());
        const auto pool = enumerate_pool(traits, specs.get("sm_90a"), specs);
        QVERIFY2(pool.culled.empty(),
                 pool.culled.empty() ? "" : pool.culled.front().reasons.front().message.c_str());
        QCOMPARE(pool.kernels.size(), std::size_t(52));
        for (const auto& k : pool.kernels) QVERIFY(is_direct_wgmma(k));
        QVERIFY(enumerate_pool(traits, specs.get("sm_90"), specs).kernels.empty());
        // Each tile takes the probe shape of its C.
        const auto set = load_problem_set(
            test::source_path("scripts/device/direct_wgmma_problems.json").toStdString());
        for (const auto& k : pool.kernels) {
            int supported = 0;
            for (const auto& p : set.problems) supported += is_supported(k, p).ok ? 1 : 0;
            QVERIFY2(supported > 0, kernel_name(k).c_str());
        }
    }

    // The shipped pool: its kernel runs the holdout layer it won (xception.conv2, C 32 -> 64
    // under 3x3 over 165 x 165), on sm_90a only.
    void shipped_pool_runs_the_layer_it_won() {
        const auto& specs = default_arch_specs();
        const auto traits = load_trait_config(
            test::source_path("configs/forward_bf16_direct_wgmma.json").toStdString());
        const auto pool = enumerate_pool(traits, specs.get("sm_90a"), specs);
        QCOMPARE(pool.kernels.size(), std::size_t(1));
        QVERIFY(enumerate_pool(traits, specs.get("sm_90"), specs).kernels.empty());
        const auto set =
            load_problem_set(test::source_path("problems/validation_holdout.json").toStdString());
        int runs = 0;
        for (const auto& p : set.problems)
            if (p.layer.rfind("xception.conv2.", 0) == 0) {
                const SupportCheck s = is_supported(pool.kernels.front(), p);
                QVERIFY2(s.ok, s.reason.c_str());
                ++runs;
            }
        QCOMPARE(runs, 2);
    }
};

QTEST_APPLESS_MAIN(TestDirectWgmmaPlan)
#include "tst_direct_wgmma_plan.moc"
