// The tensor-core direct pipeline (direct_mma): its rules and the reasons they cull, kernel
// names, the problems it takes and rejects, block tiles and halos that cover every output pixel
// and every input pixel it reads, and a shipped pool that runs the small-group baseline shapes.
#include "codegen/direct_mma_plan.h"
#include "codegen/forward_view.h"
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

#include <array>
#include <functional>
#include <set>

using namespace gconv;
using test::joined;
using test::rules_of;

namespace {

// 4 warps, 112 output pixels x 64 channels, built for C/G = cpg.
KernelConfig mma_base(int cpg = 8) {
    KernelConfig c;
    c.pipeline = Pipeline::DirectMma;
    c.epilogue = Epilogue::Direct;
    c.wave_m = 4, c.wave_n = 1, c.wave_k = 1;
    c.tile_m = 112, c.tile_n = 64, c.tile_k = cpg;
    c.warp_tile_m = 32, c.warp_tile_n = direct_mma_warp_tile_n(cpg), c.warp_tile_k = 16;
    return c;
}

// bwd_weight: 4 pair warps x 5 pairs (the 20 of four 8-channel units on a 3x3 filter), 112
// pixels x 32 channels, split_k 64.
KernelConfig weight_base(int cpg = 8) {
    KernelConfig c = mma_base(cpg);
    c.variant = Variant::BwdWeight;
    c.tile_n = 32, c.warp_tile_m = 80;
    c.split_k = 64, c.split_k_mode = SplitKMode::Atomic;
    c.double_smem_buffer = true;
    return c;
}

Problem grouped(int64_t c, int64_t g, int64_t hw, int64_t f = 3, int64_t stride = 1) {
    Problem p;
    p.N = 2, p.C = c, p.K = c, p.G = g, p.Hi = hw, p.Wi = hw, p.Y = f, p.X = f;
    p.pad_h = p.pad_w = f / 2;
    p.stride_h = p.stride_w = stride;
    return p;
}

// The same with d planes and a filter of f taps in depth too.
Problem grouped3d(int64_t c, int64_t g, int64_t d, int64_t hw, int64_t f = 3) {
    Problem p = grouped(c, g, hw, f);
    p.ndim_spatial = 3;
    p.Di = d, p.Z = f, p.pad_d = f / 2;
    return p;
}

// Whether a random problem is one to check: valid, and supported by k. The one refusal allowed
// is shared memory (a random tile can outgrow 96 KiB); any other reason fails the test.
bool takes(const KernelConfig& k, const Problem& p) {
    if (!validate(p).empty()) return false;
    const SupportCheck s = is_supported(k, p);
    if (!s.ok && s.reason.find("shared memory") == std::string::npos)
        QTest::qFail(("refused: " + s.reason).c_str(), __FILE__, __LINE__);
    return s.ok;
}

KernelConfig in3d(KernelConfig c) {
    c.ndim_spatial = 3;
    return c;
}

} // namespace

class TestDirectMmaPlan : public QObject {
    Q_OBJECT

private slots:
    void base_configs_are_legal_on_nvidia_only() {
        for (int cpg : {1, 2, 4, 8, 16, 32, 64}) {
            KernelConfig c = mma_base(cpg);
            if (cpg == 64) c.tile_n = 128;
            QVERIFY2(rules_of(c).empty(), qPrintable(joined(rules_of(c))));
        }
        const QString amd = joined(rules_of(mma_base(), "gfx90a"));
        QVERIFY2(amd.contains("pipeline_hardware: direct_mma needs mma_sync"), qPrintable(amd));
        // 16 warps along m: direct_mma's warps take items in turn, so the layout is its own; a
        // GEMM pipeline keeps to the architecture's layouts.
        KernelConfig wide = mma_base(32);
        wide.tile_m = 224, wide.tile_n = 32, wide.wave_m = 16;
        QVERIFY2(rules_of(wide).empty(), qPrintable(joined(rules_of(wide))));
        KernelConfig gemm;
        gemm.tile_m = 256, gemm.tile_n = 64, gemm.tile_k = 32;
        gemm.wave_m = 16, gemm.wave_n = 1, gemm.wave_k = 1;
        gemm.warp_tile_m = 16, gemm.warp_tile_n = 16, gemm.warp_tile_k = 16;
        QVERIFY2(joined(rules_of(gemm)).contains("wave_layout"),
                 qPrintable(joined(rules_of(gemm))));
    }

    void knobs_it_does_not_have_are_culled_with_a_reason() {
        struct Case {
            const char* needle;
            std::function<void(KernelConfig&)> change;
        };
        const std::vector<Case> cases = {
            {"split_k: forward has no split-K",
             [](KernelConfig& c) { c.split_k = 4, c.split_k_mode = SplitKMode::Atomic; }},
            {"fp32", [](KernelConfig& c) { c.dtype = DataType::FP32; }},
            {"wave_m", [](KernelConfig& c) { c.wave_m = 2, c.wave_n = 2; }},
            {"epilogue cshuffle", [](KernelConfig& c) { c.epilogue = Epilogue::CShuffle; }},
            {"num_groups_to_merge", [](KernelConfig& c) { c.num_groups_to_merge = 2; }},
            {"pad_m", [](KernelConfig& c) { c.pad_k = false; }},
            {"16-byte vectors", [](KernelConfig& c) { c.vector_size_a = 4; }},
            {"tile_k 3", [](KernelConfig& c) { c.tile_k = 3, c.warp_tile_n = 8; }},
            {"tile_k 12", [](KernelConfig& c) { c.tile_k = 12, c.warp_tile_n = 12; }},
            {"tile_n 40",
             [](KernelConfig& c) { c.tile_k = 16, c.warp_tile_n = 16, c.tile_n = 40; }},
            {"tile_m 8", [](KernelConfig& c) { c.tile_m = 8; }},
            {"warp_tile_m 48", [](KernelConfig& c) { c.warp_tile_m = 48; }},
            {"output channels", [](KernelConfig& c) { c.warp_tile_n = 16; }},
        };
        for (const auto& k : cases) {
            KernelConfig c = mma_base();
            k.change(c);
            const QString all = joined(rules_of(c));
            QVERIFY2(all.contains("direct_mma_pipeline: ") && all.contains(k.needle),
                     qPrintable(QString("%1 -> %2").arg(k.needle, all)));
        }
    }

