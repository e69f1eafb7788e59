// Kernel code generation and launch planning (forward and backward launch sequences): deterministic
// sources that differ per config, grids that cover M, N and G exactly, the shared-memory formula,
// make_params, one is_supported reason per rule, and 2D kernels on the 3D problems that are 2D.
#include "codegen/channel_pad.h"
#include "codegen/fold_to_2d.h"
#include "codegen/kernel_problem.h"
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "codegen/launch_sequence.h"

#include "random_problem.h"

#include <QRandomGenerator>
#include <QtTest>

#include <random>
#include <set>
#include <stdexcept>

using namespace gconv;
using gconv::test::random_problem;

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

KernelConfig random_config(std::mt19937& rng) {
    auto pick = [&](std::initializer_list<int> v) {
        return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng));
    };
    KernelConfig c;
    c.dtype = static_cast<DataType>(pick({0, 1, 2}));
    c.ndim_spatial = pick({2, 3});
    c.tile_m = pick({16, 32, 64, 128, 256});
    c.tile_n = pick({16, 32, 64, 128, 256});
    c.tile_k = pick({16, 32, 64, 128});
    c.wave_m = pick({1, 2, 4});
    c.wave_n = pick({1, 2, 4});
    c.warp_tile_m = pick({16, 32});
    c.warp_tile_n = pick({8, 16, 32});
    c.warp_tile_k = c.dtype == DataType::FP32 ? pick({1, 2, 4, 8}) : 16;
    c.pipeline = static_cast<Pipeline>(pick({0, 1, 2, 3, 4, 5, 6}));
    c.scheduler = static_cast<Scheduler>(pick({0, 1}));
    c.epilogue = static_cast<Epilogue>(pick({0, 1}));
    c.num_groups_to_merge = pick({1, 2, 4, 8});
    c.split_image = pick({0, 1});
    c.double_smem_buffer = pick({0, 1});
    c.vector_size_a = c.vector_size_b = c.vector_size_c = pick({1, 2, 4});
    return c;
}

KernelConfig base() {
    KernelConfig c; // bf16 128x128x32, 2x2 warps, 32x32x16, compv3 cshuffle
    return c;
}

Problem base_problem() {
    Problem p;
    p.N = 4, p.C = 64, p.K = 64, p.G = 2, p.Hi = 14, p.Wi = 14, p.Y = 3, p.X = 3;
    p.pad_h = p.pad_w = 1;
    return p;
}

void expect_reason(const KernelConfig& c, const Problem& p, const char* field) {
    const SupportCheck s = is_supported(c, p);
    QVERIFY2(!s.ok, field);
    QVERIFY2(s.reason.rfind(field, 0) == 0, (std::string(field) + " <- " + s.reason).c_str());
}

} // namespace

