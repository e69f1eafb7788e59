// The direct pipeline's rules, support checks and launch geometry: its legal kernels, the GEMM
// knobs it culls, the problems it takes (depthwise, small C/G) and those it rejects with a
// reason, and grids that cover every output pixel and channel of the shipped pools' problems.
#include "codegen/direct_plan.h"
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

using namespace gconv;
using test::joined;
using test::rules_of;

namespace {

// 4 warps of 32, 64 channels in vectors of 8: 8 channel lanes x 16 pixel lanes x 4 pixels.
KernelConfig direct_base(Variant v = Variant::Forward) {
    KernelConfig c;
    c.variant = v;
    c.pipeline = Pipeline::Direct;
    c.wave_m = 4, c.wave_n = 1, c.wave_k = 1;
    c.tile_n = 64, c.tile_k = 4, c.tile_m = 64;
    if (v == Variant::BwdWeight) c.split_k_mode = SplitKMode::Atomic;
    return c;
}

Problem depthwise(int64_t c, int64_t hw, int64_t f) {
    Problem p;
    p.N = 2, p.C = c, p.K = c, p.G = c, p.Hi = hw, p.Wi = hw, p.Y = f, p.X = f;
    p.pad_h = p.pad_w = f / 2;
    return p;
}

} // namespace