    void double_buffering_doubles_the_halo_and_walks_tiles() {
        KernelConfig one = mma_base(8), two = mma_base(8);
        two.double_smem_buffer = true;
        QVERIFY(rules_of(two).empty());
        const Problem p = grouped(256, 32, 56);
        const DirectMmaGeometry g = direct_mma_geometry(one, p);
        const std::size_t halo = std::size_t(g.halo_h * g.halo_w * (64 + 8) * 2);
        QCOMPARE(direct_mma_shared_bytes(two, p) - direct_mma_shared_bytes(one, p), halo);
        QVERIFY(plan_launch(two, p).grid_x < plan_launch(one, p).grid_x);
        QVERIFY(kernel_name(one) != kernel_name(two));
        QVERIFY(generate_kernel_source(two).find("kDoubleBuffer = 1;") != std::string::npos);
    }

    void wave_k_two_pairs_warps_over_each_items_taps() {
        KernelConfig c = mma_base(32);
        c.tile_m = 56, c.tile_n = 32, c.wave_m = 4, c.wave_k = 2;
        QVERIFY2(rules_of(c).empty(), qPrintable(joined(rules_of(c))));
        QVERIFY(QString::fromStdString(kernel_name(c)).contains("_w4x1x2_"));
        QCOMPARE(parse_kernel_name(kernel_name(c)), c);
        // 8 warps; on top of wave_k 1's shared memory, per pair the second warp's sums: 32
        // lanes x 2 m16 fragments x 4 n8 fragments x 4 floats.
        KernelConfig one = c;
        one.wave_k = 1;
        const Problem p = grouped(1024, 32, 7);
        QCOMPARE(plan_launch(c, p).block_threads, 256u);
        QCOMPARE(direct_mma_shared_bytes(c, p) - direct_mma_shared_bytes(one, p),
                 std::size_t(4 * 32 * 2 * 4 * 4 * 4));
        QVERIFY(generate_kernel_source(c).find("kKSplit = 2;") != std::string::npos);
        QVERIFY(generate_kernel_source(one).find("kKSplit = 1;") != std::string::npos);
        // bwd_data runs the forward kernel of its view: the same split.
        KernelConfig view = c;
        view.variant = Variant::BwdData;
        QVERIFY2(rules_of(view).empty(), qPrintable(joined(rules_of(view))));
        QVERIFY(generate_kernel_source(view).find("kKSplit = 2;") != std::string::npos);
        // Culled: a split other than 2, more pairs than named barriers, bwd_weight.
        for (const auto& [wave_m, wave_k] : {std::pair{4, 3}, std::pair{4, 4}, std::pair{16, 2}}) {
            KernelConfig bad = c;
            bad.wave_m = wave_m, bad.wave_k = wave_k;
            const QString why = joined(rules_of(bad));
            QVERIFY2(why.contains("wave_k 2 splits each item's taps"), qPrintable(why));
        }
        // A kernel named directly skips the pool's rules; is_supported refuses what the kernel
        // is not written for (two warps along n with wave_k 2 would share sums' slots).
        KernelConfig across = c;
        across.wave_m = 2, across.wave_n = 2;
        const SupportCheck refused = is_supported(across, p);
        QVERIFY(!refused.ok);
        QVERIFY2(QString::fromStdString(refused.reason).contains("wave layout 2x2x2"),
                 refused.reason.c_str());
        QVERIFY(is_supported(c, p).ok);
        KernelConfig weight = weight_base(32);
        weight.wave_k = 2;
        QVERIFY2(joined(rules_of(weight)).contains("bwd_weight direct_mma has wave_m warps"),
                 qPrintable(joined(rules_of(weight))));
    }

    void names_follow_the_traits_and_round_trip() {
        const KernelConfig c = mma_base(16);
        QCOMPARE(parse_kernel_name(kernel_name(c)), c);
        QVERIFY(QString::fromStdString(kernel_name(c)).contains("_112x64x16_direct_mma_"));
        QVERIFY(kernel_name(mma_base(8)) != kernel_name(c));
        KernelConfig direct = c;
        direct.pipeline = Pipeline::Direct;
        QVERIFY(kernel_name(direct) != kernel_name(c));
        const std::string src = generate_kernel_source(c);
        QVERIFY(src.find("#include \"gconv_direct_mma.h\"") != std::string::npos);
        QVERIFY(src.find("kCpg = 16;") != std::string::npos);
        QVERIFY(src.find("kWarpTileM = 32;") != std::string::npos);
    }

