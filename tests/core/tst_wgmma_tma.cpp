// The tensor-map plan of the wgmma pipeline (codegen/wgmma_tma.h): which problems it takes,
// the geometry it hands the driver, and that only wgmma kernels get the maps argument.
#include "codegen/forward_view.h"
#include "codegen/kernel_source.h"
#include "codegen/launch_sequence.h"
#include "codegen/wgmma_tma.h"

#include <QtTest>

using namespace gconv;

namespace {

// 128 x 128 tile, one consumer warpgroup: the kernel the grouped 2D baselines pick.
KernelConfig wgmma_config(int ndim = 2) {
    KernelConfig c;
    c.pipeline = Pipeline::CompV5;
    c.double_smem_buffer = true;
    c.num_wave_groups = 2;
    c.tile_m = 128;
    c.tile_n = 128;
    c.tile_k = 64;
    c.wave_m = 4;
    c.wave_n = 1;
    c.wave_k = 1;
    c.warp_tile_m = 16;
    c.warp_tile_n = 128;
    c.warp_tile_k = 16;
    c.ndim_spatial = ndim;
    return c;
}

// g2_256 of the forward baselines, with asymmetric padding / stride / dilation per axis so
// that a swapped W/H corner or stride shows.
Problem grouped_2d() {
    Problem p;
    p.N = 4, p.C = 256, p.K = 256, p.G = 2;
    p.Hi = 20, p.Wi = 30;
    p.Y = 3, p.X = 5;
    p.pad_h = 1, p.pad_w = 2;
    p.stride_h = 1, p.stride_w = 2;
    p.dilation_h = 2, p.dilation_w = 1;
    return p;
}

} // namespace

class TestWgmmaTma : public QObject {
    Q_OBJECT

private slots:
    void geometry_2d() {
        const Problem p = grouped_2d();
        const WgmmaTmaPlan plan = plan_wgmma_tma(wgmma_config(), p);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        const TmaIm2colGeometry& a = plan.im2col;
        QCOMPARE(a.rank, 4);
        QCOMPARE(a.dims[0], uint64_t(256)); // every group's channels: the block picks its own
        QCOMPARE(a.dims[1], uint64_t(30));
        QCOMPARE(a.dims[2], uint64_t(20));
        QCOMPARE(a.dims[3], uint64_t(4));
        QCOMPARE(a.strides_bytes[0], uint64_t(256 * 2));
        QCOMPARE(a.strides_bytes[1], uint64_t(256 * 2 * 30));
        QCOMPARE(a.strides_bytes[2], uint64_t(256 * 2 * 30 * 20));
        // W: lower -pad_w, upper pad_w - dilation_w * (X - 1); H likewise.
        QCOMPARE(a.lower[0], -2);
        QCOMPARE(a.upper[0], 2 - 4);
        QCOMPARE(a.lower[1], -1);
        QCOMPARE(a.upper[1], 1 - 4);
        // The box walks exactly the output positions: (Wi - 1 + upper - lower) / stride + 1.
        QCOMPARE(int64_t((30 - 1 + a.upper[0] - a.lower[0]) / 2 + 1), p.Wo());
        QCOMPARE(int64_t((20 - 1 + a.upper[1] - a.lower[1]) / 1 + 1), p.Ho());
        QCOMPARE(a.element_strides[0], 1u);
        QCOMPARE(a.element_strides[1], 2u);
        QCOMPARE(a.element_strides[2], 1u);
        QCOMPARE(a.element_strides[3], 1u);
        QCOMPARE(a.channels, 64u);
        QCOMPARE(a.pixels, 128u);
        const TmaTiledGeometry& b = plan.tiled;
        QCOMPARE(b.dims[0], uint64_t(128));
        QCOMPARE(b.dims[1], uint64_t(15));
        QCOMPARE(b.dims[2], uint64_t(256));
        QCOMPARE(b.strides_bytes[0], uint64_t(128 * 2));
        QCOMPARE(b.strides_bytes[1], uint64_t(128 * 15 * 2));
        QCOMPARE(b.box[0], 64u);
        QCOMPARE(b.box[1], 1u);
        QCOMPARE(b.box[2], 128u);
    }

