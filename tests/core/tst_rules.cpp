// One test per culling rule: a legal configuration, changed in one way, is culled by exactly
// the rule that owns that constraint, with a message naming what is wrong.
#include "codegen/launch_plan.h"
#include "config/arch_spec.h"
#include "config/kernel_name.h"
#include "config/rules.h"
#include "problem/problem.h"

#include <QtTest>

#include <algorithm>

using namespace gconv;

namespace {

KernelConfig legal_base() {
    KernelConfig c;
    c.tile_m = 128;
    c.tile_n = 128;
    c.tile_k = 32;
    c.wave_m = 2;
    c.wave_n = 2;
    c.wave_k = 1;
    c.warp_tile_m = 32;
    c.warp_tile_n = 32;
    c.warp_tile_k = 16;
    return c;
}

// compv5 as the sm_90a wgmma pipeline: 2 consumer warpgroups, one m64n256k16 each.
KernelConfig wgmma_base() {
    KernelConfig c = legal_base();
    c.pipeline = Pipeline::CompV5;
    c.double_smem_buffer = true;
    c.num_wave_groups = 2;
    c.tile_m = 128;
    c.tile_n = 256;
    c.tile_k = 64;
    c.wave_m = 8;
    c.wave_n = 1;
    c.warp_tile_m = 16;
    c.warp_tile_n = 256;
    c.warp_tile_k = 16;
    return c;
}

// A 1x1 layer of 168 -> k channels on 12 images of 32 x 32.
Problem problem_with_k(int k) {
    Problem p;
    p.N = 12, p.C = 168, p.K = k, p.Hi = 32, p.Wi = 32;
    return p;
}

} // namespace

class TestRules : public QObject {
    Q_OBJECT

    const ArchSpecs& specs() { return default_arch_specs(); }

    // Asserts that `c` on `arch` is culled by `rule` (and by no other rule), and that the
    // message mentions `needle`.
    void expect_only(const KernelConfig& c, const std::string& arch, Rule rule,
                     const std::string& needle) {
        const auto reasons = check_legality(c, specs().get(arch), specs());
        QVERIFY2(!reasons.empty(), ("not culled: expected " + std::string(rule_id(rule))).c_str());
        std::string all;
        for (const auto& r : reasons) all += std::string(rule_id(r.rule)) + ": " + r.message + "\n";
        for (const auto& r : reasons) QVERIFY2(r.rule == rule, all.c_str());
        QVERIFY2(all.find(needle) != std::string::npos, all.c_str());
    }

    // Whether `rule` is among the reasons `c` is culled on `arch`, with `needle` in its message.
    bool culled_by(const KernelConfig& c, const std::string& arch, Rule rule,
                   const std::string& needle = "") {
        for (const auto& r : check_legality(c, specs().get(arch), specs()))
            if (r.rule == rule && r.message.find(needle) != std::string::npos) return true;
        return false;
    }

    void expect_legal(const KernelConfig& c, const std::string& arch) {
        const auto reasons = check_legality(c, specs().get(arch), specs());
        QVERIFY2(reasons.empty(), reasons.empty() ? "" : reasons.front().message.c_str());
    }

private slots:
    void base_is_legal_everywhere_it_fits() {
        for (const auto& arch : {"sm_80", "sm_89", "sm_90", "gfx950"}) {
            auto reasons = check_legality(legal_base(), specs().get(arch), specs());
            QVERIFY2(reasons.empty(), reasons.empty() ? "" : reasons.front().message.c_str());
        }
    }

    void spatial_dims() {
        auto c = legal_base();
        c.ndim_spatial = 4;
        expect_only(c, "sm_90", Rule::SpatialDims, "ndim_spatial 4");
    }

    void variant_pipeline() {
        auto c = legal_base();
        c.variant = Variant::BwdData;
        c.pipeline = Pipeline::CompV4;
        c.double_smem_buffer = true;
        expect_only(c, "sm_90", Rule::VariantPipeline, "compv4");
    }

    void pipeline_hardware() {
        auto c = legal_base();
        c.pipeline = Pipeline::CompAsync;
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
        expect_only(c, "gfx90a", Rule::PipelineHardware, "async_copy");
    }

    void scheduler_pipeline() {
        auto c = legal_base();
        c.scheduler = Scheduler::Interwave;
        expect_only(c, "sm_90", Rule::SchedulerPipeline, "interwave");
        c.pipeline = Pipeline::Mem;
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
    }