    void supports_its_group_width_and_rejects_the_rest() {
        auto* rng = QRandomGenerator::global();
        const int64_t hw = 5 + rng->bounded(40);
        QVERIFY(is_supported(mma_base(8), grouped(256, 32, hw)).ok);
        QVERIFY(is_supported(mma_base(4), grouped(128, 32, hw)).ok);
        QVERIFY(is_supported(mma_base(1), grouped(144, 144, hw)).ok);
        auto reason = [](const KernelConfig& k, Problem p) {
            return QString::fromStdString(is_supported(k, p).reason);
        };
        QVERIFY(reason(mma_base(8), grouped(256, 16, hw)).startsWith("tile_k"));
        Problem mult = grouped(256, 32, hw);
        mult.K = 512;
        QVERIFY(reason(mma_base(8), mult).startsWith("K/G"));
        QVERIFY(reason(mma_base(4), grouped(36, 9, hw)).startsWith("C:")); // 36 % 8 != 0
        // A kernel is built for 2D or 3D problems, and names the mismatch.
        KernelConfig k3 = in3d(mma_base(8));
        k3.tile_n = 32; // a 3-plane halo of 64 channels is over 96 KiB on the larger images
        const Problem three = grouped3d(64, 8, 4, hw);
        QVERIFY(reason(mma_base(8), three).startsWith("ndim_spatial"));
        QVERIFY(reason(k3, grouped(64, 8, hw)).startsWith("ndim_spatial"));
        QVERIFY2(is_supported(k3, three).ok, is_supported(k3, three).reason.c_str());
        QVERIFY(kernel_name(k3) != kernel_name(mma_base(8)));
        QVERIFY(generate_kernel_source(k3).find("kNdim = 3;") != std::string::npos);
        QVERIFY(generate_kernel_source(mma_base(8)).find("kNdim = 2;") != std::string::npos);
        // A 7x7 filter over a 1024-pixel tile of 64 channels needs far more than 96 KiB.
        KernelConfig big = mma_base(8);
        big.tile_m = 1024;
        QVERIFY(reason(big, grouped(256, 32, 64, 7)).contains("shared memory"));
    }

    // bwd_data is the forward convolution of dOut: the plan is the forward plan of that view,
    // which maps dOut's extent back onto dIn's; strides above 1 and pads past the filter are
    // refused by name.
    void bwd_data_runs_the_forward_view_of_stride_one_problems() {
        auto* rng = QRandomGenerator::global();
        KernelConfig bwd = mma_base(8);
        bwd.variant = Variant::BwdData;
        QVERIFY2(rules_of(bwd).empty(), qPrintable(joined(rules_of(bwd))));
        for (int trial = 0; trial < 30; ++trial) {
            bwd.double_smem_buffer = trial % 2 == 1; // dsb plans walk several tiles per block
            const int64_t f = 1 + 2 * rng->bounded(3);
            Problem p = grouped(8 * (8 + rng->bounded(40)), 0, f + 2 + rng->bounded(40), f);
            p.G = p.C / 8;
            p.Wi += rng->bounded(5);
            p.dilation_w = 1 + rng->bounded(2);
            p.pad_h = rng->bounded(static_cast<int>(f));
            p.pad_w = rng->bounded(static_cast<int>((f - 1) * p.dilation_w + 1));
            if (!validate(p).empty()) continue;
            const Problem v = forward_view(p);
            QCOMPARE(v.Ho(), p.Hi);
            QCOMPARE(v.Wo(), p.Wi);
            QCOMPARE(v.Hi, p.Ho());
            QCOMPARE(v.pad_w, (p.X - 1) * p.dilation_w - p.pad_w);
            const SupportCheck s = is_supported(bwd, p);
            if (!s.ok) {
                QVERIFY2(QString::fromStdString(s.reason).contains("shared memory"),
                         s.reason.c_str());
                continue;
            }
            KernelConfig fwd = bwd;
            fwd.variant = Variant::Forward;
            const LaunchPlan a = plan_launch(bwd, p), b = plan_launch(fwd, v);
            QCOMPARE(a.grid_x, b.grid_x);
            QCOMPARE(a.grid_y, b.grid_y);
            QCOMPARE(a.shared_bytes, b.shared_bytes);
        }
        // Enough tiles for a dsb block to walk more than two, and dIn larger than dOut (pad 0):
        // the walk length must come from the view's tiles too.
        Problem many = grouped(256, 32, 12, 5);
        many.N = 512, many.pad_h = many.pad_w = 0; // dIn 12 x 12, dOut 8 x 8
        KernelConfig fwd = bwd;
        fwd.variant = Variant::Forward;
        QVERIFY(bwd.double_smem_buffer && is_supported(bwd, many).ok);
        QVERIFY(direct_mma_tiles_per_block(bwd, many) > 2);
        QCOMPARE(plan_launch(bwd, many).grid_x, plan_launch(fwd, forward_view(many)).grid_x);
        auto reason = [&](Problem p) {
            return QString::fromStdString(is_supported(bwd, p).reason);
        };
        Problem wide_pad = grouped(256, 32, 28, 3);
        wide_pad.pad_h = 3;
        QVERIFY(reason(wide_pad).startsWith("pad"));
        // One kernel: it reads dOut in the input slot and the stored filter (rotated and
        // transposed while it stages it, no workspace), and writes dIn; its argument is the
        // view (stride 1).
        const Problem p = grouped(256, 32, 28);
        const LaunchSequence seq = plan_sequence(bwd, p);
        QCOMPARE(seq.steps.size(), std::size_t{1});
        const KernelStep& k = seq.steps[0].kernel;
        QCOMPARE(k.entry, std::string(kernel_entry_name()));
        QVERIFY(k.dout_as_input && k.stored_filter && !k.workspace_arg);
        QCOMPARE(seq.workspace_bytes, std::size_t{0});
        QCOMPARE(int64_t{seq.params.C}, p.K);
        QCOMPARE(int64_t{seq.params.Hi}, p.Ho());
        QVERIFY(!plan_sequence(mma_base(8), p).steps[0].kernel.stored_filter);
        const std::string source = generate_kernel_source(bwd);
        QVERIFY(source.find("kViewFilter = 1;") != std::string::npos);
        QVERIFY(source.find("gconv::direct_mma::forward<GconvConfig>(p)") != std::string::npos);
        QVERIFY(source.find(std::string(direct_mma_phases_entry_name()) +
                            "(gconv::ConvParams p)") != std::string::npos);
        QVERIFY(generate_kernel_source(forward_twin(bwd)).find("bwd_data_phases") ==
                std::string::npos);
        QVERIFY(source.find(std::string(rotate_filter_entry_name())) == std::string::npos);
        QVERIFY(generate_kernel_source(forward_twin(bwd)).find("kViewFilter = 0;") !=
                std::string::npos);
        QVERIFY(kernel_name(bwd) != kernel_name(mma_base(8)));
    }