    void geometry_3d() {
        Problem p;
        p.ndim_spatial = 3;
        p.N = 2, p.C = 128, p.K = 64, p.G = 1;
        p.Di = 6, p.Hi = 7, p.Wi = 8;
        p.Z = p.Y = p.X = 3;
        p.pad_d = 1, p.pad_h = 0, p.pad_w = 1;
        p.stride_d = 2;
        const WgmmaTmaPlan plan = plan_wgmma_tma(wgmma_config(3), p);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QCOMPARE(plan.im2col.rank, 5);
        QCOMPARE(plan.im2col.dims[3], uint64_t(6)); // C, W, H, D, N
        QCOMPARE(plan.im2col.dims[4], uint64_t(2));
        QCOMPARE(plan.im2col.lower[2], -1);
        QCOMPARE(plan.im2col.upper[2], 1 - 2);
        QCOMPARE(plan.im2col.lower[1], 0);
        QCOMPARE(plan.im2col.element_strides[3], 2u);
        QCOMPARE(plan.im2col.element_strides[4], 1u);
        QCOMPARE(plan.tiled.dims[1], uint64_t(27));
    }

    void ineligible_problems_fall_back() {
        const KernelConfig c = wgmma_config();
        Problem p = grouped_2d();
        p.C = p.K = 96; // C/G 48 with two groups: a tap's K tile would read the other group
        QVERIFY(!plan_wgmma_tma(c, p).enabled);
        QVERIFY(plan_wgmma_tma(c, p).reason.find("C/G") != std::string::npos);
        p.C = p.K = 36, p.G = 1; // 72 bytes a pixel: not a 16-byte stride
        QVERIFY(!plan_wgmma_tma(c, p).enabled);
        QVERIFY(plan_wgmma_tma(c, p).reason.find("multiple of 8") != std::string::npos);
        p = grouped_2d();
        p.stride_w = 9;
        QVERIFY(!plan_wgmma_tma(c, p).enabled);
        p = grouped_2d();
        p.pad_w = 200; // beyond the 8-bit corner of a rank-4 map
        QVERIFY(!plan_wgmma_tma(c, p).enabled);
        KernelConfig merged = c;
        merged.num_groups_to_merge = 2;
        QVERIFY(!plan_wgmma_tma(merged, grouped_2d()).enabled);
        KernelConfig si = c;
        si.split_image = true;
        QVERIFY(!plan_wgmma_tma(si, grouped_2d()).enabled);
        // 3D corners have 5 bits: a 7-tap axis with dilation 3 spans 18 > 15.
        Problem q;
        q.ndim_spatial = 3;
        q.N = 1, q.C = 64, q.K = 64, q.G = 1;
        q.Di = q.Hi = q.Wi = 40;
        q.Z = q.Y = q.X = 7;
        q.dilation_d = 3;
        QVERIFY(!plan_wgmma_tma(wgmma_config(3), q).enabled);
        KernelConfig mma = c; // not a wgmma kernel at all
        mma.warp_tile_m = 32;
        mma.warp_tile_n = 32;
        QVERIFY(!plan_wgmma_tma(mma, grouped_2d()).enabled);
    }

    // Dense (G = 1) problems take the maps at any C multiple of 8: each tap's last K tile
    // reads past C, which the copy engine fills with zeros, as it does B past C/G.
    void dense_problems_take_maps_at_any_c_multiple_of_8() {
        Problem p;
        p.N = 2, p.C = 24, p.K = 122, p.G = 1;
        p.Hi = p.Wi = 28;
        WgmmaTmaPlan plan = plan_wgmma_tma(wgmma_config(), p);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QCOMPARE(plan.im2col.dims[0], uint64_t(24));
        QCOMPARE(plan.im2col.strides_bytes[0], uint64_t(24 * 2));
        QCOMPARE(plan.tiled.dims[0], uint64_t(24));
        QCOMPARE(plan.tiled.dims[2], uint64_t(122));
        QCOMPARE(plan.tiled.box[0], 64u); // a whole K tile, 40 of its channels zero-filled
        p.C = 728, p.K = 728, p.Y = p.X = 3, p.pad_h = p.pad_w = 1;
        plan = plan_wgmma_tma(wgmma_config(), p);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QCOMPARE(plan.tiled.strides_bytes[1], uint64_t(728 * 9 * 2));
        // bwd_weight's B copies stay inside one tap only at C/G % 32 == 0 (728 % 32 == 24).
        KernelConfig weight = wgmma_config();
        weight.variant = Variant::BwdWeight;
        QVERIFY(!plan_wgmma_tma(weight, p).enabled);
    }