    void double_buffer_required_and_refused() {
        auto c = legal_base();
        c.pipeline = Pipeline::CompV4;
        expect_only(c, "sm_90", Rule::DoubleBuffer, "needs double_smem_buffer");
        c = legal_base();
        c.double_smem_buffer = true;
        expect_only(c, "sm_90", Rule::DoubleBuffer, "one shared buffer");
    }

    void wave_groups() {
        auto c = legal_base();
        c.pipeline = Pipeline::CompV5;
        c.double_smem_buffer = true;
        c.tile_m = 64;
        c.tile_n = 64;
        expect_only(c, "sm_90", Rule::WaveGroups, "num_wave_groups 1");
        c.num_wave_groups = 2;
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
        c.wave_m = 1;
        c.wave_n = 1;
        c.tile_m = 32;
        c.tile_n = 32;
        expect_only(c, "sm_90", Rule::WaveGroups, "wave_m or wave_n even");
    }

    void wave_layout() {
        auto c = legal_base();
        c.wave_m = 8;
        c.wave_n = 2;
        c.tile_m = 256;
        c.tile_n = 64;
        // 8x2x1 exists on gfx950 only among the AMD parts.
        expect_only(c, "gfx942", Rule::WaveLayout, "8x2x1");
    }

    void warp_tile() {
        auto c = legal_base();
        c.warp_tile_k = 8;
        c.tile_k = 32;
        expect_only(c, "sm_90", Rule::WarpTile, "32x32x8");
    }

    void warp_coverage() {
        auto c = legal_base();
        c.tile_m = 64;
        c.wave_m = 4;
        expect_only(c, "sm_90", Rule::WarpCoverage, "tile_m 64");
    }

    void thread_count() {
        // No shipped architecture allows fewer threads than 16 warps; a smaller part does.
        ArchSpec small = specs().get("sm_90");
        small.name = "small";
        small.max_threads_per_block = 64;
        const auto reasons = check_legality(legal_base(), small, specs());
        QCOMPARE(reasons.size(), std::size_t(1));
        QCOMPARE(reasons[0].rule, Rule::ThreadCount);
        QVERIFY(reasons[0].message.find("128 threads") != std::string::npos);
    }

    void tile_shape() {
        auto c = legal_base();
        c.wave_k = 2;
        c.tile_k = 64;
        auto reasons = check_legality(c, specs().get("sm_90"), specs());
        bool found = false;
        for (const auto& r : reasons)
            found |= r.rule == Rule::TileShape && r.message.find("wave_k 2") != std::string::npos;
        QVERIFY(found);
        c = legal_base();
        c.tile_n = 96;
        c.wave_n = 3;
        reasons = check_legality(c, specs().get("sm_90"), specs());
        found = false;
        for (const auto& r : reasons)
            found |= r.rule == Rule::TileShape && r.message.find("wave_n 3") != std::string::npos;
        QVERIFY(found);
        // A forward tile_n may be any multiple of 16 up to 256 (output channels in 48s); not
        // 40, not 272, and not in the backward directions.
        for (const int n : {48, 96, 144, 160, 176, 240}) {
            c = legal_base();
            c.tile_n = n;
            c.wave_n = 1;
            c.warp_tile_n = 16;
            for (const auto& r : check_legality(c, specs().get("sm_90"), specs()))
                QVERIFY2(r.rule != Rule::TileShape, r.message.c_str());
        }
        for (const auto& [n, variant] : {std::pair{40, Variant::Forward},
                                         {272, Variant::Forward},
                                         {96, Variant::BwdData},
                                         {96, Variant::BwdWeight}}) {
            c = legal_base();
            c.variant = variant;
            c.tile_n = n;
            c.wave_n = 1;
            c.warp_tile_n = 8;
            reasons = check_legality(c, specs().get("sm_90"), specs());
            found = false;
            for (const auto& r : reasons)
                found |= r.rule == Rule::TileShape &&
                         r.message.find("tile_n " + std::to_string(n)) != std::string::npos;
            QVERIFY2(found, std::to_string(n).c_str());
        }
    }