class TestCodegen : public QObject {
    Q_OBJECT
private slots:
    void source_is_deterministic_and_complete() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        for (int i = 0; i < 50; ++i) {
            const KernelConfig c = random_config(rng);
            const std::string a = generate_kernel_source(c);
            QCOMPARE(generate_kernel_source(KernelConfig(c)), a);
            QVERIFY(a.find("#include \"gconv_fwd.h\"") != std::string::npos);
            QVERIFY(a.find(std::string(kernel_entry_name()) + "(gconv::ConvParams p)") !=
                    std::string::npos);
            QVERIFY(a.find("kSmemBytes = " + std::to_string(shared_bytes(c)) + ";") !=
                    std::string::npos);
            QVERIFY(a.find("GCONV_LAUNCH_BOUNDS(GCONV_WARP_SIZE * " +
                           std::to_string(c.wave_m * c.wave_n) + ", " +
                           std::to_string(c.block_per_cu) + ")") != std::string::npos);
        }
    }

    void every_knob_changes_the_source() {
        const KernelConfig c = base();
        const std::string a = generate_kernel_source(c);
        std::vector<KernelConfig> variants(20, c);
        variants[0].dtype = DataType::FP16;
        variants[1].ndim_spatial = 3;
        variants[2].tile_m = 64;
        variants[3].tile_n = 64;
        variants[4].tile_k = 64;
        variants[5].wave_m = 4;
        variants[6].wave_n = 1;
        variants[7].warp_tile_m = 16;
        variants[8].warp_tile_n = 16;
        variants[9].warp_tile_k = 32;
        variants[10].pipeline = Pipeline::Mem;
        variants[11].scheduler = Scheduler::Interwave;
        variants[12].epilogue = Epilogue::Direct;
        variants[13].vector_size_a = 4;
        variants[14].vector_size_b = 4;
        variants[15].vector_size_c = 4;
        variants[16].num_groups_to_merge = 2;
        variants[17].split_image = true;
        variants[18].pad_k = false;
        variants[19].block_per_cu = 2;
        std::set<std::string> seen{a};
        for (const KernelConfig& v : variants)
            QVERIFY(seen.insert(generate_kernel_source(v)).second);
    }

    void grid_covers_problem_exactly() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        int planned = 0;
        for (int i = 0; i < 400; ++i) {
            KernelConfig c = random_config(rng);
            c.split_image = false;
            const Problem p = random_problem(rng, c.ndim_spatial);
            const LaunchPlan plan = plan_launch(c, p);
            const auto g = p.gemm(Variant::Forward);
            QCOMPARE(int64_t(plan.grid_x), ceil_div(g.m, c.tile_m));
            QCOMPARE(int64_t(plan.grid_y), ceil_div(g.n * c.num_groups_to_merge, c.tile_n));
            QCOMPARE(int64_t(plan.grid_z), ceil_div(p.G, c.num_groups_to_merge));
            QCOMPARE(int(plan.block_threads), c.wave_m * c.wave_n * 32);
            QCOMPARE(plan.shared_bytes, shared_bytes(c));
            ++planned;
        }
        QVERIFY(planned > 0);
    }

    void split_image_pieces_cover_all_images() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        for (int i = 0; i < 200; ++i) {
            KernelConfig c = random_config(rng);
            c.split_image = true;
            const Problem p = random_problem(rng, c.ndim_spatial);
            const int64_t per_image =
                std::max(p.Di * p.Hi * p.Wi * p.C, p.Do() * p.Ho() * p.Wo() * p.K);
            const int64_t limit = per_image * std::uniform_int_distribution<int64_t>(1, 4)(rng);
            const ConvParams q = make_params(c, p, nullptr, nullptr, nullptr, limit);
            const LaunchPlan plan = plan_launch(c, p, 32, limit);
            const int64_t pieces = ceil_div(p.N, q.images_per_piece);
            QVERIFY(int64_t(q.images_per_piece) * per_image <= limit);
            QCOMPARE(int64_t(plan.grid_x), pieces * q.m_tiles_per_piece);
            QCOMPARE(int64_t(q.m_tiles_per_piece),
                     ceil_div(int64_t(q.images_per_piece) * p.Do() * p.Ho() * p.Wo(), c.tile_m));
            QCOMPARE(q.in_piece_stride, int64_t(q.images_per_piece) * p.Di * p.Hi * p.Wi * p.C);
            QCOMPARE(q.out_piece_stride,
                     int64_t(q.images_per_piece) * p.Do() * p.Ho() * p.Wo() * p.K);
            // Enough tiles for every row of the largest piece.
            QVERIFY(int64_t(q.m_tiles_per_piece) * c.tile_m >=
                    int64_t(q.images_per_piece) * p.Do() * p.Ho() * p.Wo());
        }
    }

    void shared_bytes_formula() {
        KernelConfig c = base(); // bf16: rows of 32 + 8 elements
        const std::size_t stage = (128 + 128) * (32 + 8) * 2;
        QCOMPARE(stage_bytes(c), stage);
        QCOMPARE(shared_bytes(c), std::max<std::size_t>(stage, 128 * (128 + 8) * 2));
        c.pipeline = Pipeline::CompV4;
        c.double_smem_buffer = true;
        QCOMPARE(shared_bytes(c), 2 * stage);
        c.pipeline = Pipeline::CompV6;
        c.double_smem_buffer = false;
        QCOMPARE(shared_bytes(c), 3 * stage);
        c.pipeline = Pipeline::CompV5;
        c.double_smem_buffer = true;
        QCOMPARE(shared_bytes(c), std::max<std::size_t>(2 * stage, 128 * 128 * 4));
        c.pipeline = Pipeline::Mem;
        c.double_smem_buffer = false;
        QCOMPARE(pipeline_stages(c), 1 + 2); // 20 KiB stages: two in flight
        c.tile_m = c.tile_n = 16;
        c.wave_m = c.wave_n = 1;
        c.warp_tile_m = c.warp_tile_n = 16;
        c.epilogue = Epilogue::Direct;
        QCOMPARE(pipeline_stages(c), 1 + 8); // 2560-byte stages: capped at eight in flight
        QCOMPARE(shared_bytes(c), std::size_t(9 * 32 * 40 * 2));
        c.dtype = DataType::FP32; // 16-byte pad = 4 floats
        c.warp_tile_k = 4;
        QCOMPARE(stage_bytes(c), std::size_t(32 * 36 * 4));
    }

    void make_params_copies_sizes() {
        Problem p = base_problem();
        p.ndim_spatial = 3, p.Di = 5, p.Z = 3, p.pad_d = 1, p.stride_h = 2, p.dilation_w = 2;
        int a = 0, b = 0, o = 0;
        const ConvParams q = make_params(p, &a, &b, &o);
        QCOMPARE(q.in, static_cast<const void*>(&a));
        QCOMPARE(q.out, static_cast<void*>(&o));
        QCOMPARE(q.Do, int(p.Do()));
        QCOMPARE(q.Ho, int(p.Ho()));
        QCOMPARE(q.Wo, int(p.Wo()));
        QCOMPARE(q.c_per_group, int(p.c_per_group()));
        QCOMPARE(q.dilation_w, 2);
        QCOMPARE(q.images_per_piece, int(p.N));
    }

    void base_config_is_supported() {
        const SupportCheck s = is_supported(base(), base_problem());
        QVERIFY2(s.ok, s.reason.c_str());
        QVERIFY(s.reason.empty());
    }

    void unsupported_pairs_name_their_rule() {
        const Problem p = base_problem(); // C/G = K/G = 32
        KernelConfig c = base();
        c = base(), c.ndim_spatial = 3;
        expect_reason(c, p, "ndim_spatial");
        c = base(), c.wave_k = 2;
        expect_reason(c, p, "wave_k");
        c = base(), c.tile_m = 64; // 2 x 32 fits, 2 x 64 does not
        c.warp_tile_m = 64;
        expect_reason(c, p, "tile_m");
        c = base(), c.warp_tile_k = 8, c.dtype = DataType::FP16, c.tile_k = 12;
        expect_reason(c, p, "tile_k");
        c = base(), c.pipeline = Pipeline::CompV4;
        expect_reason(c, p, "pipeline");
        c = base(), c.pipeline = Pipeline::CompV5, c.double_smem_buffer = true,
        c.num_wave_groups = 2, c.scheduler = Scheduler::Interwave;
        expect_reason(c, p, "scheduler");
        c = base(), c.double_smem_buffer = true;
        expect_reason(c, p, "double_smem_buffer");
        c = base(), c.dtype = DataType::FP32, c.warp_tile_k = 4, c.vector_size_a = 8;
        expect_reason(c, p, "vector_size_a");
        c = base(), c.tile_m = c.tile_n = 256, c.warp_tile_m = c.warp_tile_n = 64;
        expect_reason(c, p, "tile_m * tile_n");
        Problem odd = p;
        odd.C = 2 * 36; // C/G = 36: not a multiple of 8
        c = base();
        expect_reason(c, odd, "vector_size_a");
        odd = p, odd.K = 2 * 20; // K/G = 20
        expect_reason(c, odd, "vector_size_c");
        c = base(), c.num_groups_to_merge = 8;
        expect_reason(c, p, "num_groups_to_merge");
        Problem depthwise = p;
        depthwise.G = depthwise.C = depthwise.K = 36; // G % 8 != 0 with C/G = 1
        c = base(), c.num_groups_to_merge = 8, c.vector_size_b = 1;
        expect_reason(c, depthwise, "vector_size_a");
        c = base(), c.pad_m = false;
        expect_reason(c, p, "pad_m");
        c = base(), c.pad_n = false;
        expect_reason(c, p, "pad_n");
        c = base(), c.pad_k = false, c.tile_k = 64; // 9 * 32 = 288 is not a multiple of 64
        expect_reason(c, p, "pad_k");
        Problem huge = p;
        huge.N = 1024, huge.Hi = huge.Wi = 256, huge.C = huge.K = 64; // 4.3e9 input elements
        c = base();
        expect_reason(c, huge, "split_image");
        c.split_image = true;
        QVERIFY2(is_supported(c, huge).ok, is_supported(c, huge).reason.c_str());
    }

    void pad_false_accepts_exact_problems() {
        Problem p = base_problem();
        p.N = 8, p.Hi = p.Wi = 16; // M = 8 * 256, K/G = 32, C/G = 32
        KernelConfig c = base();
        c.tile_n = 32, c.wave_n = 1;
        c.pad_m = c.pad_n = c.pad_k = false;
        const SupportCheck s = is_supported(c, p);
        QVERIFY2(s.ok, s.reason.c_str());
    }

    void backward_pairs_name_their_rule() {
        const Problem p = base_problem(); // C/G = K/G = 32, Z*Y*X*C/G = 288
        KernelConfig c = base();
        c.variant = Variant::BwdWeight, c.num_groups_to_merge = 2;
        expect_reason(c, p, "num_groups_to_merge");
        c = base(), c.variant = Variant::BwdWeight, c.split_k = 4;
        expect_reason(c, p, "split_k_mode");
        c.split_k = 1, c.split_k_mode = SplitKMode::Atomic;
        expect_reason(c, p, "split_k_mode");
        c = base(), c.variant = Variant::BwdData, c.split_k = 2,
        c.split_k_mode = SplitKMode::TwoStage;
        expect_reason(c, p, "split_k");
        // MN-major operands load vectors along tile_m / tile_n, not tile_k.
        c = base(), c.variant = Variant::BwdWeight, c.tile_k = 16, c.warp_tile_k = 16;
        c.tile_m = 32, c.wave_m = 1, c.vector_size_a = 8;
        QVERIFY2(is_supported(c, p).ok, is_supported(c, p).reason.c_str());
        Problem odd = p;
        odd.C = 2 * 20; // C/G = 20: B vectors of 8 would cross a group
        c = base(), c.variant = Variant::BwdData;
        expect_reason(c, odd, "vector_size_b");
        c = base(), c.variant = Variant::BwdWeight, c.split_k = 1 << 10,
        c.split_k_mode = SplitKMode::TwoStage;
        Problem many = p;
        many.G = many.C = many.K = 128; // z = 128 * 1024 blocks
        c.vector_size_a = c.vector_size_b = c.vector_size_c = 1;
        c.tile_m = c.tile_n = 64; // 16 loads of one element per thread and K tile
        expect_reason(c, many, "grid");
        c = base(), c.variant = Variant::BwdData, c.pad_m = false;
        Problem strided = p;
        strided.stride_h = strided.stride_w = 2; // phases of 7 x 7 pixels
        expect_reason(c, strided, "pad_m");
    }

    void backward_shared_bytes_formula() {
        KernelConfig c = base(); // 128x128x32 bf16 compv3
        c.variant = Variant::BwdWeight, c.split_k = 4, c.split_k_mode = SplitKMode::TwoStage;
        const std::size_t stage = (32 * (128 + 8) + 32 * (128 + 8)) * 2;
        QCOMPARE(stage_bytes(c), stage);
        QCOMPARE(shared_bytes(c), std::max<std::size_t>(stage, 128 * (128 + 4) * 4)); // fp32 C
        c.variant = Variant::BwdData, c.split_k = 1, c.split_k_mode = SplitKMode::None;
        QCOMPARE(stage_bytes(c), std::size_t((128 * (32 + 8) + 32 * (128 + 8)) * 2));
        QCOMPARE(shared_bytes(c), std::max<std::size_t>(stage_bytes(c), 128 * (128 + 8) * 2));
    }

    void two_d_kernels_fold_a_batch_depth() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        for (int trial = 0; trial < 20; ++trial) {
            Problem p = random_problem(rng, 3);
            p.Z = 1, p.stride_d = 1, p.pad_d = 0;
            QVERIFY(has_batch_depth(p));
            const Problem f = fold_depth(p);
            // The same tensors byte for byte, and the same work.
            QCOMPARE(f.ndim_spatial, 2);
            QCOMPARE(f.N, p.N * p.Di);
            QCOMPARE(f.input_elements(), p.input_elements());
            QCOMPARE(f.weight_elements(), p.weight_elements());
            QCOMPARE(f.output_elements(), p.output_elements());
            QCOMPARE(f.flops(), p.flops());
            for (const Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight}) {
                KernelConfig c = base();
                c.variant = v;
                const SupportCheck folded = is_supported(c, f), given = is_supported(c, p);
                QCOMPARE(given.ok, folded.ok);
                QCOMPARE(given.reason, folded.reason);
                if (!given.ok) continue;
                const LaunchSequence a = plan_sequence(c, p), b = plan_sequence(c, f);
                QCOMPARE(a.steps.size(), b.steps.size());
                QCOMPARE(a.steps.back().kernel.grid_x, b.steps.back().kernel.grid_x);
                QCOMPARE(a.steps.back().kernel.grid_y, b.steps.back().kernel.grid_y);
                QCOMPARE(a.params.N, int(p.N * p.Di));
                QCOMPARE(a.params.Do, 1);
                QCOMPARE(a.workspace_bytes, b.workspace_bytes);
                // A 3D kernel computes the problem as given.
                c.ndim_spatial = 3;
                QCOMPARE(kernel_problem(c, p).key(), p.key());
            }
        }
        // A filter that mixes depth keeps the problem 3D: 2D kernels refuse it.
        Problem p = base_problem();
        p.ndim_spatial = 3, p.Di = 4;
        QVERIFY(is_supported(base(), p).ok);
        Problem q = p;
        q.Z = 3, q.pad_d = 1;
        expect_reason(base(), q, "ndim_spatial");
        q = p, q.stride_d = 2;
        expect_reason(base(), q, "ndim_spatial");
        q = p, q.Di = 6, q.pad_d = 1;
        expect_reason(base(), q, "ndim_spatial");
        QVERIFY(!has_batch_depth(base_problem())); // 2D already
    }

    void two_d_kernels_fold_a_pointwise_plane() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        int folded = 0;
        for (int trial = 0; trial < 40; ++trial) {
            Problem p = random_problem(rng, 3);
            p.Y = p.X = 1, p.stride_h = p.stride_w = 1, p.pad_h = p.pad_w = 0;
            if (p.Z == 1) p.Z = 3, p.pad_d = 1; // a depth that is not a batch
            if (!validate(p).empty() || has_batch_depth(p)) continue;
            QVERIFY(has_pointwise_plane(p));
            ++folded;
            const Problem f = fold_plane(p);
            QCOMPARE(f.ndim_spatial, 2);
            QCOMPARE(f.Ho(), p.Do());
            QCOMPARE(f.Wo(), p.Ho() * p.Wo());
            QCOMPARE(f.input_elements(), p.input_elements());
            QCOMPARE(f.weight_elements(), p.weight_elements());
            QCOMPARE(f.output_elements(), p.output_elements());
            QCOMPARE(f.flops(), p.flops());
            KernelConfig c = base();
            QCOMPARE(kernel_problem(c, p).key(), f.key());
            QCOMPARE(kernel_problem(c, f).key(), f.key()); // idempotent
            const SupportCheck s = is_supported(c, p);
            QCOMPARE(s.ok, is_supported(c, f).ok);
            if (s.ok) QCOMPARE(plan_sequence(c, p).params.Ho, int(p.Do()));
            c.ndim_spatial = 3;
            QCOMPARE(kernel_problem(c, p).key(), p.key());
        }
        QVERIFY2(folded >= 10, qPrintable(QString::number(folded)));
        // Strides or pads along H or W keep the problem 3D.
        Problem p = base_problem();
        p.ndim_spatial = 3, p.Di = 6, p.Z = 3, p.pad_d = 1, p.Y = p.X = 1, p.pad_h = p.pad_w = 0;
        QVERIFY(is_supported(base(), p).ok);
        Problem q = p;
        q.stride_w = 2;
        expect_reason(base(), q, "ndim_spatial");
        q = p, q.pad_h = 1;
        expect_reason(base(), q, "ndim_spatial");
    }

    // channel_pad: the copy into the workspace, then the GEMM on the padded problem reading it.
    void channel_pad_copies_then_runs_the_padded_problem() {
        KernelConfig c = base();
        c.channel_pad = true;
        Problem p = base_problem();
        p.C = 2 * 3, p.K = 2 * 32; // C/G 3: padded to the 8-element vector
        const SupportCheck s = is_supported(c, p);
        QVERIFY2(s.ok, s.reason.c_str());
        const Problem padded = kernel_problem(c, p);
        QCOMPARE(padded.C, int64_t{2 * 8});
        QCOMPARE(kernel_problem(c, padded).key(), padded.key()); // idempotent
        QVERIFY(!is_supported(base(), p).ok);                    // the plain kernel refuses C/G 3
        const LaunchSequence seq = plan_sequence(c, p);
        QCOMPARE(seq.steps.size(), std::size_t{2});
        const KernelStep& copy = seq.steps[0].kernel;
        const KernelStep& gemm = seq.steps[1].kernel;
        QCOMPARE(copy.entry, std::string(pad_channels_entry_name()));
        QVERIFY(copy.workspace_arg && !copy.padded_operands);
        QCOMPARE(gemm.entry, std::string(kernel_entry_name()));
        QVERIFY(gemm.padded_operands);
        QCOMPARE(seq.params.c_per_group, 8);
        QCOMPARE(seq.params.stored_c_per_group, 3);
        const int64_t span = (padded.input_elements() + 7) / 8 * 8;
        QCOMPARE(seq.padded_weight_offset, std::size_t(span * 2));
        QCOMPARE(seq.workspace_bytes, std::size_t((span + padded.weight_elements()) * 2));
        QCOMPARE(gemm.grid_x, plan_launch(base(), padded).grid_x);
        // The copy's step reads the tensors as stored, the GEMM's the workspace.
        int in = 0, wei = 0, out = 0;
        char work[64];
        const StepTensors t{&in, &wei, &out, work};
        QCOMPARE(step_params(seq, copy, t).in, static_cast<const void*>(&in));
        QCOMPARE(step_params(seq, gemm, t).in, static_cast<const void*>(work));
        QCOMPARE(step_params(seq, gemm, t).wei,
                 static_cast<const void*>(work + seq.padded_weight_offset));
        QCOMPARE(step_params(seq, gemm, t).out, static_cast<void*>(&out));
        // A C/G the vector divides needs no copy: refused by name.
        expect_reason(c, base_problem(), "channel_pad");
        // The source holds the copy's entry only for channel_pad kernels.
        QVERIFY(generate_kernel_source(c).find(std::string(pad_channels_entry_name())) !=
                std::string::npos);
        QVERIFY(generate_kernel_source(base()).find(std::string(pad_channels_entry_name())) ==
                std::string::npos);
    }

    void forward_sequence_is_one_launch() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const Problem p = random_problem(rng, 2);
        KernelConfig c = base();
        c.vector_size_a = c.vector_size_b = c.vector_size_c = 1;
        c.tile_m = c.tile_n = 64; // 16 loads of one element per thread and K tile
        const LaunchSequence seq = plan_sequence(c, p);
        QCOMPARE(seq.steps.size(), std::size_t(1));
        QCOMPARE(seq.workspace_bytes, std::size_t(0));
        const KernelStep& k = seq.steps[0].kernel;
        const LaunchPlan plan = plan_launch(c, p);
        QCOMPARE(k.entry, std::string(kernel_entry_name()));
        QCOMPARE(k.grid_x, plan.grid_x);
        QCOMPARE(k.shared_bytes, shared_bytes(c));
        QVERIFY(!k.workspace_arg);
    }

    void bwd_data_grid_covers_every_phase() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        for (int trial = 0; trial < 50; ++trial) {
            const Problem p = random_problem(rng, trial % 2 ? 3 : 2);
            KernelConfig c = base();
            c.variant = Variant::BwdData, c.ndim_spatial = p.ndim_spatial;
            c.vector_size_a = c.vector_size_b = c.vector_size_c = 1;
            c.tile_m = c.tile_n = 64; // 16 loads of one element per thread and K tile
            if (!is_supported(c, p).ok) continue;
            const LaunchSequence seq = plan_sequence(c, p);
            QCOMPARE(seq.steps.size(), std::size_t(1));
            const KernelStep& k = seq.steps[0].kernel;
            const int64_t phases = p.stride_d * p.stride_h * p.stride_w;
            const int64_t largest = ceil_div(p.Di, p.stride_d) * ceil_div(p.Hi, p.stride_h) *
                                    ceil_div(p.Wi, p.stride_w);
            const int64_t tiles = ceil_div(p.N * largest, c.tile_m);
            QCOMPARE(int64_t(k.grid_x), phases * tiles);
            QCOMPARE(int64_t(seq.params.m_tiles_per_piece), tiles);
            QCOMPARE(int64_t(k.grid_y), ceil_div(p.c_per_group(), c.tile_n));
            QCOMPARE(int64_t(k.grid_z), p.G);
            QVERIFY(k.workspace_arg);
            QCOMPARE(seq.workspace_bytes, std::size_t(0));
        }
    }

    // Forward split-K: grid z is groups x splits, the splits add into a zeroed fp32 workspace
    // (16-bit) that the finish kernel converts, or into the zeroed fp32 output itself.
    void forward_split_k_sequences() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const Problem p = random_problem(rng, 2);
        KernelConfig c = base();
        c.vector_size_a = c.vector_size_b = c.vector_size_c = 1;
        c.tile_m = c.tile_n = 64, c.tile_k = 16; // 8 loads of one element per thread and K tile
        const int splits = 2 + int(rng() % 6);
        const std::string main_entry(kernel_entry_name()), finish(finish_entry_name());
        LaunchSequence plain = plan_sequence(c, p);
        QCOMPARE(plain.steps.size(), std::size_t(1));
        QVERIFY(!plain.steps[0].kernel.workspace_arg);
        QVERIFY(generate_kernel_source(c).find("void* workspace") == std::string::npos);

        c.split_k = splits, c.split_k_mode = SplitKMode::Atomic;
        // mma.sync: the last split to add to a tile converts it; one ticket per output tile
        // (the grid without its splits) after the fp32 sums, zeroed with them.
        QVERIFY(!has_finish_kernel(c));
        QVERIFY(finishes_in_block(c));
        const LaunchSequence seq = plan_sequence(c, p);
        QCOMPARE(seq.steps.size(), std::size_t(2));
        QCOMPARE(int(seq.steps[0].kind), int(LaunchStep::Kind::Memset));
        QCOMPARE(int(seq.steps[0].memset.buffer), int(LaunchBuffer::Workspace));
        const std::size_t out_f32 = std::size_t(p.output_elements()) * 4;
        const std::size_t tickets = std::size_t(plain.steps[0].kernel.grid_x) *
                                    plain.steps[0].kernel.grid_y * plain.steps[0].kernel.grid_z * 4;
        QCOMPARE(split_ticket_bytes(c, p), tickets);
        QCOMPARE(seq.steps[0].memset.bytes, out_f32 + tickets);
        QCOMPARE(seq.workspace_bytes, out_f32 + tickets);
        QCOMPARE(seq.steps[1].kernel.entry, main_entry);
        QVERIFY(seq.steps[1].kernel.workspace_arg);
        QCOMPARE(seq.steps[1].kernel.grid_x, plain.steps[0].kernel.grid_x);
        QCOMPARE(seq.steps[1].kernel.grid_y, plain.steps[0].kernel.grid_y);
        QCOMPARE(seq.steps[1].kernel.grid_z, plain.steps[0].kernel.grid_z * unsigned(splits));
        const std::string src = generate_kernel_source(c);
        QVERIFY(src.find(finish + "(") == std::string::npos);
        QVERIFY(src.find("(gconv::ConvParams p, void* workspace)") != std::string::npos);
        // The C tile staged for cshuffle holds fp32 sums.
        QCOMPARE(output_element_bytes(c), 4);

        // The wgmma pipeline keeps the finish kernel (its roles meet at no block-wide barrier
        // after the epilogue) and has no tickets.
        KernelConfig w = c;
        w.pipeline = Pipeline::CompV5, w.double_smem_buffer = true, w.num_wave_groups = 2;
        w.tile_m = 128, w.tile_n = 128, w.tile_k = 64, w.wave_m = 8, w.wave_n = 1;
        w.warp_tile_m = 16, w.warp_tile_n = 128, w.warp_tile_k = 16;
        w.vector_size_a = w.vector_size_b = w.vector_size_c = 8;
        QVERIFY(uses_wgmma(w));
        QVERIFY(has_finish_kernel(w));
        QVERIFY(!finishes_in_block(w));
        QCOMPARE(split_ticket_bytes(w, p), std::size_t(0));
        QVERIFY(generate_kernel_source(w).find("gconv::fwd::finish<GconvConfig>(p, workspace)") !=
                std::string::npos);

        c.dtype = DataType::FP32, c.warp_tile_k = 4;
        const LaunchSequence f32 = plan_sequence(c, p);
        QCOMPARE(f32.steps.size(), std::size_t(2));
        QCOMPARE(int(f32.steps[0].memset.buffer), int(LaunchBuffer::Output));
        QCOMPARE(f32.steps[0].memset.bytes, out_f32);
        QCOMPARE(f32.workspace_bytes, std::size_t(0));
        QVERIFY(f32.steps[1].kernel.workspace_arg);
        QVERIFY(!has_finish_kernel(c));

        KernelConfig two = c;
        two.split_k_mode = SplitKMode::TwoStage;
        expect_reason(two, p, "split_k");
        KernelConfig si = c;
        si.split_image = true;
        expect_reason(si, p, "split_k");
        two.split_k = 1; // 2stage without splits: bwd_weight's only
        expect_reason(two, p, "split_k");
    }

    void bwd_weight_sequences_per_split_k_mode() {
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const Problem p = random_problem(rng, 2);
        const std::size_t wbytes = std::size_t(p.weight_elements()) * 4;
        KernelConfig c = base();
        c.variant = Variant::BwdWeight;
        c.vector_size_a = c.vector_size_b = c.vector_size_c = 1;
        c.tile_m = c.tile_n = 64; // 16 loads of one element per thread and K tile
        const int splits = 2 + int(rng() % 6);
        auto kernels = [](const LaunchSequence& s) {
            std::vector<std::string> names;
            for (const LaunchStep& st : s.steps)
                if (st.kind == LaunchStep::Kind::Kernel) names.push_back(st.kernel.entry);
            return names;
        };
        const std::string main_entry(kernel_entry_name()), finish(finish_entry_name());

        // none: one launch straight into dW.
        LaunchSequence seq = plan_sequence(c, p);
        QCOMPARE(kernels(seq), std::vector<std::string>{main_entry});
        QCOMPARE(seq.workspace_bytes, std::size_t(0));
        QCOMPARE(int64_t(seq.steps[0].kernel.grid_x), ceil_div(p.k_per_group(), c.tile_m));
        QCOMPARE(int64_t(seq.steps[0].kernel.grid_y),
                 ceil_div(p.Z * p.Y * p.X * p.c_per_group(), c.tile_n));
        QCOMPARE(int64_t(seq.steps[0].kernel.grid_z), p.G);

        // two_stage: one fp32 slice per split, stored whole by its split (no memset), then the
        // finish kernel adds the slices and converts them.
        const int64_t tiles = p.G * ceil_div(p.k_per_group(), c.tile_m) *
                              ceil_div(p.Z * p.Y * p.X * p.c_per_group(), c.tile_n);
        const std::size_t tickets = std::size_t(tiles * 4);
        c.split_k = splits, c.split_k_mode = SplitKMode::TwoStage;
        QVERIFY(!finishes_in_block(c));
        QVERIFY(has_finish_kernel(c));
        QCOMPARE(split_ticket_bytes(c, p), std::size_t(0));
        seq = plan_sequence(c, p);
        QCOMPARE(kernels(seq), (std::vector<std::string>{main_entry, finish}));
        QCOMPARE(seq.workspace_bytes, wbytes * std::size_t(splits));
        QCOMPARE(int64_t(seq.steps[0].kernel.grid_z), p.G * splits);
        QVERIFY(generate_kernel_source(c).find(finish + "(") != std::string::npos);

        // atomic bf16: zero an fp32 workspace and the per-tile tickets after it, accumulate;
        // the last block to add to a tile converts it, so no second kernel.
        c.split_k_mode = SplitKMode::Atomic;
        QVERIFY(finishes_in_block(c));
        QVERIFY(!has_finish_kernel(c));
        QCOMPARE(split_ticket_bytes(c, p), tickets);
        seq = plan_sequence(c, p);
        QCOMPARE(seq.steps.size(), std::size_t(2));
        QCOMPARE(int(seq.steps[0].kind), int(LaunchStep::Kind::Memset));
        QCOMPARE(int(seq.steps[0].memset.buffer), int(LaunchBuffer::Workspace));
        QCOMPARE(seq.steps[0].memset.bytes, wbytes + tickets);
        QCOMPARE(seq.workspace_bytes, wbytes + tickets);
        QCOMPARE(seq.steps[1].kernel.entry, main_entry);
        QVERIFY(generate_kernel_source(c).find(finish + "(") == std::string::npos);
        QVERIFY(!seq.workspace_kept_zero && seq.params.keep_workspace_zero == 0);
        // A workspace kept zero (GCONV_WORKSPACE_KEPT_ZERO=1): the same workspace, no memset,
        // and the kernel told to leave the sums and tickets zero.
        qputenv("GCONV_WORKSPACE_KEPT_ZERO", "1");
        const LaunchSequence kept = plan_sequence(c, p);
        QCOMPARE(kernels(kept), std::vector<std::string>{main_entry});
        QCOMPARE(kept.steps.size(), std::size_t(1));
        QCOMPARE(kept.workspace_bytes, wbytes + tickets);
        QVERIFY(kept.workspace_kept_zero && kept.params.keep_workspace_zero == 1);
        qunsetenv("GCONV_WORKSPACE_KEPT_ZERO");

        // The wgmma pipeline keeps the convert kernel and no tickets by default; with
        // GCONV_WGMMA_FINISH_IN_BLOCK=1 its consumer warpgroups finish the tile: tickets, no
        // convert kernel, and the kernel is told so.
        KernelConfig w = c;
        w.pipeline = Pipeline::CompV5, w.double_smem_buffer = true, w.num_wave_groups = 2;
        w.tile_m = 128, w.tile_n = 128, w.tile_k = 64, w.wave_m = 8, w.wave_n = 1;
        w.warp_tile_m = 16, w.warp_tile_n = 128, w.warp_tile_k = 16;
        w.epilogue = Epilogue::CShuffle;
        QVERIFY(uses_wgmma(w));
        qunsetenv("GCONV_WGMMA_FINISH_IN_BLOCK");
        QVERIFY(!finishes_in_block(w));
        QVERIFY(has_finish_kernel(w));
        QCOMPARE(split_ticket_bytes(w, p), std::size_t(0));
        QVERIFY(generate_kernel_source(w).find("kFinishInBlock = false") != std::string::npos);
        qputenv("GCONV_WGMMA_FINISH_IN_BLOCK", "1");
        QVERIFY(finishes_in_block(w));
        QVERIFY(!has_finish_kernel(w));
        const LaunchPlan wgrid = plan_launch(w, p);
        QCOMPARE(split_ticket_bytes(w, p),
                 std::size_t(wgrid.grid_x) * wgrid.grid_y * (wgrid.grid_z / w.split_k) * 4);
        const std::string in_block = generate_kernel_source(w);
        QVERIFY(in_block.find(finish + "(") == std::string::npos);
        QVERIFY(in_block.find("kFinishInBlock = true") != std::string::npos);
        // The forward wgmma kernels keep their convert kernel (their persistent walks store
        // tiles through other epilogues).
        KernelConfig fw = w;
        fw.variant = Variant::Forward;
        QVERIFY(!finishes_in_block(fw));
        qunsetenv("GCONV_WGMMA_FINISH_IN_BLOCK");

        // atomic fp32: zero dW itself and accumulate into it; no workspace, no convert (and
        // dW is no workspace to keep zero).
        c.dtype = DataType::FP32, c.warp_tile_k = 4;
        qputenv("GCONV_WORKSPACE_KEPT_ZERO", "1");
        seq = plan_sequence(c, p);
        qunsetenv("GCONV_WORKSPACE_KEPT_ZERO");
        QVERIFY(!seq.workspace_kept_zero);
        QCOMPARE(seq.steps.size(), std::size_t(2));
        QCOMPARE(int(seq.steps[0].memset.buffer), int(LaunchBuffer::Weight));
        QCOMPARE(seq.steps[0].memset.bytes, wbytes);
        QCOMPARE(seq.workspace_bytes, std::size_t(0));
        QVERIFY(generate_kernel_source(c).find(finish + "(") == std::string::npos);

        c.split_k = 1, c.split_k_mode = SplitKMode::None;
        KernelConfig bad = c;
        bad.num_groups_to_merge = 2;
        bool threw = false;
        try {
            plan_sequence(bad, p);
        } catch (const std::invalid_argument& e) {
            threw = std::string(e.what()).find("num_groups_to_merge") != std::string::npos;
        }
        QVERIFY(threw);
    }

    void reference_source_has_all_entries() {
        for (DataType d : {DataType::BF16, DataType::FP16, DataType::FP32}) {
            const std::string s = generate_reference_source(d);
            for (std::string_view e :
                 {reference_entry::forward, reference_entry::bwd_data, reference_entry::bwd_weight,
                  reference_entry::fill_random, reference_entry::fill_poison,
                  reference_entry::fill_poison_f32})
                QVERIFY(s.find(std::string(e) + "(") != std::string::npos);
            QCOMPARE(generate_reference_source(d), s);
        }
        QVERIFY(generate_reference_source(DataType::BF16) !=
                generate_reference_source(DataType::FP16));
    }
};

QTEST_APPLESS_MAIN(TestCodegen)
#include "tst_codegen.moc"