    // A 1x1 filter at stride 1 without padding multiplies the input itself: A is also planned
    // as a tiled {C, pixels, 1} map (box tile_k x tile_m), 2D and 3D, grouped or dense; any
    // tap, stride or pad keeps the im2col map alone, as does bwd_weight.
    void pointwise_problems_plan_the_input_as_a_matrix() {
        Problem p;
        p.N = 12, p.C = 408, p.K = 912, p.G = 1;
        p.Hi = p.Wi = 16;
        WgmmaTmaPlan plan = plan_wgmma_tma(wgmma_config(), p);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QVERIFY(plan.input_tiled);
        const TmaTiledGeometry& in = plan.input_tile;
        QCOMPARE(in.dims[0], uint64_t(408));
        QCOMPARE(in.dims[1], uint64_t(12 * 16 * 16));
        QCOMPARE(in.dims[2], uint64_t(1));
        QCOMPARE(in.strides_bytes[0], uint64_t(408 * 2));
        QCOMPARE(in.strides_bytes[1], uint64_t(408 * 2) * 12 * 16 * 16);
        QCOMPARE(in.box[0], 64u);
        QCOMPARE(in.box[1], 128u);
        QCOMPARE(in.box[2], 1u);
        QVERIFY(plan.im2col.rank == 4); // the im2col map stays planned beside it

        Problem grouped = grouped_2d(); // C/G 128: block g reads columns g * 128 ...
        grouped.Y = grouped.X = 1;
        grouped.pad_h = grouped.pad_w = 0;
        grouped.stride_w = 1;
        plan = plan_wgmma_tma(wgmma_config(), grouped);
        QVERIFY(plan.input_tiled);
        QCOMPARE(plan.input_tile.dims[0], uint64_t(256));
        QCOMPARE(plan.input_tile.dims[1], uint64_t(4 * 20 * 30));

        Problem q;
        q.ndim_spatial = 3;
        q.N = 3, q.C = 64, q.K = 128, q.G = 1;
        q.Di = 5, q.Hi = 6, q.Wi = 7;
        KernelConfig c3 = wgmma_config(3);
        c3.tile_k = 32;
        plan = plan_wgmma_tma(c3, q);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QVERIFY(plan.input_tiled);
        QCOMPARE(plan.input_tile.dims[1], uint64_t(3 * 5 * 6 * 7));
        QCOMPARE(plan.input_tile.box[0], 32u);

        for (auto change :
             {+[](Problem& x) { x.X = 3, x.pad_w = 1; }, +[](Problem& x) { x.stride_h = 2; },
              +[](Problem& x) { x.pad_h = 1; }}) {
            Problem other = p;
            change(other);
            plan = plan_wgmma_tma(wgmma_config(), other);
            QVERIFY2(plan.enabled, plan.reason.c_str());
            QVERIFY(!plan.input_tiled);
        }
        Problem deep = q;
        deep.stride_d = 2;
        QVERIFY(!plan_wgmma_tma(wgmma_config(3), deep).input_tiled);
        KernelConfig weight = wgmma_config();
        weight.variant = Variant::BwdWeight;
        Problem w = p;
        w.C = 512;
        plan = plan_wgmma_tma(weight, w);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QVERIFY(!plan.input_tiled);
    }