    void vector_width() {
        auto c = legal_base();
        c.vector_size_a = 16;
        expect_only(c, "sm_90", Rule::VectorWidth, "vector_size_a 16");
        c = legal_base();
        c.dtype = DataType::FP32;
        c.warp_tile_k = 4;
        c.vector_size_a = c.vector_size_b = c.vector_size_c = 4;
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
        c.vector_size_b = 8;
        expect_only(c, "sm_90", Rule::VectorWidth, "vector_size_b 8");
        c = legal_base();
        c.vector_size_c = 3;
        expect_only(c, "sm_90", Rule::VectorWidth, "power of two");
    }

    void shared_memory_budget_pays_per_buffer() {
        auto c = legal_base();
        c.tile_m = 256;
        c.tile_n = 256;
        c.tile_k = 128;
        c.wave_m = 4;
        c.wave_n = 4;
        c.warp_tile_m = 64;
        c.warp_tile_n = 64;
        c.warp_tile_k = 32;
        // 256x256 accumulators over 512 threads: the register rule also bites; check the
        // shared-memory reason is present and names the budget.
        const auto reasons = check_legality(c, specs().get("gfx942"), specs());
        bool found = false;
        for (const auto& r : reasons)
            if (r.rule == Rule::SharedMemory) found = r.message.find("65536") != std::string::npos;
        QVERIFY(found);
        // A tile that fits once but not twice is legal single-buffered, culled double-buffered.
        auto single = legal_base();
        single.tile_k = 64;
        single.tile_m = 128;
        single.tile_n = 128;
        QVERIFY(check_legality(single, specs().get("gfx942"), specs()).empty());
        auto twice = single;
        twice.pipeline = Pipeline::BasicV1;
        twice.double_smem_buffer = true;
        expect_only(twice, "gfx942", Rule::SharedMemory, "two buffers");
    }

    void registers() {
        auto c = legal_base();
        c.tile_m = 256;
        c.tile_n = 256;
        c.wave_m = 2;
        c.wave_n = 2;
        c.warp_tile_m = 64;
        c.warp_tile_n = 64;
        c.tile_k = 16;
        expect_only(c, "sm_90", Rule::Registers, "accumulators");
        c = legal_base();
        c.tile_k = 128;
        c.warp_tile_k = 32;
        c.vector_size_a = 1;
        c.dtype = DataType::BF16;
        expect_only(c, "sm_90", Rule::Registers, "A loads per K tile");
    }

    void group_merge() {
        auto c = legal_base();
        c.num_groups_to_merge = 3;
        expect_only(c, "sm_90", Rule::GroupMerge, "num_groups_to_merge 3");
        c = legal_base();
        c.variant = Variant::BwdWeight;
        c.num_groups_to_merge = 2;
        expect_only(c, "sm_90", Rule::GroupMerge, "one group per block");
        c.variant = Variant::BwdData; // merged groups are fine where C is block-diagonal
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
    }

    void blocks_per_cu() {
        auto c = legal_base();
        c.block_per_cu = 32;
        expect_only(c, "sm_90", Rule::BlocksPerCu, "block_per_cu 32");
        c = legal_base();
        c.wave_m = 4;
        c.wave_n = 4;
        c.warp_tile_m = 32;
        c.warp_tile_n = 32;
        c.block_per_cu = 2;
        expect_only(c, "sm_90", Rule::BlocksPerCu, "64 registers per thread");
    }

    void split_k() {
        auto c = legal_base();
        c.split_k = 4;
        c.split_k_mode = SplitKMode::Atomic;
        // Forward splits its filter reduction with atomics only, and not with split_image.
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
        c.split_k_mode = SplitKMode::TwoStage;
        expect_only(c, "sm_90", Rule::SplitK, "not through 2stage");
        c.split_k_mode = SplitKMode::Atomic;
        c.split_image = true;
        expect_only(c, "sm_90", Rule::SplitK, "split_image");
        c.split_image = false;
        c.variant = Variant::BwdData;
        expect_only(c, "sm_90", Rule::SplitK, "not bwd_data");
        c.variant = Variant::BwdWeight;
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
        c.split_k_mode = SplitKMode::None;
        expect_only(c, "sm_90", Rule::SplitK, "needs a reduction");
        c.split_k = 1;
        c.split_k_mode = SplitKMode::Atomic;
        expect_only(c, "sm_90", Rule::SplitK, "zeroing pass");
    }

