// The staged K x K entries of the direct pipeline (direct + double_smem_buffer): which configs
// the rules keep, which problems they take and refuse with a reason, the tile geometry, grid
// and shared memory computed by hand for known shapes, tiles that cover every destination pixel
// of random problems, and the generated source (staged entries, no generic body).
#include "codegen/direct_plan.h"
#include "codegen/kernel_source.h"
#include "codegen/launch_sequence.h"
#include "config/kernel_name.h"
#include "depthwise_problem.h"
#include "refusals.h"
#include "rule_messages.h"

#include <QRandomGenerator>
#include <QtTest>

using namespace gconv;
using test::depthwise;
using test::joined;
using test::rules_of;

namespace {

// 8 warps, 32 channels in vectors of 8: 4 channel lanes x 64 pixel lanes, runs of 4 rows,
// rows (tile height factor) 1.
KernelConfig staged(Variant v = Variant::Forward) {
    KernelConfig c;
    c.variant = v;
    c.pipeline = Pipeline::Direct;
    c.double_smem_buffer = true;
    c.wave_m = 8, c.wave_n = 1, c.wave_k = 1;
    c.tile_n = 32, c.tile_k = 4, c.tile_m = 64 * 4;
    return c;
}

} // namespace

class TestDirectStagedPlan : public QObject {
    Q_OBJECT

private slots:
    void staged_configs_are_legal_for_2d_forward_and_bwd_data_only() {
        for (Variant v : {Variant::Forward, Variant::BwdData})
            QVERIFY2(rules_of(staged(v)).empty(), qPrintable(joined(rules_of(staged(v)))));
        KernelConfig weight = staged(Variant::BwdWeight);
        weight.split_k_mode = SplitKMode::Atomic;
        QVERIFY(joined(rules_of(weight)).contains("double_smem_buffer"));
        KernelConfig three = staged();
        three.ndim_spatial = 3;
        QVERIFY(joined(rules_of(three)).contains("double_smem_buffer"));
        // A run's sums are tile_k x vector (rows only sets the tile height): 8 x 8 is legal,
        // 16 x 8 is not.
        KernelConfig tall = staged();
        tall.tile_k = 8, tall.tile_m = 64 * 8 * 4;
        QVERIFY2(rules_of(tall).empty(), qPrintable(joined(rules_of(tall))));
        tall.tile_k = 16, tall.tile_m = 64 * 16;
        QVERIFY(joined(rules_of(tall)).contains("accumulators"));
        // Register caps down to 64 per thread: 8 warps x 4 blocks is legal, x 5 is not.
        KernelConfig capped = staged();
        capped.block_per_cu = 4;
        QVERIFY2(rules_of(capped).empty(), qPrintable(joined(rules_of(capped))));
        capped.block_per_cu = 5;
        QVERIFY(joined(rules_of(capped)).contains("block_per_cu"));
    }

    void names_carry_dsb_and_round_trip() {
        const std::string name = kernel_name(staged());
        QVERIFY2(name.ends_with("_dsb"), name.c_str());
        QCOMPARE(kernel_name(parse_kernel_name(name)), name);
    }

    void takes_depthwise_k_by_k_stride_1_and_refuses_the_rest_with_a_reason() {
        for (int f : {3, 5, 7}) {
            Problem p = depthwise(2, 64, 14, 14, f, f / 2);
            for (Variant v : {Variant::Forward, Variant::BwdData}) {
                const SupportCheck s = is_supported(staged(v), p);
                QVERIFY2(s.ok, s.reason.c_str());
                QCOMPARE(direct_entry_name(staged(v), p), direct_filter_entry_name(f));
            }
            // Stride 2 along H and W: forward through its `_s2` entries; bwd_data refuses it.
            p.stride_h = p.stride_w = 2;
            const SupportCheck s2 = is_supported(staged(), p);
            QVERIFY2(s2.ok, s2.reason.c_str());
            QCOMPARE(direct_entry_name(staged(), p), direct_filter_entry_name(f, 2));
            test::expect_refused(staged(Variant::BwdData), p, "stride");
        }
        test::expect_refusals(
            staged(), depthwise(2, 64, 14, 14, 3, 1),
            {{"stride", [](Problem& p) { p.stride_h = p.stride_w = 3; }},
             {"stride", [](Problem& p) { p.stride_w = 2; }},
             {"dilation",
              [](Problem& p) { p.dilation_h = p.dilation_w = 2, p.pad_h = p.pad_w = 2; }},
             {"filter", [](Problem& p) { p.X = 1, p.pad_w = 0; }},
             {"filter", [](Problem& p) { p.Y = p.X = 9, p.pad_h = p.pad_w = 4; }},
             {"C/G", [](Problem& p) { p.G = 32; }}});
        // Too large for two tiles: 128 channels x 16 pixel lanes, runs of 8 rows, 66 columns.
        KernelConfig big = staged();
        big.tile_n = 128, big.tile_k = 8, big.tile_m = 16 * 8 * 4;
        test::expect_refused(big, depthwise(1, 128, 64, 200, 3, 1), "shared memory");
    }