    // tile_k 32: 32-channel copies (64-byte rows), so C/G 32 with groups takes the maps, and
    // the kernel has no other way to load (the plan is required).
    void tile_k_32_copies_32_channel_slices() {
        KernelConfig c = wgmma_config();
        c.tile_k = 32;
        Problem p = grouped_2d();
        p.C = p.K = 64; // C/G 32 with two groups: each 32-channel copy stays in its group
        WgmmaTmaPlan plan = plan_wgmma_tma(c, p);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QVERIFY(plan.required);
        QCOMPARE(plan.im2col.channels, 32u);
        QCOMPARE(plan.tiled.box[0], 32u);
        QCOMPARE(plan.tiled.dims[0], uint64_t(32));
        QCOMPARE(plan.im2col.dims[0], uint64_t(64));
        QCOMPARE(plan.tiled.strides_bytes[0], uint64_t(32 * 2));
        QVERIFY(!plan_wgmma_tma(wgmma_config(), p).enabled); // 64-channel copies cannot
        QVERIFY(!plan_wgmma_tma(wgmma_config(), p).required);
        p.C = p.K = 96; // C/G 48: not a multiple of 32 either
        plan = plan_wgmma_tma(c, p);
        QVERIFY(!plan.enabled);
        QVERIFY(plan.reason.find("multiple of 32") != std::string::npos);
        // Without groups the last slice reads zeros past C: C 24 is one 32-channel slice a tap.
        Problem dense;
        dense.N = 2, dense.C = 24, dense.K = 64, dense.G = 1;
        dense.Hi = dense.Wi = 28;
        dense.Y = dense.X = 3, dense.pad_h = dense.pad_w = 1;
        QVERIFY(plan_wgmma_tma(c, dense).enabled);
        // is_supported refuses what the maps cannot describe, since nothing else loads.
        QVERIFY(is_supported(c, dense).ok);
        p.C = p.K = 96;
        QVERIFY(!is_supported(c, p).ok);
        QVERIFY(is_supported(c, p).reason.find("tensor maps") != std::string::npos);
        QVERIFY(is_supported(wgmma_config(), p).ok); // tile_k 64 falls back to cp.async
        // bwd_weight's MN-major tiles stay 64 wide.
        KernelConfig weight = c;
        weight.variant = Variant::BwdWeight;
        QVERIFY(!plan_wgmma_tma(weight, dense).enabled);
        // bwd_data's view: its C/G is the problem's K/G.
        KernelConfig data = c;
        data.variant = Variant::BwdData;
        Problem grad = grouped_2d();
        grad.stride_w = 1;
        grad.C = 128, grad.K = 64; // K/G 32
        const WgmmaTmaPlan view = plan_wgmma_tma(data, grad);
        QVERIFY2(view.enabled, view.reason.c_str());
        QCOMPARE(view.tiled.dims[0], uint64_t(32));
    }

    // Twice the stages of tile_k 64 in the same bytes, the mbarriers counted per stage.
    void tile_k_32_rings_hold_as_many_bytes() {
        KernelConfig c = wgmma_config();
        const std::size_t wide = shared_bytes(c, 32);
        c.tile_k = 32;
        QCOMPARE(pipeline_stages(c), 2 * pipeline_stages(wgmma_config()));
        QCOMPARE(shared_bytes(c, 32), wide + 16 * 4);
    }

    void only_wgmma_kernels_take_maps() {
        const KernelConfig c = wgmma_config();
        const LaunchSequence seq = plan_sequence(c, grouped_2d());
        QCOMPARE(seq.steps.size(), std::size_t(1));
        QVERIFY(seq.steps[0].kernel.wgmma_maps);
        QVERIFY(seq.tma.enabled);
        QVERIFY(generate_kernel_source(c).find("__grid_constant__ gconv::WgmmaMaps") !=
                std::string::npos);
        KernelConfig plain = c;
        plain.pipeline = Pipeline::CompV4;
        plain.num_wave_groups = 1;
        plain.wave_m = 2;
        plain.wave_n = 2;
        plain.warp_tile_m = 64;
        plain.warp_tile_n = 64;
        const LaunchSequence other = plan_sequence(plain, grouped_2d());
        QVERIFY(!other.steps[0].kernel.wgmma_maps);
        QVERIFY(!other.tma.enabled);
        QVERIFY(generate_kernel_source(plain).find("WgmmaMaps") == std::string::npos);
        QVERIFY(!other.steps[0].kernel.persistent);
    }