    // bwd_data with a stride runs one forward convolution of dOut per phase of the stride: the
    // phases' outputs are every dIn pixel once, and the (dIn row, stored tap, dOut row) triples
    // they read are exactly the definition's (dIn row hi gets dOut row ho through tap y when
    // hi + pad - y x dilation = ho x stride). Rows only: the columns follow the same code.
    void bwd_data_phases_cover_every_din_pixel_and_tap_once() {
        auto* rng = QRandomGenerator::global();
        int checked = 0;
        for (int trial = 0; trial < 400; ++trial) {
            Problem p = grouped(64, 8, 1 + rng->bounded(20), 1 + rng->bounded(7));
            p.Y = 1 + rng->bounded(7);
            p.stride_h = 1 + rng->bounded(3);
            p.dilation_h = p.stride_h == 1 ? 1 + rng->bounded(2) : 1;
            p.pad_h = rng->bounded(static_cast<int>(p.Y));
            if (!validate(p).empty() || !bwd_data_phases_refusal(p).empty()) continue;
            ++checked;
            std::set<std::array<int64_t, 3>> read, expected;
            std::vector<int> hits(static_cast<std::size_t>(p.Hi), 0);
            const auto phases = bwd_data_phases(p);
            QCOMPARE(int64_t(phases.size()), p.stride_h * p.stride_w);
            for (const ViewPhase& ph : phases) {
                const Problem& v = ph.view;
                QCOMPARE(v.stride_h, int64_t{1});
                QVERIFY(v.pad_h >= 0);
                for (int64_t i = 0; i < v.Ho(); ++i) {
                    const int64_t hi = ph.rh + p.stride_h * i;
                    QVERIFY(hi < p.Hi);
                    ++hits[static_cast<std::size_t>(hi)];
                    for (int64_t ty = 0; ty < v.Y; ++ty) {
                        const int64_t ho = i - v.pad_h + ty * v.dilation_h;
                        const int64_t y = ph.qh + p.stride_h * (v.Y - 1 - ty);
                        QVERIFY(y < p.Y);
                        if (ho >= 0 && ho < p.Ho()) QVERIFY(read.insert({hi, y, ho}).second);
                    }
                }
            }
            for (int h : hits) QCOMPARE(h, 1);
            for (int64_t hi = 0; hi < p.Hi; ++hi)
                for (int64_t y = 0; y < p.Y; ++y) {
                    const int64_t num = hi + p.pad_h - y * p.dilation_h;
                    if (num >= 0 && num % p.stride_h == 0 && num / p.stride_h < p.Ho())
                        expected.insert({hi, y, num / p.stride_h});
                }
            QVERIFY2(read == expected, qPrintable(QString::fromStdString(p.key())));
        }
        QVERIFY(checked > 100);
    }

    // A stride-2 bwd_data problem runs in one launch: every phase's blocks on grid x (the phase
    // fastest), shared memory for the largest phase; what the phases cannot do is refused by name.
    void bwd_data_with_a_stride_plans_every_phase() {
        KernelConfig bwd = mma_base(8);
        bwd.variant = Variant::BwdData;
        KernelConfig fwd = bwd;
        fwd.variant = Variant::Forward;
        for (int64_t f : {2, 3, 4, 5, 7}) {
            Problem p = grouped(256, 32, 56, f, 2);
            p.pad_h = p.pad_w = (f - 1) / 2;
            QVERIFY2(is_supported(bwd, p).ok, is_supported(bwd, p).reason.c_str());
            const auto phases = bwd_data_phases(p);
            QCOMPARE(phases.size(), std::size_t{4});
            unsigned most = 0;
            std::size_t shared = 0;
            for (const ViewPhase& ph : phases) {
                const LaunchPlan q = plan_launch(fwd, ph.view);
                most = std::max(most, q.grid_x);
                shared = std::max(shared, q.shared_bytes);
            }
            const LaunchPlan plan = plan_launch(bwd, p);
            QCOMPARE(plan.grid_x, 4 * most);
            QCOMPARE(plan.shared_bytes, shared);
            QCOMPARE(plan.grid_z, 1u);
            QCOMPARE(direct_mma_shared_bytes(bwd, p), shared);
            // The phases entry, with the bwd_data problem as its argument.
            const LaunchSequence seq = plan_sequence(bwd, p);
            QCOMPARE(seq.steps.size(), std::size_t{1});
            QCOMPARE(seq.steps[0].kernel.entry, std::string(direct_mma_phases_entry_name()));
            QCOMPARE(main_entry_name(bwd, p), seq.steps[0].kernel.entry);
            if (f == 3) {
                // A k x 1 x 1 filter strided along depth is this 2D problem's phases along H
                // (codegen/fold_to_2d.h): the entry named is the phases entry too.
                Problem t = p;
                t.X = 1, t.stride_w = 1, t.pad_w = 0;
                Problem temporal = t;
                temporal.ndim_spatial = 3, temporal.Di = t.Hi, temporal.Hi = 7, temporal.Wi = 8;
                temporal.Z = t.Y, temporal.stride_d = 2, temporal.pad_d = t.pad_h;
                temporal.Y = 1, temporal.stride_h = 1, temporal.pad_h = 0;
                QVERIFY2(is_supported(bwd, temporal).ok,
                         is_supported(bwd, temporal).reason.c_str());
                QCOMPARE(main_entry_name(bwd, temporal),
                         std::string(direct_mma_phases_entry_name()));
                QCOMPARE(plan_sequence(bwd, temporal).steps[0].kernel.entry,
                         main_entry_name(bwd, temporal));
            }
            QVERIFY(seq.steps[0].kernel.dout_as_input && seq.steps[0].kernel.stored_filter);
            QCOMPARE(int64_t{seq.params.C}, p.C);
            QCOMPARE(int64_t{seq.params.stride_h}, int64_t{2});
            QCOMPARE(int64_t{seq.params.Hi}, p.Hi);
            // A module built for this problem holds the phases entry; one built for stride-1
            // problems only does not.
            const std::string phases_entry = std::string(direct_mma_phases_entry_name()) + "(";
            ModuleEntries e{false, {}};
            note_entries(bwd, grouped(256, 32, 28), e);
            QVERIFY(generate_kernel_source(bwd, e).find(phases_entry) == std::string::npos);
            note_entries(bwd, p, e);
            QVERIFY(generate_kernel_source(bwd, e).find(phases_entry) != std::string::npos);
        }
        auto reason = [&](Problem p) {
            return QString::fromStdString(is_supported(bwd, p).reason);
        };
        QVERIFY(reason(grouped(256, 32, 28, 1, 2)).startsWith("stride_h"));
        Problem dilated = grouped(256, 32, 28, 3, 2);
        dilated.dilation_w = 2;
        QVERIFY(reason(dilated).startsWith("dilation_w"));
        Problem deep = grouped3d(256, 32, 8, 28);
        deep.stride_d = 2;
        KernelConfig bwd3 = bwd;
        bwd3.ndim_spatial = 3;
        QVERIFY(QString::fromStdString(is_supported(bwd3, deep).reason).startsWith("stride_d"));
        Problem deep_ok = grouped3d(256, 32, 8, 28);
        deep_ok.stride_h = deep_ok.stride_w = 2;
        QVERIFY2(is_supported(bwd3, deep_ok).ok, is_supported(bwd3, deep_ok).reason.c_str());
    }