    // mbv2_dw144 (64 x 144 x 56 x 56, 3x3): 56 columns; 64 pixel lanes / 56 columns = 1 run of
    // 4 rows; 14 bands; 64 x 14 tiles, 2 per block; 144 / 32 -> 5 channel blocks along x too.
    void geometry_grid_and_shared_memory_of_a_known_shape() {
        const Problem p = depthwise(64, 144, 56, 56, 3, 1);
        const DirectStagedGeometry g = direct_staged_geometry(staged(), p);
        QCOMPARE(g.cols, int64_t{56});
        QCOMPARE(g.col_tiles, int64_t{1});
        QCOMPARE(g.rows, int64_t{4});
        QCOMPARE(g.bands, int64_t{14});
        QCOMPARE(g.tiles, int64_t{64 * 14});
        QCOMPARE(g.in_rows, int64_t{6});
        QCOMPARE(g.in_cols, int64_t{58});
        const LaunchPlan plan = plan_launch(staged(), p);
        QCOMPARE(plan.grid_x, 64u * 14 / 2 * 5);
        QCOMPARE(plan.grid_y, 1u);
        QCOMPARE(plan.block_threads, 256u);
        // fp32 filter 9 x 32 x 4 = 1152; two tiles of 6 x 58 x 32 bf16 = 22272 bytes.
        QCOMPARE(plan.shared_bytes, std::size_t{1152 + 2 * 22272});
        // rows 4 (tile_m 4 x 256): 4 x 64 / 56 = 4 runs of 4 rows per tile.
        KernelConfig tall = staged();
        tall.tile_m *= 4;
        QCOMPARE(direct_staged_geometry(tall, p).rows, int64_t{16});
        // bwd_data tiles dIn (pad 0: Hi = Ho + 2) and wide images split into 64-column tiles.
        const Problem wide = depthwise(1, 32, 10, 150, 3, 0);
        const DirectStagedGeometry b = direct_staged_geometry(staged(Variant::BwdData), wide);
        QCOMPARE(b.cols, int64_t{64});
        QCOMPARE(b.col_tiles, int64_t{3});
        QCOMPARE(b.rows, int64_t{4});
        QCOMPARE(b.bands, int64_t{3});
        QCOMPARE(direct_staged_geometry(staged(), wide).bands, int64_t{2}); // Ho = 8
    }

    // Stride 2 stages (rows - 1) x 2 + K input rows of (cols - 1) x 2 + K columns: mbv2's
    // features.7.dw (48 x 192 x 32 x 32, 3x3, pad 1 -> 16 x 16) with 4 warps of 16 channels
    // (2 channel lanes x 64 pixel lanes): 64 / 16 = 4 runs of 4 rows, one band of 16 rows.
    void stride_2_geometry_and_shared_memory() {
        Problem p = depthwise(48, 192, 32, 32, 3, 1);
        p.stride_h = p.stride_w = 2;
        KernelConfig k = staged();
        k.wave_m = 4, k.tile_n = 16, k.tile_k = 4, k.tile_m = 64 * 4;
        const DirectStagedGeometry g = direct_staged_geometry(k, p);
        QCOMPARE(g.cols, int64_t{16});
        QCOMPARE(g.rows, int64_t{16});
        QCOMPARE(g.bands, int64_t{1});
        QCOMPARE(g.tiles, int64_t{48});
        QCOMPARE(g.in_rows, int64_t{33});
        QCOMPARE(g.in_cols, int64_t{33});
        const LaunchPlan plan = plan_launch(k, p);
        QCOMPARE(plan.grid_x, 48u / 2 * 12);
        // fp32 filter 9 x 16 x 4 = 576; two tiles of 33 x 33 x 16 bf16 = 34848 bytes.
        QCOMPARE(plan.shared_bytes, std::size_t{576 + 2 * 34848});
        // Four times the input of a stride-1 tile: 8 warps of 32 channels are over the limit.
        test::expect_refused(staged(), p, "shared memory");
    }