class TestDirectPlan : public QObject {
    Q_OBJECT

private slots:
    void base_configs_are_legal_in_every_direction() {
        for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight})
            QVERIFY2(rules_of(direct_base(v)).empty(),
                     qPrintable(joined(rules_of(direct_base(v)))));
    }

    void gemm_knobs_are_culled_with_a_reason() {
        struct Case {
            const char* needle;
            std::function<void(KernelConfig&)> change;
        };
        const std::vector<Case> cases = {
            {"wave_n", [](KernelConfig& c) { c.wave_m = 2, c.wave_n = 2; }},
            {"scheduler", [](KernelConfig& c) { c.scheduler = Scheduler::Interwave; }},
            {"epilogue", [](KernelConfig& c) { c.epilogue = Epilogue::Direct; }},
            {"warp tile", [](KernelConfig& c) { c.warp_tile_m = 16; }},
            // (double_smem_buffer is the staged entries: tst_direct_staged_plan)
            {"num_groups_to_merge", [](KernelConfig& c) { c.num_groups_to_merge = 2; }},
            {"split_image", [](KernelConfig& c) { c.split_image = true; }},
            {"pad_m", [](KernelConfig& c) { c.pad_n = false; }},
            {"vector_size_b", [](KernelConfig& c) { c.vector_size_b = 4; }},
            {"tile_m", [](KernelConfig& c) { c.tile_m = 96; }},        // 1.5 rows of 16 x 4 pixels
            {"tile_m", [](KernelConfig& c) { c.tile_m = 512; }},       // 8 rows
            {"accumulators", [](KernelConfig& c) { c.tile_m = 256; }}, // 4 rows x 4 x 8
            {"channel lanes", [](KernelConfig& c) { c.tile_n = 2048, c.tile_m = 1; }},
            {"accumulators", [](KernelConfig& c) { c.tile_k = 16, c.tile_m = 256; }},
            {"split-K",
             [](KernelConfig& c) { c.split_k = 4, c.split_k_mode = SplitKMode::Atomic; }},
        };
        for (const auto& k : cases) {
            KernelConfig c = direct_base();
            k.change(c);
            const auto reasons = rules_of(c);
            const QString all = joined(reasons);
            QVERIFY2(all.contains("direct_pipeline: ") && all.contains(k.needle),
                     qPrintable(QString("%1 -> %2").arg(k.needle, all)));
        }
        KernelConfig w = direct_base(Variant::BwdWeight);
        w.split_k_mode = SplitKMode::TwoStage;
        QVERIFY(joined(rules_of(w)).contains("atomically"));
    }

    void the_tile_relation_follows_the_warp_size() {
        // 4 warps of 64 on gfx90a: 32 pixel lanes, so tile_m 64 is wrong there and 128 right.
        QVERIFY(joined(rules_of(direct_base(), "gfx90a")).contains("tile_m"));
        KernelConfig c = direct_base();
        c.tile_m = 128;
        QVERIFY2(rules_of(c, "gfx90a").empty(), qPrintable(joined(rules_of(c, "gfx90a"))));
    }

    void rows_per_thread_follow_tile_m() {
        KernelConfig c = direct_base();
        QCOMPARE(direct_rows(c), 1);
        c.tile_m = 128, c.tile_k = 2; // 16 pixel lanes x 2 pixels x 4 rows
        QVERIFY2(rules_of(c).empty(), qPrintable(joined(rules_of(c))));
        QCOMPARE(direct_rows(c), 4);
        c.tile_k = 4; // 2 rows
        QCOMPARE(direct_rows(c), 2);
        QVERIFY(rules_of(c).empty());
        // bwd_data computes rows too; bwd_weight's tile_m is the reduction depth, one row.
        KernelConfig data = direct_base(Variant::BwdData);
        data.tile_m = 128;
        QVERIFY2(rules_of(data).empty(), qPrintable(joined(rules_of(data))));
        QCOMPARE(direct_rows(data), 2);
        QVERIFY(is_supported(data, depthwise(64, 14, 3)).ok);
        data.tile_m = 96;
        QVERIFY(joined(rules_of(data)).contains("tile_m"));
        KernelConfig weight = direct_base(Variant::BwdWeight);
        weight.tile_m = 128;
        QVERIFY(joined(rules_of(weight)).contains("tile_m"));
        QVERIFY(!is_supported(weight, depthwise(64, 14, 3)).ok);
    }

    // A run that knows its problems builds only the filter entries their launches name; the
    // main entry is always there, and without problems every entry is.
    void modules_hold_the_entries_their_problems_launch() {
        const KernelConfig k = direct_base();
        auto has = [](const std::string& source, const std::string& entry) {
            return source.find(" " + entry + "(") != std::string::npos ||
                   source.find("\n" + entry + "(") != std::string::npos;
        };
        const std::string every = generate_kernel_source(k);
        for (int f : {3, 5, 7}) QVERIFY(has(every, "gconv_direct_k" + std::to_string(f)));
        ModuleEntries e{false, {}};
        note_entries(k, depthwise(64, 14, 3), e);
        QVERIFY(e.holds("gconv_direct_k3") && !e.holds("gconv_direct_k5"));
        std::string source = generate_kernel_source(k, e);
        QVERIFY(has(source, std::string(kernel_entry_name())));
        QVERIFY(has(source, "gconv_direct_k3"));
        QVERIFY(!has(source, "gconv_direct_k5") && !has(source, "gconv_direct_k7"));
        note_entries(k, depthwise(64, 14, 7), e);
        source = generate_kernel_source(k, e);
        QVERIFY(has(source, "gconv_direct_k3") && has(source, "gconv_direct_k7"));
        QVERIFY(!has(source, "gconv_direct_k5"));
        QVERIFY(source.size() < every.size());
        // A module's text is its cache key: fewer entries, another key.
        QVERIFY(source != every);
        // The generic entry holds the C/G widths noted (bit b: C/G 2^b), every one by default;
        // problems that run K x K entries note none (the generic entry is never launched).
        QVERIFY(every.find("kCpgMask = 15;") != std::string::npos);
        QVERIFY(source.find("kCpgMask = 0;") != std::string::npos);
        KernelConfig grouped = k;
        ModuleEntries g{false, {}};
        Problem four = depthwise(64, 14, 3);
        four.G = 16; // C/G 4
        note_entries(grouped, four, g);
        QCOMPARE(main_entry_name(grouped, four), std::string(kernel_entry_name()));
        QVERIFY(g.holds_cpg(4) && !g.holds_cpg(1) && !g.holds_cpg(8));
        QVERIFY(generate_kernel_source(grouped, g).find("kCpgMask = 4;") != std::string::npos);
        // A stride-2 depthwise problem runs the generic entry: its width is noted.
        Problem strided = depthwise(64, 14, 3);
        strided.stride_h = strided.stride_w = 2;
        note_entries(k, strided, e);
        QVERIFY(generate_kernel_source(k, e).find("kCpgMask = 1;") != std::string::npos);
        // The entry noted is the one the launch sequence names, for 3D problems that are 2D
        // problems too (codegen/fold_to_2d.h): a batch depth keeps the 3 x 3 entry, a 3 x 1 x 1
        // filter folds to a 3 x 1 one, which the generic entry runs.
        for (int f : {1, 3, 5, 7, 9}) {
            const Problem p = depthwise(64, 14, f);
            QCOMPARE(main_entry_name(k, p), plan_sequence(k, p).steps.back().kernel.entry);
        }
        Problem deep = depthwise(64, 14, 3);
        deep.ndim_spatial = 3, deep.Di = 4;
        QCOMPARE(main_entry_name(k, deep), main_entry_name(k, depthwise(64, 14, 3)));
        QCOMPARE(main_entry_name(k, deep), plan_sequence(k, deep).steps.back().kernel.entry);
        Problem temporal = depthwise(64, 14, 1);
        temporal.ndim_spatial = 3, temporal.Di = 6, temporal.Z = 3, temporal.pad_d = 1;
        QCOMPARE(main_entry_name(k, temporal), std::string(kernel_entry_name()));
        QCOMPARE(main_entry_name(k, temporal),
                 plan_sequence(k, temporal).steps.back().kernel.entry);
    }

    // bwd_weight's generic entry holds the (C/G, row taps) pairs its problems reduce (bit
    // 4 log2(C/G) + i for taps 1, 3, 5, 7), every pair by default; K x K strip problems none.
    void bwd_weight_modules_hold_the_row_taps_their_problems_reduce() {
        const KernelConfig k = direct_base(Variant::BwdWeight);
        QVERIFY(generate_kernel_source(k).find("kRowTapsMask = 65535;") != std::string::npos);
        ModuleEntries e{false, {}};
        Problem five = depthwise(64, 14, 5); // vector 8: 5 x 8 x 1 sums fit, a row of 5 taps
        five.stride_h = five.stride_w = 2;
        QCOMPARE(main_entry_name(k, five), std::string(kernel_entry_name()));
        note_entries(k, five, e);
        QVERIFY(e.holds_row_taps(1, 5) && !e.holds_row_taps(1, 3) && !e.holds_row_taps(1, 1));
        Problem grouped = depthwise(64, 14, 3); // C/G 8: 3 x 8 x 8 sums do not fit, one tap
        grouped.G = 8;
        note_entries(k, grouped, e);
        QVERIFY(e.holds_row_taps(8, 1) && !e.holds_row_taps(8, 3));
        const std::string source = generate_kernel_source(k, e);
        QVERIFY2(source.find("kRowTapsMask = " + std::to_string((1 << 2) | (1 << 12)) + ";") !=
                     std::string::npos,
                 source.c_str());
        QVERIFY(source.find("kCpgMask = 9;") != std::string::npos);
        // A strip problem (depthwise 3x3, stride 1) notes its K x K entry only.
        ModuleEntries strip{false, {}};
        note_entries(k, depthwise(64, 14, 3), strip);
        QVERIFY(strip.holds("gconv_direct_k3") && strip.row_taps.empty() && strip.cpgs.empty());
    }

    void forward_entries_follow_the_filter() {
        auto* rng = QRandomGenerator::global();
        const int64_t c = 8 * (1 + rng->bounded(40)), hw = 8 + rng->bounded(30);
        const KernelConfig k = direct_base();
        auto entry = [&](const Problem& p) {
            return QString::fromStdString(plan_sequence(k, p).steps.back().kernel.entry);
        };
        for (int f : {3, 5, 7})
            QCOMPARE(entry(depthwise(c, hw, f)), QString("gconv_direct_k%1").arg(f));
        const QString generic = QString::fromStdString(std::string(kernel_entry_name()));
        QCOMPARE(entry(depthwise(c, hw, 1)), generic);
        QCOMPARE(entry(depthwise(c, hw, 9)), generic);
        Problem strided = depthwise(c, hw, 3);
        strided.stride_w = 2;
        QCOMPARE(entry(strided), generic);
        Problem dilated = depthwise(c, hw, 3);
        dilated.dilation_h = 2;
        QCOMPARE(entry(dilated), generic);
        Problem oblong = depthwise(c, hw, 3);
        oblong.X = 5, oblong.pad_w = 2;
        QCOMPARE(entry(oblong), generic);
        Problem grouped = depthwise(128, hw, 3);
        grouped.G = 32; // C/G = 4
        QCOMPARE(entry(grouped), generic);
        // Every entry a plan may name is in the module.
        const std::string source = generate_kernel_source(k);
        for (int f : k_direct_filters)
            QVERIFY(source.find(direct_filter_entry_name(f) + "(gconv::ConvParams p)") !=
                    std::string::npos);
        QVERIFY(source.find(std::string(kernel_entry_name()) + "(gconv::ConvParams p)") !=
                std::string::npos);
    }

    // bwd_data runs the forward window over dOut where every stride is 1 (D included).
    void bwd_data_entries_follow_the_filter_and_stride() {
        auto* rng = QRandomGenerator::global();
        const int64_t c = 8 * (1 + rng->bounded(40)), hw = 8 + rng->bounded(30);
        const KernelConfig k = direct_base(Variant::BwdData);
        auto entry = [&](const Problem& p) {
            return QString::fromStdString(plan_sequence(k, p).steps.back().kernel.entry);
        };
        const QString generic = QString::fromStdString(std::string(kernel_entry_name()));
        for (int f : {3, 5, 7})
            QCOMPARE(entry(depthwise(c, hw, f)), QString("gconv_direct_k%1").arg(f));
        Problem strided = depthwise(c, hw, 3);
        strided.stride_h = 2;
        QCOMPARE(entry(strided), generic);
        KernelConfig k3 = k;
        k3.ndim_spatial = 3;
        Problem vol = depthwise(c, hw, 3);
        vol.ndim_spatial = 3, vol.Di = 6, vol.Z = 3, vol.pad_d = 1;
        QCOMPARE(QString::fromStdString(plan_sequence(k3, vol).steps.back().kernel.entry),
                 QString("gconv_direct_k3"));
        vol.stride_d = 2;
        QCOMPARE(QString::fromStdString(plan_sequence(k3, vol).steps.back().kernel.entry), generic);
        const std::string source = generate_kernel_source(k);
        for (int f : k_direct_filters)
            QVERIFY(source.find(direct_filter_entry_name(f) + "(gconv::ConvParams p, void*") !=
                    std::string::npos);
    }

    // bwd_weight's K x K entries exist where K x K x vector sums fit and tile_k is whole
    // strips of 4 columns, 2D only; the module holds exactly the entries the plan can name.
    void bwd_weight_entries_follow_the_filter_and_fit() {
        auto* rng = QRandomGenerator::global();
        const int64_t c = 8 * (1 + rng->bounded(40)), hw = 8 + rng->bounded(30);
        const QString generic = QString::fromStdString(std::string(kernel_entry_name()));
        for (int vec : {8, 4, 2})
            for (int tile_k : {4, 2, 32}) {
                KernelConfig k = direct_base(Variant::BwdWeight);
                k.vector_size_a = k.vector_size_b = k.vector_size_c = vec;
                k.tile_n = 8 * vec, k.tile_k = tile_k, k.tile_m = 16 * tile_k;
                QVERIFY2(rules_of(k).empty(), qPrintable(joined(rules_of(k))));
                const std::string source = generate_kernel_source(k);
                for (int f : k_direct_filters) {
                    const bool fits = tile_k % 4 == 0 && f * f * vec <= 100;
                    QCOMPARE(direct_weight_strip_fits(k, f), fits);
                    const LaunchSequence s = plan_sequence(k, depthwise(c, hw, f));
                    QCOMPARE(QString::fromStdString(s.steps[1].kernel.entry),
                             fits ? QString("gconv_direct_k%1").arg(f) : generic);
                    QCOMPARE(source.find(direct_filter_entry_name(f) + "(") != std::string::npos,
                             fits);
                }
            }
        KernelConfig k3 = direct_base(Variant::BwdWeight);
        k3.ndim_spatial = 3;
        QVERIFY(generate_kernel_source(k3).find("gconv_direct_k") == std::string::npos);
        Problem strided = depthwise(c, hw, 3);
        strided.stride_w = 2;
        QCOMPARE(QString::fromStdString(
                     plan_sequence(direct_base(Variant::BwdWeight), strided).steps[1].kernel.entry),
                 generic);
    }

    void names_are_unique_and_round_trip() {
        const KernelConfig c = direct_base(Variant::BwdWeight);
        QCOMPARE(parse_kernel_name(kernel_name(c)), c);
        KernelConfig gemm = c;
        gemm.pipeline = Pipeline::CompV3;
        QVERIFY(kernel_name(gemm) != kernel_name(c));
    }

    void supports_depthwise_and_small_groups_and_rejects_the_rest() {
        auto* rng = QRandomGenerator::global();
        const int64_t c = 8 * (1 + rng->bounded(40)), hw = 5 + rng->bounded(30);
        const KernelConfig k = direct_base();
        QVERIFY2(is_supported(k, depthwise(c, hw, 3)).ok,
                 qPrintable(QString::fromStdString(is_supported(k, depthwise(c, hw, 3)).reason)));
        Problem small = depthwise(128, hw, 3);
        small.G = 32; // C/G = K/G = 4
        QVERIFY(is_supported(k, small).ok);
        auto reason = [&](Problem p) { return QString::fromStdString(is_supported(k, p).reason); };
        Problem mult = depthwise(c, hw, 3);
        mult.K = 2 * c; // channel multiplier 2
        QVERIFY(reason(mult).startsWith("K/G"));
        Problem cpg3 = depthwise(24, hw, 3);
        cpg3.G = 8;
        QVERIFY(reason(cpg3).contains("whole groups"));
        // 16 channels per group, over the vector of 8 (C drawn as a multiple of 16 so the
        // groups are whole and only the vector rule can refuse).
        Problem wide = depthwise(16 * (1 + rng->bounded(20)), hw, 3);
        wide.G = wide.C / 16;
        QVERIFY2(reason(wide).contains("whole groups"), qPrintable(reason(wide)));
        QVERIFY(reason(depthwise(c + 4, hw, 3)).contains("does not divide C"));
        // A 31x31 depthwise filter over 64 channels stages 246 KB of fp32 weights.
        QVERIFY(reason(depthwise(64, 40, 31)).contains("shared memory"));
    }

    void grids_cover_every_pixel_and_channel() {
        auto* rng = QRandomGenerator::global();
        for (int trial = 0; trial < 20; ++trial) {
            const int f = 1 + 2 * rng->bounded(4);
            Problem p = depthwise(8 * (1 + rng->bounded(30)), f + rng->bounded(40), f);
            p.N = 1 + rng->bounded(4);
            p.stride_h = p.stride_w = 1 + rng->bounded(2);
            for (int band : {1, 2, 4})
                for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight}) {
                    if (v == Variant::BwdWeight && band > 1) continue;
                    KernelConfig k = direct_base(v);
                    if (band == 4) k.tile_k = 2;
                    k.tile_m = 16 * k.tile_k * band;
                    QVERIFY(is_supported(k, p).ok);
                    const LaunchPlan plan = plan_launch(k, p);
                    // Pixel blocks x channel blocks along x, the channel block fastest.
                    const int64_t channel_blocks = (p.C + k.tile_n - 1) / k.tile_n;
                    QCOMPARE(int64_t{plan.grid_x} % channel_blocks, int64_t{0});
                    const int64_t blocks = plan.grid_x / channel_blocks;
                    QCOMPARE(plan.grid_y, 1u);
                    const int64_t lanes = 128 / 8;
                    const int64_t w = v == Variant::BwdData ? p.Wi : p.Wo();
                    const int64_t h = v == Variant::BwdData ? p.Hi : p.Ho();
                    const int64_t rows = p.N * ((h + band - 1) / band) * band;
                    if (v == Variant::BwdWeight && direct_filter(k, p) > 0) {
                        // Strips of 4 columns over tile_k / 4 rows per pixel lane.
                        const int64_t strip_rows = k.tile_k / 4, taps = p.Y * p.X;
                        const int64_t strips =
                            p.N * ((p.Ho() + strip_rows - 1) / strip_rows) * ((p.Wo() + 3) / 4);
                        QVERIFY(blocks * lanes >= strips);
                        QVERIFY((blocks - 1) * lanes < strips);
                        QCOMPARE(plan.shared_bytes, std::size_t(taps * k.tile_n * 4));
                    } else if (v == Variant::BwdWeight) {
                        const int64_t taps = p.Y * p.X / direct_row_taps(k, p);
                        QVERIFY(blocks * k.tile_m >= taps * rows * w);
                        QCOMPARE(blocks % taps, int64_t{0});
                        QCOMPARE(plan.shared_bytes, std::size_t{0});
                    } else {
                        // A pixel lane covers band rows of tile_k pixels.
                        const int64_t per_block = lanes * k.tile_k * band;
                        QVERIFY(blocks * per_block >= rows * w);
                        QVERIFY((blocks - 1) * per_block < rows * (w + k.tile_k));
                        QCOMPARE(plan.shared_bytes, std::size_t(k.tile_n * p.Y * p.X * 4));
                    }
                    QCOMPARE(plan.block_threads, 128u);
                }
        }
    }

    // bf16: the fp32 dW and a ticket per channel block in a zeroed workspace, no finish kernel
    // (the last block of each channel block converts its slice).
    void bwd_weight_zeroes_a_workspace_its_last_blocks_convert() {
        const Problem p = depthwise(64, 14, 3);
        const KernelConfig k = direct_base(Variant::BwdWeight);
        const LaunchSequence bf16 = plan_sequence(k, p);
        QCOMPARE(bf16.steps.size(), std::size_t{2});
        QCOMPARE(bf16.steps[0].kind, LaunchStep::Kind::Memset);
        QCOMPARE(bf16.steps[0].memset.bytes, bf16.workspace_bytes);
        const int64_t tickets = (p.C + k.tile_n - 1) / k.tile_n;
        QCOMPARE(bf16.workspace_bytes,
                 std::size_t(p.weight_elements() * 4 + (tickets + 3) / 4 * 16));
        QCOMPARE(bf16.steps[1].kind, LaunchStep::Kind::Kernel);
        QVERIFY(!has_finish_kernel(k));
        QVERIFY(generate_kernel_source(k).find(std::string(finish_entry_name()) + "(") ==
                std::string::npos);
        KernelConfig f32 = direct_base(Variant::BwdWeight);
        f32.dtype = DataType::FP32, f32.vector_size_a = f32.vector_size_b = f32.vector_size_c = 4;
        f32.tile_n = 32, f32.warp_tile_k = 4;
        const LaunchSequence s = plan_sequence(f32, p);
        QCOMPARE(s.steps.size(), std::size_t{2});
        QCOMPARE(s.steps[0].memset.buffer, LaunchBuffer::Weight);
    }

    void shipped_direct_pools_run_the_depthwise_validation_shapes() {
        const auto& specs = default_arch_specs();
        for (const char* dir : {"forward", "bwd_data", "bwd_weight"}) {
            const auto traits = load_trait_config(
                test::source_path(QString("configs/%1_direct.json").arg(dir)).toStdString());
            const auto pool = enumerate_pool(traits, specs.get("sm_90"), specs);
            QVERIFY2(pool.kernels.size() >= 10 && pool.kernels.size() <= 120,
                     qPrintable(
                         QString("%1_direct.json: %2 kernels").arg(dir).arg(pool.kernels.size())));
            for (const char* nd : {"2d", "3d"}) {
                const auto set = load_problem_set(
                    test::source_path(QString("problems/%1_%2_test_validation.json").arg(dir, nd))
                        .toStdString());
                int depthwise_shapes = 0, covered = 0;
                for (const auto& p : set.problems) {
                    if (p.G != p.C || p.K != p.C) continue;
                    ++depthwise_shapes;
                    for (const auto& k : pool.kernels)
                        if (is_supported(k, p).ok) {
                            ++covered;
                            break;
                        }
                }
                QVERIFY2(depthwise_shapes > 0 && covered == depthwise_shapes,
                         qPrintable(QString("%1 %2: %3 of %4")
                                        .arg(dir, nd)
                                        .arg(covered)
                                        .arg(depthwise_shapes)));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestDirectPlan)
#include "tst_direct_plan.moc"