    void tiles_cover_every_output_and_halos_every_input_read() {
        auto* rng = QRandomGenerator::global();
        for (int trial = 0; trial < 40; ++trial) {
            KernelConfig k = mma_base(8);
            k.tile_m = 16 + rng->bounded(200);
            k.double_smem_buffer = trial % 2 == 1;
            const int64_t f = 1 + 2 * rng->bounded(3);
            Problem p = grouped(8 * (8 + rng->bounded(40)), 0, f + rng->bounded(40), f,
                                1 + rng->bounded(2));
            p.G = p.C / 8;
            p.Hi += rng->bounded(5); // rectangular
            p.N = 1 + rng->bounded(3);
            p.dilation_h = 1 + rng->bounded(2);
            p.pad_h = (f / 2) * p.dilation_h;
            if (!takes(k, p)) continue;
            const LaunchPlan plan = plan_launch(k, p);
            const DirectMmaGeometry g = direct_mma_geometry(k, p);
            const int64_t tiles = p.N * g.tiles_h * g.tiles_w;
            const int64_t per_block = direct_mma_tiles_per_block(k, p);
            QVERIFY(g.tile_w * g.tile_h <= std::max<int64_t>(k.tile_m, g.tile_w));
            QCOMPARE(int64_t{plan.grid_x}, (tiles + per_block - 1) / per_block);
            QVERIFY(k.double_smem_buffer ? per_block >= 2 : per_block == 1);
            QVERIFY(int64_t{plan.grid_y} * k.tile_n >= p.C);
            QVERIFY(int64_t(plan.grid_y - 1) * k.tile_n < p.C);
            QCOMPARE(plan.block_threads, 128u);
            QCOMPARE(plan.shared_bytes, direct_mma_shared_bytes(k, p));
            std::vector<int> hits(static_cast<std::size_t>(p.N * p.Ho() * p.Wo()), 0);
            bool halo_ok = true;
            // Block x walks tiles x, x + grid_x, ... (the kernel strides by gridDim.x).
            for (int64_t bx = 0; bx < plan.grid_x; ++bx)
                for (int64_t b = bx; b < tiles; b += plan.grid_x) {
                    const int64_t tw = b % g.tiles_w, th = (b / g.tiles_w) % g.tiles_h;
                    const int64_t n = b / (g.tiles_w * g.tiles_h);
                    for (int64_t r = 0; r < g.tile_h; ++r)
                        for (int64_t c = 0; c < g.tile_w; ++c) {
                            const int64_t oh = th * g.tile_h + r, ow = tw * g.tile_w + c;
                            if (oh >= p.Ho() || ow >= p.Wo()) continue;
                            ++hits[static_cast<std::size_t>((n * p.Ho() + oh) * p.Wo() + ow)];
                            // Last tap of the pixel, relative to the halo origin of the tile.
                            const int64_t hy = r * p.stride_h + (p.Y - 1) * p.dilation_h;
                            const int64_t hx = c * p.stride_w + (p.X - 1) * p.dilation_w;
                            halo_ok = halo_ok && hy < g.halo_h && hx < g.halo_w;
                        }
                }
            QVERIFY(halo_ok);
            QVERIFY2(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }),
                     qPrintable(QString::fromStdString(p.key())));
        }
    }

    // 3D: a tile is rows x columns of one output plane; its halo holds every input plane the
    // taps read (Z planes for stride 1 and dilation 1), so the halo memory grows by that
    // factor, and the grid walks N x Do planes of tiles. Every output pixel is in one tile, and
    // every tap of it (plane, row, column) inside the halo.
    void three_d_tiles_are_planes_with_a_deep_halo() {
        auto* rng = QRandomGenerator::global();
        for (int trial = 0; trial < 40; ++trial) {
            KernelConfig k = in3d(mma_base(8));
            k.tile_m = 16 + rng->bounded(120);
            k.tile_n = 32;
            k.double_smem_buffer = trial % 2 == 1;
            const int64_t f = 1 + 2 * rng->bounded(2);
            Problem p = grouped3d(8 * (4 + rng->bounded(20)), 0, 1 + rng->bounded(6),
                                  f + rng->bounded(20), f);
            p.G = p.C / 8;
            p.N = 1 + rng->bounded(3);
            p.stride_d = 1 + rng->bounded(2);
            p.dilation_d = 1 + rng->bounded(2);
            p.pad_d = rng->bounded(static_cast<int>((f - 1) * p.dilation_d + 1));
            if (!takes(k, p)) continue;
            const DirectMmaGeometry g = direct_mma_geometry(k, p);
            QCOMPARE(g.halo_d, (p.Z - 1) * p.dilation_d + 1);
            QCOMPARE(g.taps, p.Z * p.Y * p.X);
            QCOMPARE(g.tiles, p.N * p.Do() * g.tiles_h * g.tiles_w);
            QCOMPARE(g.reduction, (g.taps * 8 + 15) / 16 * 16);
            KernelConfig flat = mma_base(8);
            flat.tile_m = k.tile_m, flat.tile_n = k.tile_n;
            flat.double_smem_buffer = k.double_smem_buffer;
            Problem plane = p; // one input plane of the same rows and columns, 2D
            plane.ndim_spatial = 2, plane.Di = 1, plane.Z = 1, plane.pad_d = 0;
            plane.stride_d = plane.dilation_d = 1;
            const DirectMmaGeometry g2 = direct_mma_geometry(flat, plane);
            QCOMPARE(g.halo_h, g2.halo_h);
            QCOMPARE(g.halo_w, g2.halo_w);
            // With dsb a 3D block walks the planes of one tile column: its ring holds halo_d +
            // stride_d planes (2D: two halos) and two more reduction tables.
            const bool ring = k.double_smem_buffer;
            QCOMPARE(direct_mma_walks_planes(k), ring);
            const int64_t plane_bytes = g.halo_h * g.halo_w * 40 * 2;
            const int64_t planes3 = ring ? g.halo_d + p.stride_d : g.halo_d;
            const int64_t planes2 = ring ? 2 : 1;
            const int64_t filter_growth = int64_t{k.tile_n} * (g.reduction - g2.reduction) * 2;
            const int64_t table_growth = ((ring ? 3 : 1) * g.reduction - g2.reduction) / 8 * 4;
            QCOMPARE(int64_t(direct_mma_shared_bytes(k, p) - direct_mma_shared_bytes(flat, plane)),
                     (planes3 - planes2) * plane_bytes + filter_growth + table_growth);
            const LaunchPlan plan = plan_launch(k, p);
            const int64_t per_block = direct_mma_tiles_per_block(k, p);
            QCOMPARE(per_block, ring ? p.Do() : int64_t{1});
            QCOMPARE(int64_t{plan.grid_x}, (g.tiles + per_block - 1) / per_block);
            std::vector<int> hits(static_cast<std::size_t>(p.N * p.Do() * p.Ho() * p.Wo()), 0);
            bool halo_ok = true;
            for (int64_t b = 0; b < g.tiles; ++b) {
                // The kernel's order: column tiles fastest, then row tiles, planes, images.
                const int64_t tw = b % g.tiles_w, th = (b / g.tiles_w) % g.tiles_h;
                const int64_t od = (b / (g.tiles_w * g.tiles_h)) % p.Do();
                const int64_t n = b / (g.tiles_w * g.tiles_h * p.Do());
                for (int64_t r = 0; r < g.tile_h; ++r)
                    for (int64_t c = 0; c < g.tile_w; ++c) {
                        const int64_t oh = th * g.tile_h + r, ow = tw * g.tile_w + c;
                        if (oh >= p.Ho() || ow >= p.Wo()) continue;
                        ++hits[static_cast<std::size_t>(((n * p.Do() + od) * p.Ho() + oh) * p.Wo() +
                                                        ow)];
                        const int64_t hz = (p.Z - 1) * p.dilation_d; // last tap's plane
                        const int64_t hy = r * p.stride_h + (p.Y - 1) * p.dilation_h;
                        const int64_t hx = c * p.stride_w + (p.X - 1) * p.dilation_w;
                        halo_ok = halo_ok && hz < g.halo_d && hy < g.halo_h && hx < g.halo_w;
                    }
            }
            QVERIFY(halo_ok);
            QVERIFY2(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }),
                     qPrintable(QString::fromStdString(p.key())));
        }
        // bwd_data (stride 1) in 3D is the forward kernel of its 3D view, and bwd_weight's
        // block holds the deep halo and the dOut rows.
        KernelConfig bwd = in3d(mma_base(8));
        bwd.variant = Variant::BwdData, bwd.tile_n = 32;
        const Problem p = grouped3d(256, 32, 8, 28);
        QVERIFY2(is_supported(bwd, p).ok, is_supported(bwd, p).reason.c_str());
        KernelConfig fwd = bwd;
        fwd.variant = Variant::Forward;
        QCOMPARE(plan_launch(bwd, p).grid_x, plan_launch(fwd, forward_view(p)).grid_x);
        QCOMPARE(plan_sequence(bwd, p).steps.size(), std::size_t{1});
        KernelConfig w = in3d(weight_base(8));
        w.tile_m = 56; // two rows: 112 pixels' deep halo, twice, is over 96 KiB
        QVERIFY2(rules_of(w).empty(), qPrintable(joined(rules_of(w))));
        QVERIFY2(is_supported(w, p).ok, is_supported(w, p).reason.c_str());
        const DirectMmaGeometry gw = direct_mma_geometry(w, p);
        const int64_t rows = (gw.tile_w * gw.tile_h + 15) / 16 * 16;
        // The plane walk: a ring of 3 + 1 planes and two dOut row buffers; split_k blocks per
        // channel run take the tile columns (image, row tile, column tile) in turn.
        QVERIFY(direct_mma_walks_planes(w));
        const int64_t buffers = ((3 + 1) * gw.halo_h * gw.halo_w + 2 * rows) * 40 * 2;
        QCOMPARE(int64_t{plan_launch(w, p).grid_x},
                 std::min<int64_t>(w.split_k, p.N * gw.tiles_h * gw.tiles_w));
        QCOMPARE(int64_t(direct_mma_shared_bytes(w, p)),
                 std::max<int64_t>(buffers + gw.reduction / 8 * 4 + 2 * rows * 4, 32 * 27 * 8 * 4));
        QCOMPARE(gw.reduction, int64_t{(27 * 8 + 15) / 16 * 16});
    }

    void bwd_weight_rules_read_waves_pairs_and_split() {
        QVERIFY2(rules_of(weight_base(8)).empty(), qPrintable(joined(rules_of(weight_base(8)))));
        for (int cpg : {1, 2, 4, 16, 24, 32}) {
            KernelConfig c = weight_base(cpg);
            c.tile_n = 2 * direct_mma_unit_channels(c);
            QVERIFY2(rules_of(c).empty(), qPrintable(joined(rules_of(c))));
        }
        KernelConfig pixels = weight_base(8);
        pixels.wave_m = 2, pixels.wave_n = 2; // pair warps x pixel warps
        QVERIFY2(rules_of(pixels).empty(), qPrintable(joined(rules_of(pixels))));
        struct Case {
            const char* needle;
            std::function<void(KernelConfig&)> change;
        };
        const std::vector<Case> cases = {
            {"split_k_mode 2stage", [](KernelConfig& c) { c.split_k_mode = SplitKMode::TwoStage; }},
            {"split_k_mode none", [](KernelConfig& c) { c.split_k_mode = SplitKMode::None; }},
            {"wave_m warps over (unit, fragment) pairs",
             [](KernelConfig& c) { c.wave_m = 2, c.wave_n = 1, c.wave_k = 2; }},
            // 12 pairs x 4 n8 fragments of C/G 32: 192 accumulator registers.
            {"warp_tile_m 192",
             [](KernelConfig& c) { c.tile_k = 32, c.warp_tile_n = 32, c.warp_tile_m = 192; }},
            {"warp_tile_m 40", [](KernelConfig& c) { c.warp_tile_m = 40; }},
        };
        for (const auto& k : cases) {
            KernelConfig c = weight_base(8);
            k.change(c);
            const QString all = joined(rules_of(c));
            QVERIFY2(all.contains("direct_mma_pipeline: ") && all.contains(k.needle),
                     qPrintable(QString("%1 -> %2").arg(k.needle, all)));
        }
    }

    void bwd_weight_grid_splits_pixels_and_chunks_pairs() {
        const KernelConfig c = weight_base(8); // 4 units of 8 channels x 5 fragments = 20 pairs
        const Problem p = grouped(256, 32, 28);
        QVERIFY2(is_supported(c, p).ok, is_supported(c, p).reason.c_str());
        const DirectMmaGeometry g = direct_mma_geometry(c, p);
        QCOMPARE(g.tile_w, int64_t{28});
        QCOMPARE(g.tile_h, int64_t{4});
        QCOMPARE(g.reduction, int64_t{80});
        LaunchPlan plan = plan_launch(c, p);
        const int64_t tiles = p.N * g.tiles_h * g.tiles_w; // 2 x 7
        QCOMPARE(int64_t{plan.grid_x}, std::min<int64_t>(c.split_k, tiles));
        QCOMPARE(plan.grid_y, 256u / 32u);
        QCOMPARE(plan.grid_z, 1u); // 4 warps x 5 pairs
        KernelConfig narrow = c;
        narrow.warp_tile_m = 32; // 4 warps x 2 pairs: 8 of the 20 per block
        QCOMPARE(plan_launch(narrow, p).grid_z, 3u);
        KernelConfig wide = c;
        wide.split_k = 4;
        QCOMPARE(plan_launch(wide, p).grid_x, 4u);

        // Halo and dOut rows (two each; 32 channels + 8 pad per pixel) and tables, or the fp32
        // slice when that is larger.
        const int64_t pstride = 32 + 8, rows = (28 * 4 + 15) / 16 * 16;
        const int64_t buffers = 2 * (g.halo_h * g.halo_w + rows) * pstride * 2;
        const int64_t tables = g.reduction / 8 * 4 + 2 * rows * 4;
        QCOMPARE(int64_t(direct_mma_shared_bytes(c, p)),
                 std::max<int64_t>(buffers + tables, 32 * 9 * 8 * 4));
        KernelConfig big_slice = weight_base(32);
        big_slice.tile_n = 64, big_slice.warp_tile_m = 80;
        const Problem p32 = grouped(1024, 32, 7);
        QCOMPARE(int64_t(direct_mma_shared_bytes(big_slice, p32)), int64_t{64 * 9 * 32 * 4});
    }

    void bwd_weight_runs_one_kernel_after_zeroing_dw_and_tickets() {
        const KernelConfig c = weight_base(8);
        const Problem p = grouped(256, 32, 28, 3, 2); // stride 2 is fine here
        QVERIFY2(is_supported(c, p).ok, is_supported(c, p).reason.c_str());
        const LaunchSequence seq = plan_sequence(c, p);
        QCOMPARE(seq.steps.size(), size_t{2});
        QVERIFY(seq.steps[0].kind == LaunchStep::Kind::Memset);
        QVERIFY(seq.steps[0].memset.buffer == LaunchBuffer::Workspace);
        // fp32 dW and one 4-byte ticket per channel run (8 runs), in whole 16-byte units.
        const std::size_t dw = std::size_t(p.weight_elements()) * 4;
        QCOMPARE(seq.workspace_bytes, dw + 32);
        QCOMPARE(seq.steps[0].memset.bytes, seq.workspace_bytes);
        QVERIFY(seq.steps[1].kind == LaunchStep::Kind::Kernel);
        QVERIFY(seq.steps[1].kernel.workspace_arg);
        QVERIFY(!seq.steps[1].kernel.dout_as_input);
        QVERIFY(!has_finish_kernel(c));
        const std::string source = generate_kernel_source(c);
        QVERIFY(source.find("#include \"gconv_direct_mma_weight.h\"") != std::string::npos);
        QVERIFY(source.find("kPairWarps = 4;") != std::string::npos);
        QVERIFY(source.find("kPixelWarps = 1;") != std::string::npos);
        QVERIFY(source.find("gconv::direct_mma::bwd_weight<GconvConfig>(p, workspace)") !=
                std::string::npos);
        QVERIFY(source.find("gconv_finish") == std::string::npos);
    }

    void bwd_weight_rejects_other_group_widths_by_name() {
        const KernelConfig c = weight_base(8);
        Problem other = grouped(256, 16, 28); // C/G 16
        QVERIFY(is_supported(c, other).reason.find("tile_k") != std::string::npos);
        Problem multiplier = grouped(256, 32, 28);
        multiplier.K = 512;
        QVERIFY(is_supported(c, multiplier).reason.find("K/G") != std::string::npos);
        Problem wide = grouped(256, 32, 28);
        KernelConfig huge = c;
        huge.tile_m = 1024, huge.tile_n = 256;
        QVERIFY(is_supported(huge, grouped(256, 32, 64)).reason.find("shared memory") !=
                std::string::npos);
        QVERIFY(is_supported(c, wide).ok);
    }

    // The target's opt-in where it is known, 96 KiB where it is not.
    void shared_memory_cap_follows_the_target() {
        const auto& specs = default_arch_specs();
        auto optin = [&](const char* arch) {
            return std::size_t(specs.get(arch).shared_memory_per_block_optin);
        };
        QCOMPARE(direct_mma_max_shared(0), std::size_t{96 * 1024});
        QCOMPARE(direct_mma_max_shared(optin("sm_80")), std::size_t{163 * 1024});
        QCOMPARE(direct_mma_max_shared(optin("sm_89")), std::size_t{99 * 1024});
        QCOMPARE(direct_mma_max_shared(optin("sm_90")), std::size_t{227 * 1024});

        // g4_128_3d's shapes: C/G 32, a 3x3x3 filter. bwd_weight's dW slice is 32 x 27 x 32
        // fp32 (110592 bytes); a forward walk of four 28-pixel rows holds 4 planes of halo and
        // the 55 KB filter.
        Problem p = grouped3d(128, 4, 16, 28);
        KernelConfig w = weight_base(32);
        w.ndim_spatial = 3, w.tile_m = 56, w.wave_m = 8, w.warp_tile_m = 112;
        KernelConfig f = mma_base(32);
        f.ndim_spatial = 3, f.tile_m = 112, f.tile_n = 32, f.wave_m = 8, f.warp_tile_m = 16;
        f.double_smem_buffer = true;
        for (const KernelConfig& k : {w, f}) {
            QVERIFY(direct_mma_shared_bytes(k, p) > 96 * 1024);
            QVERIFY(direct_mma_shared_bytes(k, p) <= direct_mma_max_shared(optin("sm_90")));
            const SupportCheck portable = is_supported(k, p);
            QVERIFY(!portable.ok && portable.reason.find("portable") != std::string::npos);
            QVERIFY(is_supported(k, p, 32, k_max_piece_elements, optin("sm_90")).ok);
            QVERIFY(is_supported(k, p, 32, k_max_piece_elements, 100 * 1000)
                        .reason.find("the target's opt-in") != std::string::npos);
            QCOMPARE(plan_sequence(k, p, 32, optin("sm_90")).steps.empty(), false);
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, plan_sequence(k, p));
        }
    }

    void shipped_pool_runs_every_small_group_baseline_shape() {
        for (const char* dir : {"forward", "bwd_data", "bwd_weight"})
            for (const char* dims : {"2d", "3d"}) shipped_pool_runs_small_group_shapes(dir, dims);
    }