    // The channel-padded copy: forward GEMMs on mma.sync with split_k 1 only.
    void channel_pad() {
        auto c = legal_base();
        c.channel_pad = true;
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
        c.variant = Variant::BwdData;
        expect_only(c, "sm_90", Rule::ChannelPad, "only forward");
        c.variant = Variant::Forward;
        c.split_k = 4;
        c.split_k_mode = SplitKMode::Atomic;
        expect_only(c, "sm_90", Rule::ChannelPad, "split_k 1");
        c.split_k = 1;
        c.split_k_mode = SplitKMode::None;
        c.vector_size_a = c.vector_size_b = 1; // (the loader cap culls this tile too)
        const auto one = check_legality(c, specs().get("sm_90"), specs());
        QVERIFY(std::any_of(one.begin(), one.end(), [](const CullReason& r) {
            return r.rule == Rule::ChannelPad && r.message.find("pad nothing") != std::string::npos;
        }));
        KernelConfig w = wgmma_base();
        w.channel_pad = true;
        expect_only(w, "sm_90a", Rule::ChannelPad, "tensor maps");
    }

    // Clusters of two or four blocks along N: the persistent forward wgmma kernels (direct or
    // cshufflebuf epilogue, intrawave, no split-K, N tails handled) on sm_90a only.
    void cluster() {
        KernelConfig w = wgmma_base();
        w.epilogue = Epilogue::CShuffleBuf;
        w.cluster_n = 2;
        expect_legal(w, "sm_90a");
        KernelConfig c = w;
        c.cluster_n = 4;
        expect_legal(c, "sm_90a");
        QVERIFY(kernel_name(c).find("_cn4_") != std::string::npos);
        QCOMPARE(parse_kernel_name(kernel_name(c)).cluster_n, 4);
        c = w;
        c.epilogue = Epilogue::CShuffle;
        expect_only(c, "sm_90a", Rule::Cluster, "persistent grid");
        c = w;
        c.cluster_n = 3;
        expect_only(c, "sm_90a", Rule::Cluster, "1, 2 or 4");
        c.cluster_n = 8;
        expect_only(c, "sm_90a", Rule::Cluster, "1, 2 or 4");
        c = w;
        c.pad_n = false;
        expect_only(c, "sm_90a", Rule::Cluster, "pad_n");
        c = w;
        c.variant = Variant::BwdData;
        QVERIFY(culled_by(c, "sm_90a", Rule::Cluster, "forward only"));
        c = legal_base();
        c.cluster_n = 2;
        expect_only(c, "sm_90", Rule::Cluster, "wgmma");
        c = w;
        for (const auto& r : check_legality(c, specs().get("sm_90"), specs()))
            QVERIFY(r.rule != Rule::Cluster || r.message.find("wgmma") != std::string::npos);
    }

    // A cluster along K: the one-tile-per-block forward wgmma kernels (cshuffle) on sm_90a; its
    // blocks are consecutive along x (the grid grows by cluster_k), its shared memory holds
    // the fp32 partial tile, and it loads through the tensor maps only.
    void cluster_k() {
        KernelConfig w = wgmma_base();
        w.epilogue = Epilogue::CShuffle;
        w.cluster_k = 4;
        expect_legal(w, "sm_90a");
        QVERIFY(kernel_name(w).ends_with("_ck4_wg2_dsb"));
        QCOMPARE(parse_kernel_name(kernel_name(w)).cluster_k, 4);
        const Problem p = problem_with_k(256);
        QVERIFY2(is_supported(w, p).ok, is_supported(w, p).reason.c_str());
        KernelConfig lone = w;
        lone.cluster_k = 1;
        QCOMPARE(plan_launch(w, p).grid_x, 4 * plan_launch(lone, p).grid_x);
        QCOMPARE(plan_launch(w, p).grid_y, plan_launch(lone, p).grid_y);
        QVERIFY(shared_bytes(w) >= std::size_t{128} * (256 + 4) * 4);
        KernelConfig c = w;
        c.pixels_on_n = true, c.tile_m = 96, c.tile_n = 128, c.warp_tile_n = 96;
        expect_legal(c, "sm_90a");
        // Without tensor maps (C/G 24 in groups: the K tiles would meet the next group) the
        // cluster has nothing to split.
        Problem grouped = p;
        grouped.C = 48, grouped.K = 256, grouped.G = 2;
        const SupportCheck no_maps = is_supported(w, grouped);
        QVERIFY2(!no_maps.ok && no_maps.reason.find("cluster") != std::string::npos,
                 no_maps.reason.c_str());
        const std::pair<void (*)(KernelConfig&), const char*> culls[] = {
            {[](KernelConfig& k) { k.epilogue = Epilogue::CShuffleBuf; }, "the cshuffle epilogue"},
            {[](KernelConfig& k) { k.cluster_k = 9; }, "1 to 8 blocks"},
            {[](KernelConfig& k) { k.cluster_k = 3; }, "tile_m 128 is not a multiple"},
            {[](KernelConfig& k) { k.variant = Variant::BwdData; }, "forward only"},
            {[](KernelConfig& k) { k.split_k = 2, k.split_k_mode = SplitKMode::Atomic; },
             "split_k 1"},
            {[](KernelConfig& k) { k.split_image = true; }, "split images"},
        };
        for (const auto& [change, needle] : culls) {
            c = w;
            change(c);
            QVERIFY2(culled_by(c, "sm_90a", Rule::Cluster, needle), needle);
        }
        c = legal_base();
        c.cluster_k = 2;
        expect_only(c, "sm_90", Rule::Cluster, "only the wgmma pipeline");
    }