    // bwd_data (stride 1) runs as the forward wgmma kernel of its view: the maps are planned on
    // dOut (its channels K, its extent Wo x Ho, pads (taps - 1) x dilation - pad) and on the
    // view's filter in the workspace ({K/G, taps, C}); the filter rotation runs first.
    void bwd_data_plans_the_maps_of_its_forward_view() {
        KernelConfig c = wgmma_config();
        c.variant = Variant::BwdData;
        Problem p = grouped_2d();
        p.stride_w = 1;
        p.K = 384; // K/G 192 != C/G 128: a swapped channel axis shows
        QVERIFY2(is_supported(c, p).ok, is_supported(c, p).reason.c_str());
        const WgmmaTmaPlan plan = plan_wgmma_tma(c, p);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QCOMPARE(plan.im2col.dims[0], uint64_t(384));
        QCOMPARE(plan.im2col.dims[1], uint64_t(p.Wo()));
        QCOMPARE(plan.im2col.dims[2], uint64_t(p.Ho()));
        QCOMPARE(plan.im2col.lower[0], -(4 - 2)); // view pad_w = (X - 1) * dilation_w - pad_w
        QCOMPARE(plan.im2col.lower[1], -(4 - 1)); // view pad_h = (Y - 1) * dilation_h - pad_h
        QCOMPARE(plan.im2col.element_strides[1], 1u);
        QCOMPARE(plan.tiled.dims[0], uint64_t(192));
        QCOMPARE(plan.tiled.dims[1], uint64_t(15));
        QCOMPARE(plan.tiled.dims[2], uint64_t(256));
        // The box walks every dIn pixel.
        QCOMPARE(int64_t(p.Wo() - 1 + plan.im2col.upper[0] - plan.im2col.lower[0] + 1), p.Wi);
        QCOMPARE(int64_t(p.Ho() - 1 + plan.im2col.upper[1] - plan.im2col.lower[1] + 1), p.Hi);
        const LaunchSequence seq = plan_sequence(c, p);
        QCOMPARE(seq.steps.size(), std::size_t(2));
        QCOMPARE(seq.steps[0].kernel.entry, std::string(rotate_filter_entry_name()));
        QVERIFY(seq.steps[1].kernel.wgmma_maps && seq.steps[1].kernel.dout_as_input);
        QVERIFY(!seq.steps[1].kernel.workspace_arg);
        QCOMPARE(seq.workspace_bytes, std::size_t(p.weight_elements() * 2));
        // Params and grid are the forward view's: dIn pixels are the GEMM rows.
        QCOMPARE(int64_t{seq.params.C}, p.K);
        QCOMPARE(int64_t{seq.params.c_per_group}, p.k_per_group());
        QCOMPARE(int64_t{seq.params.Wo}, p.Wi);
        QCOMPARE(int64_t{seq.params.m_tiles_per_piece}, (p.N * p.Hi * p.Wi + 127) / 128);
        QCOMPARE(seq.steps[1].kernel.grid_y, unsigned((128 + 127) / 128));
        const std::string source = generate_kernel_source(c);
        QVERIFY(source.find(generate_kernel_source(forward_twin(c))) != std::string::npos);
        QVERIFY(source.find("gconv::rotate_filter<gconv::bf16_t>(p, workspace)") !=
                std::string::npos);
        // Strides above 1 and pads past the filter are refused by name.
        Problem strided = p;
        strided.stride_h = 2;
        QVERIFY(QString::fromStdString(is_supported(c, strided).reason).startsWith("stride"));
        Problem padded = p;
        padded.pad_w = 5;
        QVERIFY(QString::fromStdString(is_supported(c, padded).reason).startsWith("pad"));
        // A refusal of the view's own check says that it is the view's.
        KernelConfig merged = c;
        merged.num_groups_to_merge = 4;
        const SupportCheck m = is_supported(merged, p);
        QVERIFY(!m.ok && m.reason.find("forward convolution of dOut") != std::string::npos);
    }

