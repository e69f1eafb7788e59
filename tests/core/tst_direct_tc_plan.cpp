// The tensor-core K x K entries of the direct pipeline (warp tile 16x8x16): which configs the
// rules keep, which problems they take and refuse with a reason, the tile geometry, grid and
// shared memory computed by hand for a known shape, tiles that cover every destination pixel of
// random problems, and the generated source (tensor-core entries, no generic body).
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

// 4 warps, 16 channels, one m16 row block, tiles up to 64 columns wide.
KernelConfig tc(Variant v = Variant::Forward) {
    KernelConfig c;
    c.variant = v;
    if (v == Variant::BwdWeight) c.split_k_mode = SplitKMode::Atomic;
    c.pipeline = Pipeline::Direct;
    c.warp_tile_m = 16, c.warp_tile_n = 8, c.warp_tile_k = 16;
    c.wave_m = 4, c.wave_n = 1, c.wave_k = 1;
    c.tile_n = 16, c.tile_k = 1, c.tile_m = 1024;
    c.vector_size_a = c.vector_size_b = c.vector_size_c = 8;
    return c;
}

} // namespace

class TestDirectTcPlan : public QObject {
    Q_OBJECT

private slots:
    void tc_configs_are_legal_for_16_bit_2d_on_nvidia_only() {
        for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight}) {
            QVERIFY2(rules_of(tc(v)).empty(), qPrintable(joined(rules_of(tc(v)))));
            KernelConfig half = tc(v);
            half.dtype = DataType::FP16;
            QVERIFY2(rules_of(half).empty(), qPrintable(joined(rules_of(half))));
        }
        QVERIFY(joined(rules_of(tc(), "gfx90a")).contains("mma_sync"));
        struct Case {
            const char* needle;
            std::function<void(KernelConfig&)> change;
        };
        const std::vector<Case> culled = {
            {"bf16 / fp16",
             [](KernelConfig& c) {
                 c.dtype = DataType::FP32;
                 c.vector_size_a = c.vector_size_b = c.vector_size_c = 4;
             }},
            {"atomic", [](KernelConfig& c) { c.variant = Variant::BwdWeight; }},
            {"split-K", [](KernelConfig& c) { c.split_k_mode = SplitKMode::Atomic; }},
            {"2D", [](KernelConfig& c) { c.ndim_spatial = 3; }},
            {"double_smem_buffer", [](KernelConfig& c) { c.double_smem_buffer = true; }},
            {"16 bytes",
             [](KernelConfig& c) { c.vector_size_a = c.vector_size_b = c.vector_size_c = 4; }},
            {"8-channel", [](KernelConfig& c) { c.tile_n = 12; }},
            {"tile_k", [](KernelConfig& c) { c.tile_k = 3, c.tile_m = 48 * 16; }},
            {"columns", [](KernelConfig& c) { c.tile_m = 16 * 24; }},
            {"columns", [](KernelConfig& c) { c.tile_m = 16 * 128; }},
            // 8 warps x 4 blocks leave 64 registers: the entries need about 130.
            {"registers", [](KernelConfig& c) { c.wave_m = 8, c.block_per_cu = 4; }},
        };
        for (const Case& k : culled) {
            KernelConfig c = tc();
            k.change(c);
            QVERIFY2(joined(rules_of(c)).contains(k.needle),
                     qPrintable(QString(k.needle) + ": " + joined(rules_of(c))));
        }
        // Another warp tile stays a GEMM knob the direct pipeline does not have.
        KernelConfig other = tc();
        other.warp_tile_n = 16;
        QVERIFY(joined(rules_of(other)).contains("warp tile"));
    }

    void names_carry_the_warp_tile_and_round_trip() {
        const std::string name = kernel_name(tc());
        QVERIFY2(name.find("_wt16x8x16_") != std::string::npos, name.c_str());
        QCOMPARE(kernel_name(parse_kernel_name(name)), name);
        QVERIFY(is_direct_tc(parse_kernel_name(name)));
        QVERIFY(!is_direct_tc(parse_kernel_name(kernel_name([] {
            KernelConfig c = tc();
            c.warp_tile_m = c.warp_tile_n = 32;
            return c;
        }()))));
    }

    void takes_depthwise_k_by_k_stride_1_and_refuses_the_rest_with_a_reason() {
        for (int f : {3, 5, 7}) {
            const Problem p = depthwise(2, 64, 14, 14, f, f / 2);
            for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight}) {
                const SupportCheck s = is_supported(tc(v), p);
                QVERIFY2(s.ok, s.reason.c_str());
                // bwd_weight's entry reads K at run time: one entry for every filter size.
                QCOMPARE(direct_entry_name(tc(v), p),
                         direct_filter_entry_name(direct_entry_filter(tc(v), f)));
            }
        }
        QCOMPARE(direct_filter_entry_name(k_direct_any_filter), std::string("gconv_direct_kx"));
        QCOMPARE(direct_entry_filter(tc(Variant::BwdWeight), 5), k_direct_any_filter);
        QCOMPARE(direct_entry_filter(tc(Variant::Forward), 5), 5);
        // Every direction also takes stride 2 along H and W, through entries of their own.
        for (int f : {3, 5, 7}) {
            Problem p = depthwise(2, 64, 28, 28, f, f / 2);
            p.stride_h = p.stride_w = 2;
            for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight}) {
                // bwd_weight stages two phases x two copies of (TH - 1) x 2 + K input rows: 8
                // channels fit, 16 do not.
                KernelConfig k = tc(v);
                if (v == Variant::BwdWeight) k.tile_n = 8;
                const SupportCheck s = is_supported(k, p);
                QVERIFY2(s.ok, s.reason.c_str());
                const std::string entry = direct_filter_entry_name(direct_entry_filter(k, f), 2);
                QCOMPARE(direct_entry_name(k, p), entry);
                QCOMPARE(plan_sequence(k, p).steps[v == Variant::BwdWeight ? 1 : 0].kernel.entry,
                         entry);
            }
        }
        test::expect_refusals(
            tc(), depthwise(2, 64, 14, 14, 3, 1),
            {{"stride", [](Problem& p) { p.stride_h = p.stride_w = 3; }},
             {"stride", [](Problem& p) { p.stride_w = 2; }},
             {"dilation",
              [](Problem& p) { p.dilation_h = p.dilation_w = 2, p.pad_h = p.pad_w = 2; }},
             {"filter", [](Problem& p) { p.X = 1, p.pad_w = 0; }},
             {"filter", [](Problem& p) { p.Y = p.X = 9, p.pad_h = p.pad_w = 4; }},
             {"C/G", [](Problem& p) { p.G = 32; }},
             {"C = 20", [](Problem& p) { p.C = p.K = p.G = 20; }}});
        // 64 channels x 4 row blocks: 64 planes of 70 x 72 elements are over the limit.
        KernelConfig big = tc();
        big.tile_n = 64, big.tile_k = 4, big.tile_m = 64 * 64;
        test::expect_refused(big, depthwise(1, 64, 128, 128, 7, 3), "shared memory");
    }

    // convnext_dw96_7x7 (32 x 96 x 56 x 56, 7x7 pad 3): 56 columns round up to 64 (one column
    // tile), 16-row bands: 4; 32 x 4 tiles; 96 / 16 -> 6 channel blocks along x too.
    void geometry_grid_and_shared_memory_of_a_known_shape() {
        const Problem p = depthwise(32, 96, 56, 56, 7, 3);
        const DirectTcGeometry g = direct_tc_geometry(tc(), p);
        QCOMPARE(g.rows, int64_t{16});
        QCOMPARE(g.cols, int64_t{64});
        QCOMPARE(g.bands, int64_t{4});
        QCOMPARE(g.col_tiles, int64_t{1});
        QCOMPARE(g.tiles, int64_t{32 * 4});
        QCOMPARE(g.in_rows, int64_t{22});
        QCOMPARE(g.row_stride, int64_t{72});
        const LaunchPlan plan = plan_launch(tc(), p);
        QCOMPARE(plan.grid_x, 32u * 4 * 6);
        QCOMPARE(plan.grid_y, 1u);
        QCOMPARE(plan.block_threads, 128u);
        // 16 planes of 22 x 72 bf16 = 50688 bytes; 16 channels x 7 filter rows x 96 = 10752.
        QCOMPARE(plan.shared_bytes, std::size_t{50688 + 10752});
        // 14 x 14 images: one 16 x 16 tile each; two row blocks make 32-row bands.
        const Problem small = depthwise(32, 384, 14, 14, 7, 3);
        QCOMPARE(direct_tc_geometry(tc(), small).cols, int64_t{16});
        KernelConfig two = tc();
        two.tile_k = 2, two.tile_m = 2048;
        QCOMPARE(direct_tc_geometry(two, small).rows, int64_t{32});
        QCOMPARE(direct_tc_geometry(two, small).tiles, int64_t{32});
        // bwd_data tiles dIn; wide images split into 64-column tiles.
        const Problem wide = depthwise(1, 32, 10, 150, 3, 0);
        const DirectTcGeometry b = direct_tc_geometry(tc(Variant::BwdData), wide);
        QCOMPARE(b.cols, int64_t{64});
        QCOMPARE(b.col_tiles, int64_t{3});
        QCOMPARE(b.bands, int64_t{1});
    }

    // Forward stride 2: 16-row bands read 2 x 15 + K source rows, staged by parity (two row
    // phases of ceil(in_rows / 2) rows), each as two column phases with their own filter rows.
    void stride_2_geometry_and_shared_memory() {
        Problem p = depthwise(32, 96, 112, 112, 3, 1); // 56 x 56 out
        p.stride_h = p.stride_w = 2;
        const DirectTcGeometry g = direct_tc_geometry(tc(), p);
        QCOMPARE(g.cols, int64_t{64});
        QCOMPARE(g.bands, int64_t{4});
        QCOMPARE(g.in_rows, int64_t{33});
        QCOMPARE(g.phase_rows, int64_t{17});
        QCOMPARE(g.plane_rows, int64_t{34});
        // 16 channels x 2 column phases x (34 x 72 bf16 + 3 filter rows x 96 bytes).
        QCOMPARE(plan_launch(tc(), p).shared_bytes, std::size_t{16 * 2 * (34 * 72 * 2 + 3 * 96)});
        QCOMPARE(direct_tc_geometry(tc(), depthwise(32, 96, 56, 56, 3, 1)).plane_rows, int64_t{18});
        // bwd_data: the four phases over a 56 x 56 grid of dIn's 112 x 112; 3x3 pad 1 reads one
        // dOut row past the tile (data_s2_axis: span 1); 16 planes of 17 x 72 and per channel
        // four phases x 2 tap rows of filter rows.
        const DirectTcGeometry d = direct_tc_geometry(tc(Variant::BwdData), p);
        QCOMPARE(d.cols, int64_t{64});
        QCOMPARE(d.bands, int64_t{4});
        QCOMPARE(d.in_rows, int64_t{17});
        QCOMPARE(plan_launch(tc(Variant::BwdData), p).shared_bytes,
                 std::size_t{16 * (17 * 72 * 2 + 4 * 2 * 96)});
        const direct_tc::DataS2Axis axis = direct_tc::data_s2_axis(3, 1);
        QCOMPARE(axis.taps[0], 1); // even dIn rows: tap 1 only
        QCOMPARE(axis.taps[1], 2); // odd rows: taps 0 and 2
        QCOMPARE(axis.span, 1);
    }

    // bwd_weight tiles dOut: the dOut rows and a zero row, two copies of the input rows and the
    // fp32 sums; the sequence zeroes the fp32 workspace (dW and a ticket per channel block) and
    // runs the K x K entry, whose last block per channel block converts.
    void bwd_weight_geometry_shared_memory_and_sequence() {
        const Problem p = depthwise(32, 96, 56, 56, 7, 3);
        KernelConfig k = tc(Variant::BwdWeight);
        k.tile_n = 8;
        const DirectTcGeometry g = direct_tc_geometry(k, p);
        QCOMPARE(g.cols, int64_t{64});
        QCOMPARE(g.tiles, int64_t{32 * 4});
        // 8 x (17 x 72 + 22 x 2 x 72) bf16 = 70272 bytes; 8 channels x 49 taps x 4 = 1568.
        QCOMPARE(plan_launch(k, p).shared_bytes, std::size_t{70272 + 1568});
        QCOMPARE(plan_launch(k, p).grid_x, 32u * 4 * 12);
        // 16 channels need 143680 bytes: over the limit, refused with the reason.
        test::expect_refused(tc(Variant::BwdWeight), p, "shared memory");
        const LaunchSequence seq = plan_sequence(k, p);
        QCOMPARE(seq.workspace_bytes, std::size_t(96 * 49 * 4 + 3 * 16)); // 12 tickets
        QCOMPARE(seq.steps.size(), std::size_t{2});
        QCOMPARE(seq.steps[1].kernel.entry, direct_filter_entry_name(k_direct_any_filter));
    }

    // Every destination pixel lies in exactly one tile: bands x column tiles x images cover
    // H x W x N, the blocks cover tiles x channel blocks.
    void tiles_cover_every_destination_pixel() {
        auto* rng = QRandomGenerator::global();
        for (int trial = 0; trial < 200; ++trial) {
            const int f = 3 + 2 * rng->bounded(3);
            Problem p = depthwise(1 + rng->bounded(5), 8 * (1 + rng->bounded(40)),
                                  f + rng->bounded(90), f + rng->bounded(200), f, rng->bounded(f));
            KernelConfig k = tc(static_cast<Variant>(rng->bounded(3)));
            p.stride_h = p.stride_w = 1 + rng->bounded(2);
            k.tile_k = 1 << rng->bounded(3);
            k.tile_m = 16 * k.tile_k * 16 * (1 + rng->bounded(4));
            k.tile_n = 8 << rng->bounded(3);
            const SupportCheck s = is_supported(k, p);
            if (!s.ok) {
                QVERIFY2(s.reason.find("shared memory") != std::string::npos, s.reason.c_str());
                continue;
            }
            const bool bwd = k.variant == Variant::BwdData;
            // bwd_data with stride 2 tiles the grid of phase positions (ceil(H / 2) x ...).
            const int64_t phases = bwd ? p.stride_h : 1;
            const int64_t h = ((bwd ? p.Hi : p.Ho()) + phases - 1) / phases;
            const int64_t w = ((bwd ? p.Wi : p.Wo()) + phases - 1) / phases;
            const DirectTcGeometry g = direct_tc_geometry(k, p);
            QCOMPARE(g.rows, int64_t{16} * k.tile_k);
            QCOMPARE(g.in_rows,
                     bwd && phases == 2
                         ? g.rows + direct_tc::data_s2_axis(f, static_cast<int>(p.pad_h)).span
                         : (g.rows - 1) * (bwd ? 1 : p.stride_h) + f);
            QCOMPARE(g.cols % 16, int64_t{0});
            QVERIFY(g.cols <= k.tile_m / g.rows);
            QCOMPARE((g.row_stride / 8) % 2, int64_t{1});
            QVERIFY(g.bands * g.rows >= h && (g.bands - 1) * g.rows < h);
            QVERIFY(g.col_tiles * g.cols >= w && (g.col_tiles - 1) * g.cols < w);
            QCOMPARE(g.tiles, p.N * g.bands * g.col_tiles);
            const LaunchPlan plan = plan_launch(k, p);
            const int64_t channel_blocks = (p.C + k.tile_n - 1) / k.tile_n;
            QCOMPARE(int64_t{plan.grid_x}, g.tiles * channel_blocks);
            QCOMPARE(plan.grid_y, 1u);
            QVERIFY(plan.shared_bytes <= k_direct_tc_max_shared);
        }
    }

    void the_source_holds_the_tensor_core_entries_only() {
        for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight}) {
            const std::string src = generate_kernel_source(tc(v));
            QVERIFY(src.find("#include \"gconv_direct_tc.h\"") != std::string::npos);
            for (int f : k_direct_filters)
                for (int stride : {1, 2}) {
                    const std::string entry =
                        direct_filter_entry_name(direct_entry_filter(tc(v), f), stride);
                    QVERIFY2(src.find(entry + "(") != std::string::npos, entry.c_str());
                }
            // bwd_weight: the two K-agnostic entries and no other.
            if (v == Variant::BwdWeight) QVERIFY(src.find("gconv_direct_k3") == std::string::npos);
            const std::string call = v == Variant::Forward   ? "tc_forward<GconvConfig, "
                                     : v == Variant::BwdData ? "tc_bwd_data<GconvConfig, "
                                                             : "tc_bwd_weight<GconvConfig, ";
            QVERIFY(src.find(std::string(finish_entry_name()) + "(") == std::string::npos);
            QVERIFY(src.find(call) != std::string::npos);
            QVERIFY(src.find("gconv::arch::trap()") != std::string::npos);
            QVERIFY(src.find("staged_") == std::string::npos);
        }
    }

    void runtime_filter_gives_one_entry_per_stride_for_every_filter_size() {
        for (Variant v : {Variant::Forward, Variant::BwdData}) {
            KernelConfig k = tc(v);
            k.runtime_filter = true;
            QVERIFY2(rules_of(k).empty(), qPrintable(joined(rules_of(k))));
            const std::string name = kernel_name(k);
            QVERIFY2(name.size() > 3 && name.substr(name.size() - 3) == "_kx", name.c_str());
            QCOMPARE(parse_kernel_name(name), k);
            for (int f : {3, 5, 7})
                for (int stride : {1, 2}) {
                    Problem p = depthwise(2, 64, 28, 28, f, f / 2);
                    p.stride_h = p.stride_w = stride;
                    const SupportCheck s = is_supported(k, p);
                    QVERIFY2(s.ok, s.reason.c_str());
                    QCOMPARE(plan_sequence(k, p).steps[0].kernel.entry,
                             direct_filter_entry_name(k_direct_any_filter, stride));
                    // The per-size kernel of the same tile keeps an entry per size.
                    QCOMPARE(direct_entry_name(tc(v), p), direct_filter_entry_name(f, stride));
                }
            const std::string src = generate_kernel_source(k);
            const std::string call =
                std::string(v == Variant::Forward ? "tc_forward" : "tc_bwd_data") +
                "<GconvConfig, 0, ";
            for (int stride : {1, 2}) {
                const std::string entry = direct_filter_entry_name(k_direct_any_filter, stride);
                QVERIFY2(src.find(entry + "(") != std::string::npos, entry.c_str());
                QVERIFY2(src.find(call + std::to_string(stride) + ">(p)") != std::string::npos,
                         src.c_str());
            }
            for (int f : k_direct_filters)
                QVERIFY(src.find("gconv_direct_k" + std::to_string(f)) == std::string::npos);
            // A run that knows its problems builds only the entries they launch.
            ModuleEntries one;
            one.all = false;
            one.names.insert(direct_filter_entry_name(k_direct_any_filter, 2));
            const std::string s2 = generate_kernel_source(k, one);
            QVERIFY(s2.find("gconv_direct_kx_s2(") != std::string::npos);
            QVERIFY(s2.find("gconv_direct_kx(") == std::string::npos);
        }
        // Every other kernel has one form: the rules say so.
        KernelConfig weight = tc(Variant::BwdWeight);
        weight.runtime_filter = true;
        QVERIFY2(joined(rules_of(weight)).contains("always read the filter size"),
                 qPrintable(joined(rules_of(weight))));
        KernelConfig simt = tc();
        simt.warp_tile_m = simt.warp_tile_n = 32;
        simt.runtime_filter = true;
        QVERIFY2(joined(rules_of(simt)).contains("only the tensor-core direct K x K entries"),
                 qPrintable(joined(rules_of(simt))));
        KernelConfig gemm;
        gemm.runtime_filter = true;
        QVERIFY2(joined(rules_of(gemm)).contains("only the tensor-core direct K x K entries"),
                 qPrintable(joined(rules_of(gemm))));
    }
};

QTEST_APPLESS_MAIN(TestDirectTcPlan)
#include "tst_direct_tc_plan.moc"