    // pixels_on_n: a 160-pixel by 128-channel tile (the instruction's N 160, two channel
    // blocks) is legal and supported where the tensor maps load it; its culls say why.
    void pixels_on_n() {
        KernelConfig w = wgmma_base();
        w.pixels_on_n = true;
        w.epilogue = Epilogue::CShuffleBuf;
        w.tile_m = 160;
        w.tile_n = 128;
        w.warp_tile_n = 160;
        expect_legal(w, "sm_90a");
        QVERIFY(uses_wgmma(w) && instruction_m(w) == 128 && instruction_n(w) == 160);
        QVERIFY2(is_supported(w, problem_with_k(256)).ok,
                 is_supported(w, problem_with_k(256)).reason.c_str());
        QVERIFY(kernel_name(w).ends_with("_pn"));
        QCOMPARE(parse_kernel_name(kernel_name(w)).pixels_on_n, true);
        KernelConfig c = w;
        c.warp_tile_n = 128; // not the tile's pixels
        QVERIFY(culled_by(c, "sm_90a", Rule::Wgmma, "warp_tile_n == tile_m"));
        c = w;
        c.tile_n = 96; // not whole 64-channel blocks per consumer warpgroup
        QVERIFY(culled_by(c, "sm_90a", Rule::WarpCoverage,
                          "tile_n 96 is not a multiple of wave_m x warp_tile_m = 8 x 16"));
        const std::pair<void (*)(KernelConfig&), const char*> culls[] = {
            {[](KernelConfig& k) { k.epilogue = Epilogue::Direct; }, "cshuffle or cshufflebuf"},
            {[](KernelConfig& k) { k.scheduler = Scheduler::Interwave; }, "intrawave only"},
            {[](KernelConfig& k) { k.variant = Variant::BwdData; }, "forward only"},
            {[](KernelConfig& k) { k.split_k = 2; }, "split_k 1 only"},
            {[](KernelConfig& k) { k.split_image = true; }, "split images"},
        };
        for (const auto& [change, needle] : culls) {
            c = w;
            change(c);
            QVERIFY2(culled_by(c, "sm_90a", Rule::Wgmma, needle), needle);
        }
        // In a cluster along N the pixel tile is the shared (multicast) copy.
        for (int cn : {2, 4}) {
            c = w;
            c.cluster_n = cn;
            expect_legal(c, "sm_90a");
            QVERIFY(kernel_name(c).ends_with("_cn" + std::to_string(cn) + "_wg2_dsb_pn"));
        }
        c = legal_base();
        c.pixels_on_n = true;
        expect_only(c, "sm_90", Rule::Wgmma, "pixels_on_n: a wgmma");
        // Without the flag the same tile is not a wgmma tile: 160 pixel rows are not whole m64
        // blocks per consumer warpgroup.
        c = w;
        c.pixels_on_n = false;
        QVERIFY(!check_legality(c, specs().get("sm_90a"), specs()).empty());
    }