    // bwd_weight reduces over output pixels: A is dOut through a tiled map ({K, pixels, 1}, a
    // 64 x 64 box), B the input through an im2col map of 64 pixels per copy; the kernel has no
    // cp.async producer, so a problem the maps cannot describe is refused, by name.
    void bwd_weight_plans_tiled_dout_and_im2col_input() {
        KernelConfig c = wgmma_config();
        c.variant = Variant::BwdWeight;
        c.split_k = 4;
        c.split_k_mode = SplitKMode::Atomic;
        const Problem p = grouped_2d();
        QVERIFY2(is_supported(c, p).ok, is_supported(c, p).reason.c_str());
        const WgmmaTmaPlan plan = plan_wgmma_tma(c, p);
        QVERIFY2(plan.enabled, plan.reason.c_str());
        QVERIFY(plan.required && plan.tiled_over_output);
        QCOMPARE(plan.im2col.pixels, 64u);
        QCOMPARE(plan.im2col.channels, 64u);
        QCOMPARE(plan.im2col.dims[0], uint64_t(256)); // the input's channels, as forward
        QCOMPARE(plan.im2col.element_strides[1], 2u); // stride_w
        const uint64_t pixels = uint64_t(p.N * p.Ho() * p.Wo());
        QCOMPARE(plan.tiled.dims[0], uint64_t(256)); // K
        QCOMPARE(plan.tiled.dims[1], pixels);
        QCOMPARE(plan.tiled.dims[2], uint64_t(1));
        QCOMPARE(plan.tiled.strides_bytes[0], uint64_t(256 * 2));
        QCOMPARE(plan.tiled.box[0], 64u);
        QCOMPARE(plan.tiled.box[1], 64u);
        QCOMPARE(plan.tiled.box[2], 1u);
        // memset of the fp32 workspace, the wgmma GEMM (maps, workspace), the convert kernel;
        // with GCONV_WGMMA_FINISH_IN_BLOCK=1 the memset also zeroes a ticket per tile and the
        // GEMM's consumers convert each tile once its last split has added to it.
        qunsetenv("GCONV_WGMMA_FINISH_IN_BLOCK");
        QCOMPARE(plan_sequence(c, p).steps.size(), std::size_t(3));
        qputenv("GCONV_WGMMA_FINISH_IN_BLOCK", "1");
        const LaunchSequence in_block = plan_sequence(c, p);
        QCOMPARE(in_block.steps.size(), std::size_t(2));
        const LaunchPlan grid = plan_launch(c, p);
        const std::size_t tiles = std::size_t(grid.grid_x) * grid.grid_y * (grid.grid_z / 4);
        QCOMPARE(in_block.workspace_bytes, std::size_t(p.weight_elements()) * 4 + tiles * 4);
        QCOMPARE(in_block.steps[0].memset.bytes, in_block.workspace_bytes);
        qunsetenv("GCONV_WGMMA_FINISH_IN_BLOCK");
        const LaunchSequence seq = plan_sequence(c, p);
        const KernelStep& main = seq.steps[1].kernel;
        QVERIFY(main.wgmma_maps && main.workspace_arg && !main.persistent && !main.dout_as_input);
        QCOMPARE(main.block_threads, unsigned((4 + 4) * 32)); // producer warpgroup + consumers
        QCOMPARE(main.grid_z, unsigned(p.G * 4));
        QVERIFY(generate_kernel_source(c).find(
                    "gconv::bwd_weight::run<GconvConfig>(p, workspace, maps)") !=
                std::string::npos);
        // C/G 32: a 64-channel B copy would cross taps, so the input's copies are 32 channels
        // wide (64-byte rows); dOut's stay 64 wide.
        Problem narrow = p;
        narrow.C = 64;
        QVERIFY2(is_supported(c, narrow).ok, is_supported(c, narrow).reason.c_str());
        const WgmmaTmaPlan narrow_plan = plan_wgmma_tma(c, narrow);
        QVERIFY(narrow_plan.enabled);
        QCOMPARE(narrow_plan.im2col.channels, 32u);
        QCOMPARE(narrow_plan.im2col.pixels, 64u);
        QCOMPARE(narrow_plan.tiled.box[0], 64u);
        // A 96-wide tile takes 32-channel copies at any C/G % 32 == 0 (C/G 128 here).
        KernelConfig c96 = c;
        c96.tile_n = 96, c96.warp_tile_n = 96;
        QVERIFY2(is_supported(c96, p).ok, is_supported(c96, p).reason.c_str());
        QCOMPARE(plan_wgmma_tma(c96, p).im2col.channels, 32u);
        QCOMPARE(plan_wgmma_tma(c, p).im2col.channels, 64u);
        narrow.C = 96; // C/G 48: no whole-tap copy width
        const SupportCheck s = is_supported(c, narrow);
        QVERIFY(!s.ok);
        QVERIFY2(QString::fromStdString(s.reason).startsWith("tensor maps"), s.reason.c_str());
        QVERIFY(s.reason.find("C/G is not a multiple of 32") != std::string::npos);
        // The mma.sync bwd_weight kernels take no maps.
        KernelConfig plain = c;
        plain.pipeline = Pipeline::Mem;
        plain.double_smem_buffer = false;
        plain.num_wave_groups = 1;
        plain.wave_m = 2, plain.wave_n = 2;
        plain.warp_tile_m = 32, plain.warp_tile_n = 32;
        QVERIFY(!plan_wgmma_tma(plain, p).enabled);
    }