    // Every destination pixel lies in exactly one tile of the grid: bands x column tiles x
    // images of the geometry cover H x W x N, the blocks cover the tiles, the channel blocks C.
    void tiles_cover_every_destination_pixel() {
        auto* rng = QRandomGenerator::global();
        for (int trial = 0; trial < 200; ++trial) {
            const int f = 3 + 2 * rng->bounded(3);
            const int pad = rng->bounded(f);
            Problem p = depthwise(1 + rng->bounded(5), 8 * (1 + rng->bounded(40)),
                                  f + rng->bounded(90), f + rng->bounded(200), f, pad);
            KernelConfig k = staged(rng->bounded(2) ? Variant::Forward : Variant::BwdData);
            k.tile_k = 1 << rng->bounded(4);                   // runs of 1 .. 8 rows
            k.tile_m = 64 * k.tile_k * (1 << rng->bounded(3)); // rows 1, 2, 4
            const SupportCheck s = is_supported(k, p);
            if (!s.ok) {
                QVERIFY2(s.reason.find("shared memory") != std::string::npos, s.reason.c_str());
                continue;
            }
            const bool bwd = k.variant == Variant::BwdData;
            const int64_t h = bwd ? p.Hi : p.Ho(), w = bwd ? p.Wi : p.Wo();
            const DirectStagedGeometry g = direct_staged_geometry(k, p);
            QCOMPARE(g.rows % k.tile_k, int64_t{0});
            QVERIFY(g.bands * g.rows >= h && (g.bands - 1) * g.rows < h);
            QVERIFY(g.col_tiles * g.cols >= w && (g.col_tiles - 1) * g.cols < w);
            QVERIFY(g.cols <= k_direct_staged_max_cols);
            QCOMPARE(g.tiles, p.N * g.bands * g.col_tiles);
            const LaunchPlan plan = plan_launch(k, p);
            const int64_t channel_blocks = (p.C + k.tile_n - 1) / k.tile_n;
            QCOMPARE(int64_t{plan.grid_x} % channel_blocks, int64_t{0});
            const int64_t walks = plan.grid_x / channel_blocks;
            QVERIFY(walks * k_direct_staged_walk >= g.tiles);
            QVERIFY((walks - 1) * k_direct_staged_walk < g.tiles);
            QCOMPARE(plan.grid_y, 1u);
            QVERIFY(plan.shared_bytes <= k_direct_staged_max_shared);
        }
    }

    void the_source_holds_the_staged_entries_only() {
        for (Variant v : {Variant::Forward, Variant::BwdData}) {
            const std::string src = generate_kernel_source(staged(v));
            QVERIFY(src.find("#include \"gconv_direct_staged.h\"") != std::string::npos);
            for (int f : k_direct_filters) {
                QVERIFY2(src.find(direct_filter_entry_name(f) + "(") != std::string::npos,
                         direct_filter_entry_name(f).c_str());
                // The stride-2 entries: forward's only.
                QCOMPARE(src.find(direct_filter_entry_name(f, 2) + "(") != std::string::npos,
                         v == Variant::Forward);
            }
            const std::string call = v == Variant::Forward ? "staged_forward<GconvConfig, "
                                                           : "staged_bwd_data<GconvConfig, ";
            QVERIFY(src.find(call) != std::string::npos);
            QVERIFY(src.find("gconv::arch::trap()") != std::string::npos);
            QVERIFY(src.find("gconv::direct::forward<") == std::string::npos);
            QVERIFY(src.find("kStagedWalk = " + std::to_string(k_direct_staged_walk)) !=
                    std::string::npos);
        }
    }
};

QTEST_APPLESS_MAIN(TestDirectStagedPlan)
#include "tst_direct_staged_plan.moc"