    void epilogue() {
        auto c = legal_base();
        c.epilogue = Epilogue::Direct;
        expect_only(c, "sm_90", Rule::Epilogue, "vector_size_c 8");
        c.vector_size_c = 2;
        QVERIFY(check_legality(c, specs().get("sm_90"), specs()).empty());
    }

    // cshufflebuf (a C buffer beside the wgmma ring) exists for the wgmma pipeline only.
    void cshufflebuf_epilogue_is_wgmma_only() {
        auto c = legal_base();
        c.epilogue = Epilogue::CShuffleBuf;
        expect_only(c, "sm_90", Rule::Epilogue, "wgmma pipeline only");
        expect_only(c, "gfx950", Rule::Epilogue, "wgmma pipeline only");
        KernelConfig w = wgmma_base();
        w.epilogue = Epilogue::CShuffleBuf;
        expect_legal(w, "sm_90a");
        // A ring of 3 stages of 256 + 256 rows fits beside C staged in 32-column slices (8
        // passes), not beside the whole C tile or halves or quarters of it; 256 accumulators
        // a thread are over the registers all the same.
        w.tile_m = 256;
        w.wave_m = 8;
        w.warp_tile_n = 256;
        QCOMPARE(c_buffer_passes(w), 8);
        QVERIFY(!culled_by(w, "sm_90a", Rule::SharedMemory));
        QVERIFY(culled_by(w, "sm_90a", Rule::Registers));
        // 256 x 160: the whole C tile beside 3 stages is over 227 KiB, halves are not.
        w.tile_n = w.warp_tile_n = 160;
        QCOMPARE(c_buffer_passes(w), 2);
        expect_legal(w, "sm_90a");
    }

    // interwave on the wgmma pipeline: two consumer warpgroups ping-pong on whole tiles.
    void wgmma_pingpong() {
        KernelConfig c = wgmma_base();
        c.scheduler = Scheduler::Interwave;
        c.epilogue = Epilogue::CShuffleBuf;
        c.tile_n = 128;
        c.warp_tile_n = 128;
        expect_legal(c, "sm_90a");
        c.epilogue = Epilogue::CShuffle;
        expect_only(c, "sm_90a", Rule::Wgmma, "leaves the ring");
        c.epilogue = Epilogue::Direct;
        c.vector_size_c = 2;
        QVERIFY(check_legality(c, specs().get("sm_90a"), specs()).empty());
        c.tile_m = 256; // 256 x 128 per warpgroup: 256 accumulators (not 128 as cooperative)
        expect_only(c, "sm_90a", Rule::Registers, "256 fp32 accumulators");
        c.tile_m = 128;
        c.wave_m = 4;
        expect_only(c, "sm_90a", Rule::Wgmma, "wave_m 8");
        // interwave stays culled for the mma.sync pipelines.
        KernelConfig m = legal_base();
        m.scheduler = Scheduler::Interwave;
        m.pipeline = Pipeline::CompV4;
        m.double_smem_buffer = true;
        expect_only(m, "sm_90a", Rule::SchedulerPipeline, "not compv4");
    }

    void every_rule_has_an_id() {
        for (int r = 0; r <= int(Rule::Where); ++r) QVERIFY(rule_id(Rule(r)) != "?");
    }

    void wgmma_pipeline_on_sm90a_only() {
        const KernelConfig c = wgmma_base();
        expect_legal(c, "sm_90a");
        // 384 threads: the producer warpgroup comes on top of the 8 consumer warps.
        QCOMPARE(block_threads(c, specs().get("sm_90a")), 384);
        // Plain sm_90 has no warpgroup warp tiles (its compv5 stays mma.sync).
        expect_only(c, "sm_90", Rule::WarpTile, "16x256x16");
        // On sm_90a compv5 with an mma.sync warp tile stays the two-group compv5; warpgroup
        // tiles belong to compv5.
        KernelConfig m = legal_base();
        m.pipeline = Pipeline::CompV5;
        m.double_smem_buffer = true;
        m.num_wave_groups = 2;
        m.tile_m = 64;
        m.tile_n = 64;
        QVERIFY(check_legality(m, specs().get("sm_90a"), specs()).empty());
        QVERIFY(check_legality(m, specs().get("sm_90"), specs()).empty());
        KernelConfig o = c;
        o.pipeline = Pipeline::CompV4;
        o.num_wave_groups = 1;
        expect_only(o, "sm_90a", Rule::Wgmma, "only with compv5");
    }