    // The direct epilogue leaves the ring free for the next tile's loads: its grid is persistent;
    // cshuffle stages C in the ring, one tile per block.
    void direct_epilogue_runs_a_persistent_grid() {
        KernelConfig c = wgmma_config();
        QVERIFY(!plan_sequence(c, grouped_2d()).steps[0].kernel.persistent);
        c.epilogue = Epilogue::Direct;
        c.vector_size_c = 2;
        const LaunchSequence seq = plan_sequence(c, grouped_2d());
        QVERIFY(seq.steps[0].kernel.persistent);
        QVERIFY(seq.steps[0].kernel.wgmma_maps);
        // The grid it walks is the non-persistent one (the executor shrinks what it launches).
        const LaunchPlan plan = plan_launch(c, grouped_2d());
        QCOMPARE(seq.steps[0].kernel.grid_x, plan.grid_x);
        QCOMPARE(seq.steps[0].kernel.grid_y, plan.grid_y);
    }

    // A cluster of two blocks walks tile groups (one M tile, two N tiles): the persistent grid
    // launches whole clusters, at most one block per multiprocessor, never more groups than
    // there are; it loads through the tensor maps only (its A is a multicast copy), so a problem
    // without them is refused with the reason, and the sequence carries the cluster size.
    void a_cluster_launches_whole_clusters_and_needs_the_maps() {
        KernelConfig c = wgmma_config();
        c.epilogue = Epilogue::CShuffleBuf;
        c.cluster_n = 2;
        const Problem p = grouped_2d();
        const LaunchSequence seq = plan_sequence(c, p);
        const KernelStep& k = seq.steps[0].kernel;
        QVERIFY(k.persistent);
        QCOMPARE(k.cluster, 2u);
        QVERIFY(seq.tma.required && seq.tma.enabled);
        const unsigned groups = k.grid_x * ((k.grid_y + 1) / 2) * k.grid_z;
        QVERIFY(groups > 2);
        QCOMPARE(step_grid(k, 132).x, std::min(2 * groups, 132u));
        QCOMPARE(step_grid(k, 3).x, 2u); // one whole cluster where 3 blocks fit
        QCOMPARE(step_grid(k, 1).x, 2u); // never half a cluster
        QCOMPARE(step_grid(k, 1).y, 1u);
        KernelStep odd = k;
        odd.grid_x = 1, odd.grid_y = 3, odd.grid_z = 1; // N tiles 0-1 and 2 (+ one past N)
        QCOMPARE(step_grid(odd, 132).x, 4u);
        c.cluster_n = 1;
        QCOMPARE(plan_sequence(c, p).steps[0].kernel.cluster, 1u);
        QVERIFY(!plan_sequence(c, p).tma.required);
        c.cluster_n = 2;
        Problem no_maps = p;
        no_maps.C = no_maps.K =
            2 * 72; // C/G 72 in 2 groups: a 64-channel copy reads the next group
        QVERIFY(!plan_wgmma_tma(c, no_maps).enabled);
        c.cluster_n = 1;
        QVERIFY(is_supported(c, no_maps).ok); // the lone block's cp.async producer runs it
        c.cluster_n = 2;
        const SupportCheck s = is_supported(c, no_maps);
        QVERIFY(!s.ok);
        QVERIFY2(s.reason.find("cluster") != std::string::npos, s.reason.c_str());
    }