private:
    void shipped_pool_runs_small_group_shapes(const QString& dir, const QString& dims) {
        const auto& specs = default_arch_specs();
        const QString infix = dims == "3d" ? "_3d" : "";
        const QString config = dir == "forward"
                                   ? "configs/forward_bf16" + infix + "_direct_mma.json"
                                   : "configs/" + dir + infix + "_direct_mma.json";
        const auto traits = load_trait_config(test::source_path(config).toStdString());
        const auto pool = enumerate_pool(traits, specs.get("sm_90"), specs);
        QVERIFY2(pool.culled.empty(),
                 pool.culled.empty() ? "" : pool.culled.front().reasons.front().message.c_str());
        // bwd_weight's pool also spans five split_k values.
        QVERIFY(pool.kernels.size() >= 20 &&
                pool.kernels.size() <= (dir == "bwd_weight" ? 700 : 300));
        for (const auto& k : pool.kernels)
            QVERIFY(is_direct_mma(k) && k.ndim_spatial == (dims == "3d" ? 3 : 2));
        QVERIFY(enumerate_pool(traits, specs.get("gfx90a"), specs).kernels.empty());
        const auto set = load_problem_set(
            test::source_path("bench/baselines/baseline_" + dir + "_" + dims + ".json")
                .toStdString());
        const auto optin = std::size_t(specs.get("sm_90").shared_memory_per_block_optin);
        int small = 0;
        for (const auto& p : set.problems) {
            if (p.c_per_group() < 4 || p.c_per_group() > 32 || p.k_per_group() != p.c_per_group())
                continue;
            ++small;
            int supported = 0;
            for (const auto& k : pool.kernels)
                supported += is_supported(k, p, 32, k_max_piece_elements, optin).ok ? 1 : 0;
            QVERIFY2(supported >= 4, qPrintable(QString::fromStdString(p.key())));
        }
        QVERIFY(small >= (dims == "3d" ? 1 : 5));
    }
};

QTEST_APPLESS_MAIN(TestDirectMmaPlan)
#include "tst_direct_mma_plan.moc"