    // bwd_data runs on the wgmma pipeline as the forward kernel of its view (K-major operands);
    // bwd_weight's MN-major variant computes one tile per block: cshuffle only, by name.
    void wgmma_backward_directions() {
        KernelConfig d = wgmma_base();
        d.variant = Variant::BwdData;
        expect_legal(d, "sm_90a");
        KernelConfig w = wgmma_base();
        w.variant = Variant::BwdWeight;
        QVERIFY(check_legality(w, specs().get("sm_90a"), specs()).empty());
        w.epilogue = Epilogue::Direct;
        w.vector_size_c = 2;
        expect_only(w, "sm_90a", Rule::Wgmma, "the cshuffle epilogue, not direct");
        // Other compv5 kernels stay forward-only in the backward directions.
        KernelConfig m = legal_base();
        m.variant = Variant::BwdData;
        m.pipeline = Pipeline::CompV5;
        m.double_smem_buffer = true;
        m.num_wave_groups = 2;
        m.tile_m = 64;
        m.tile_n = 64;
        expect_only(m, "sm_90a", Rule::VariantPipeline, "compv5");
    }

    void wgmma_shapes() {
        KernelConfig c = wgmma_base();
        c.tile_k = 16;
        expect_only(c, "sm_90a", Rule::Wgmma, "64 or 32");
        c.tile_k = 32; // 64-byte rows in the 64-byte swizzle: K-major operands only
        QVERIFY(check_legality(c, specs().get("sm_90a"), specs()).empty());
        c.variant = Variant::BwdWeight;
        QVERIFY(!check_legality(c, specs().get("sm_90a"), specs()).empty());
        c = wgmma_base();
        c.tile_m = 512; // 4 m64 instructions per consumer: 256 accumulators, two rules
        QVERIFY(!check_legality(c, specs().get("sm_90a"), specs()).empty());
        c = wgmma_base();
        c.tile_m = 256; // two m64n256 per consumer: 256 accumulators per thread
        expect_only(c, "sm_90a", Rule::Registers, "256 fp32 accumulators");
        c = wgmma_base();
        c.block_per_cu = 2;
        QVERIFY(culled_by(c, "sm_90a", Rule::Wgmma, "setmaxnreg"));
        c = wgmma_base();
        c.wave_m = 4; // one consumer warpgroup with 128 rows x 256 columns: too many accumulators
        expect_only(c, "sm_90a", Rule::Registers, "accumulators");
        c.tile_n = 128;
        c.warp_tile_n = 128;
        QVERIFY(check_legality(c, specs().get("sm_90a"), specs()).empty());
    }

    // N 192 (m64n192k16) serves bwd_weight, whose N (C/G x taps) is 1152 for C/G 128 with a
    // 3x3 filter, and forward, which also has N 96, 160 and 224 for layers whose width is not a
    // multiple of 128. bwd_data keeps the powers of two; a backward mma.sync kernel's tile_n
    // stays a power of two (tile shape).
    void wgmma_n_between_powers_of_two() {
        KernelConfig w = wgmma_base();
        w.variant = Variant::BwdWeight;
        w.tile_n = 192;
        w.warp_tile_n = 192;
        expect_legal(w, "sm_90a");
        KernelConfig w96 = w; // 32-column B blocks: 3 x 3 filters at C/G 32 in 3 tiles
        w96.tile_n = 96;
        w96.warp_tile_n = 96;
        expect_legal(w96, "sm_90a");
        for (int n : {96, 160, 192, 224}) {
            KernelConfig f = wgmma_base();
            f.tile_n = n;
            f.warp_tile_n = n;
            expect_legal(f, "sm_90a");
            QVERIFY2(is_supported(f, problem_with_k(408)).ok, qPrintable(QString::number(n)));
        }
        KernelConfig odd = wgmma_base();
        odd.tile_n = 176; // a multiple of 16, not of 32: no wgmma N built
        odd.warp_tile_n = 176;
        QVERIFY(culled_by(odd, "sm_90a", Rule::Wgmma, "160, 192, 224"));
        KernelConfig d = w;
        d.variant = Variant::BwdData;
        d.tile_n = 160;
        d.warp_tile_n = 160;
        QVERIFY(culled_by(d, "sm_90a", Rule::Wgmma));
        KernelConfig m = legal_base();
        m.variant = Variant::BwdWeight;
        m.tile_n = 192;
        QVERIFY(culled_by(m, "sm_90", Rule::TileShape));
    }