    // cshufflebuf shuffles C through a buffer after the ring: persistent like the direct
    // epilogue, and its shared memory holds the ring and that buffer side by side, with as
    // many stages as fit beside it (256 x 128: 3 of 48 KiB + 68 KiB of C, under 227 KiB).
    void cshufflebuf_epilogue_runs_a_persistent_grid_beside_its_own_c_buffer() {
        KernelConfig c = wgmma_config();
        c.epilogue = Epilogue::CShuffleBuf;
        const LaunchSequence seq = plan_sequence(c, grouped_2d());
        QVERIFY(seq.steps[0].kernel.persistent);
        QVERIFY(seq.steps[0].kernel.wgmma_maps);
        const std::size_t c_tile = 128 * (128 + 8) * 2;
        QCOMPARE(pipeline_stages(c), 4);
        QCOMPARE(shared_bytes(c), std::size_t{4 * 256 * 128} + c_tile + 1088);
        QCOMPARE(seq.steps[0].kernel.shared_bytes, shared_bytes(c));
        // cshuffle reuses the ring for C: no extra buffer.
        c.epilogue = Epilogue::CShuffle;
        QCOMPARE(shared_bytes(c), std::size_t{4 * 256 * 128} + 1088);
        QCOMPARE(c_buffer_passes(c), 1); // a whole C tile already leaves room for 4 stages
        c.epilogue = Epilogue::CShuffleBuf;
        c.tile_m = 256;
        c.wave_m = 8;
        // A whole 256 x 128 C tile (68 KiB) would leave room for 3 stages of 48 KiB, half of
        // it (36 KiB) still for 3: the buffer holds a quarter (32 columns, 20 KiB) and the
        // ring 4 stages.
        QCOMPARE(c_buffer_passes(c), 4);
        QCOMPARE(pipeline_stages(c), 4);
        QCOMPARE(shared_bytes(c), std::size_t{4 * 384 * 128} + 256 * 40 * 2 + 1088);
        QVERIFY(shared_bytes(c) <= 232448);
        // 128 x 256 likewise (64 columns at a time).
        c.tile_m = 128;
        c.tile_n = 256;
        c.warp_tile_n = 256;
        QCOMPARE(c_buffer_passes(c), 4);
        QCOMPARE(shared_bytes(c), std::size_t{4 * 384 * 128} + 128 * 72 * 2 + 1088);
        // Slices keep whole output vectors: 128-element vectors allow halves only, which
        // (136 columns of padded rows, 34 KiB) are 64 bytes too many for a fourth stage.
        c.vector_size_c = 128;
        QCOMPARE(c_buffer_passes(c), 1);
        QCOMPARE(pipeline_stages(c), 3);
        c.vector_size_c = 8;
        c.epilogue = Epilogue::CShuffle;
        QCOMPARE(c_buffer_passes(c), 1);
        QCOMPARE(pipeline_stages(c), 4);
    }

    // Ping-pong consumers (interwave) have a C buffer each and the persistent grid.
    void pingpong_has_a_c_buffer_per_consumer_warpgroup() {
        KernelConfig c = wgmma_config();
        c.wave_m = 8;
        c.scheduler = Scheduler::Interwave;
        c.epilogue = Epilogue::CShuffleBuf;
        QVERIFY(wgmma_pingpong(c));
        QCOMPARE(pipeline_stages(c), 4);
        QCOMPARE(shared_bytes(c), std::size_t{4 * 256 * 128} + 2 * 128 * 136 * 2 + 1088);
        QVERIFY(plan_sequence(c, grouped_2d()).steps[0].kernel.persistent);
        c.scheduler = Scheduler::Intrawave; // the two warpgroups share each tile: one buffer
        QVERIFY(!wgmma_pingpong(c));
        QCOMPARE(shared_bytes(c), std::size_t{4 * 256 * 128} + 128 * 136 * 2 + 1088);
    }
};

QTEST_APPLESS_MAIN(TestWgmmaTma)
#include "tst_wgmma_tma.moc"