    // Three consumer warpgroups take 192-row tiles (wave_m 12) up to N 192; other tile_m, wider
    // N, ping-pong and architectures without wgmma refuse them, each for its reason.
    void wgmma_three_consumers_make_192_row_tiles() {
        KernelConfig t = wgmma_base();
        t.tile_m = 192;
        t.wave_m = 12;
        for (int n : {64, 128, 192}) {
            t.tile_n = t.warp_tile_n = n;
            expect_legal(t, "sm_90a");
            QVERIFY(wgmma_three_consumers(t));
            QVERIFY2(is_supported(t, problem_with_k(408)).ok, qPrintable(QString::number(n)));
        }
        t.tile_n = t.warp_tile_n = 224;
        QVERIFY(culled_by(t, "sm_90a", Rule::Wgmma, "128 registers"));
        t.tile_n = t.warp_tile_n = 128;
        KernelConfig m = t;
        m.tile_m = 128;
        QVERIFY(culled_by(m, "sm_90a", Rule::Wgmma, "is not 192"));
        QVERIFY(!is_supported(m, problem_with_k(408)).ok);
        KernelConfig pp = t;
        pp.scheduler = Scheduler::Interwave;
        QVERIFY(culled_by(pp, "sm_90a", Rule::Wgmma, "wave_m 8"));
        QVERIFY(culled_by(t, "sm_90", Rule::WaveLayout));
    }

    // Two consumer warpgroups split in N (wave layout [4, 2, 1], warp_tile_n = tile_n / 2): each
    // takes every 64-row block of the tile, so tiles of 192 rows need no third warpgroup; the
    // halves are the 8-step N from 72 to 120 or a built N. Forward and intrawave only, at most
    // 256 rows and 192 accumulators a thread.
    void wgmma_two_consumers_split_in_n() {
        KernelConfig c = wgmma_base();
        c.tile_m = 192;
        c.wave_m = 4;
        c.wave_n = 2;
        for (int n : {144, 160, 208, 240, 256}) {
            c.tile_n = n;
            c.warp_tile_n = n / 2;
            QVERIFY(gconv::wgmma_n_split(c) && uses_wgmma(c));
            expect_legal(c, "sm_90a");
            QVERIFY2(is_supported(c, problem_with_k(408)).ok, qPrintable(QString::number(n)));
        }
        // 384 threads: the producer and two consumer warpgroups.
        QCOMPARE(block_threads(c, specs().get("sm_90a")), 384);
        c.tile_n = 208;
        c.warp_tile_n = 104;
        // Both halves' columns in one C buffer, or one half per slice.
        c.epilogue = Epilogue::CShuffleBuf;
        expect_legal(c, "sm_90a");
        QVERIFY(c_buffer_passes(c) == 1 || c_buffer_passes(c) == 2);
        KernelConfig w = c;
        w.tile_m = 256; // 256 x 208: 208 accumulators a thread (and C beside 3 stages)
        QVERIFY(culled_by(w, "sm_90a", Rule::Registers, "208 fp32 accumulators"));
        w.tile_m = 320;
        QVERIFY(culled_by(w, "sm_90a", Rule::Wgmma, "64, 128, 192 or 256 rows"));
        w = c;
        w.scheduler = Scheduler::Interwave;
        QVERIFY(culled_by(w, "sm_90a", Rule::Wgmma, "intrawave"));
        w = c;
        w.variant = Variant::BwdData;
        QVERIFY(culled_by(w, "sm_90a", Rule::Wgmma, "forward only"));
        w = c;
        w.tile_n = 200; // halves of 100: no wgmma N
        w.warp_tile_n = 100;
        QVERIFY(culled_by(w, "sm_90a", Rule::Wgmma, "72 ... 120"));
        w = c;
        w.warp_tile_n = 64; // neither the whole tile nor half of it
        QVERIFY(!gconv::wgmma_n_split(w));
        QVERIFY(culled_by(w, "sm_90a", Rule::Wgmma, "tile_n / 2"));
        QVERIFY(culled_by(c, "sm_90", Rule::WarpTile));
    }
};

QTEST_APPLESS_MAIN(TestRules)
#include "tst_rules.moc"
