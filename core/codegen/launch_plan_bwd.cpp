// Problem-dependent support checks and grids of the backward kernels (gconv_bwd_data.h,
// gconv_bwd_weight.h). Backward kernels address whole tensors: 32-bit offsets, or 64-bit ones
// with split_image (there are no image pieces).
#include "codegen/launch_plan_detail.h"
#include "codegen/wgmma_tma.h"

#include <algorithm>

namespace gconv::detail {
namespace {

constexpr int64_t k_max_int = INT32_MAX;

// Input coordinates of one stride phase along a dimension.
int64_t phase_extent(int64_t phase, int64_t stride, int64_t pad, int64_t extent) {
    const int64_t first = ((phase - pad) % stride + stride) % stride;
    return first < extent ? ceil_div(extent - first, stride) : 0;
}

int64_t phases(const Problem& p) {
    return p.stride_d * p.stride_h * p.stride_w;
}

void check_offsets(Reasons& r, const KernelConfig& c, const Problem& p) {
    if (p.weight_elements() > k_max_int)
        r.fail("weight: ", p.weight_elements(), " elements exceed 32-bit offsets");
    if (!c.split_image && (p.input_elements() > k_max_int || p.output_elements() > k_max_int))
        r.fail("split_image: input (", p.input_elements(), ") or output (", p.output_elements(),
               ") elements exceed 32-bit offsets; needs split_image");
    if (p.N * p.Di * p.Hi * p.Wi > k_max_int || p.N * p.Do() * p.Ho() * p.Wo() > k_max_int)
        r.fail("N: ", p.N, " images have more than 2^31 pixels");
}

void check_grid(Reasons& r, const KernelConfig& c, const Problem& p, int warp_size) {
    if (r.failed) return;
    const LaunchPlan plan = plan_backward(c, p, warp_size);
    if (plan.grid_x == 0 || plan.grid_y == 0 || plan.grid_y > 65535 || plan.grid_z == 0 ||
        plan.grid_z > 65535)
        r.fail("grid: ", plan.grid_x, " x ", plan.grid_y, " x ", plan.grid_z,
               " exceeds the launch limits",
               c.variant == Variant::BwdWeight ? " (z = G * split_k)" : "");
}

SupportCheck result(Reasons& r) {
    if (r.failed) return {false, r.text.str()};
    return {true, {}};
}

} // namespace

int64_t bwd_data_tiles_per_phase(const KernelConfig& c, const Problem& p) {
    const int64_t largest =
        ceil_div(p.Di, p.stride_d) * ceil_div(p.Hi, p.stride_h) * ceil_div(p.Wi, p.stride_w);
    return std::max<int64_t>(1, ceil_div(p.N * largest, c.tile_m));
}

SupportCheck check_bwd_data(const KernelConfig& c, const Problem& p, int warp_size) {
    Reasons r;
    const int64_t cpg = p.c_per_group(), kpg = p.k_per_group(), gm = c.num_groups_to_merge;
    const bool group_tail = p.G % gm != 0;
    if (gm > p.G) r.fail("num_groups_to_merge: ", gm, " exceeds G = ", p.G);
    if (gm > 1 && gm * cpg > c.tile_n)
        r.fail("num_groups_to_merge: ", gm, " groups x C/G = ", gm * cpg,
               " columns exceed tile_n = ", c.tile_n);
    // A = dOut, vectors along (merged group, k); B = weight, vectors along c of one group.
    if ((gm * kpg) % c.vector_size_a != 0 || (group_tail && kpg % c.vector_size_a != 0))
        r.fail("vector_size_a: ", c.vector_size_a, " does not divide K/G = ", kpg,
               gm > 1 ? " (times num_groups_to_merge, without group tail)" : "");
    if (cpg % c.vector_size_b != 0)
        r.fail("vector_size_b: ", c.vector_size_b, " does not divide C/G = ", cpg);
    if ((gm * cpg) % c.vector_size_c != 0 || (group_tail && cpg % c.vector_size_c != 0))
        r.fail("vector_size_c: ", c.vector_size_c, " does not divide C/G = ", cpg,
               gm > 1 ? " (times num_groups_to_merge, without group tail)" : "");
    if (!c.pad_m) {
        for (int64_t d = 0; d < p.stride_d; ++d)
            for (int64_t h = 0; h < p.stride_h; ++h)
                for (int64_t w = 0; w < p.stride_w; ++w) {
                    const int64_t rows = p.N * phase_extent(d, p.stride_d, p.pad_d, p.Di) *
                                         phase_extent(h, p.stride_h, p.pad_h, p.Hi) *
                                         phase_extent(w, p.stride_w, p.pad_w, p.Wi);
                    if (rows % c.tile_m != 0)
                        r.fail("pad_m: false needs the input pixels of every stride phase (here ",
                               rows, ") to be a multiple of tile_m = ", c.tile_m);
                }
    }
    if (!c.pad_n && ((gm * cpg) % c.tile_n != 0 || group_tail))
        r.fail("pad_n: false needs num_groups_to_merge * C/G = ", gm * cpg,
               " to be a multiple of tile_n = ", c.tile_n,
               " and G divisible by num_groups_to_merge");
    // Each phase reduces over its own number of taps, so the per-tap run must divide tile_k.
    if (!c.pad_k && (gm * kpg) % c.tile_k != 0)
        r.fail("pad_k: false needs num_groups_to_merge * K/G = ", gm * kpg,
               " to be a multiple of tile_k = ", c.tile_k);
    check_offsets(r, c, p);
    if (phases(p) * bwd_data_tiles_per_phase(c, p) > k_max_int)
        r.fail("grid: more than 2^31 blocks along x");
    check_grid(r, c, p, warp_size);
    return result(r);
}

SupportCheck check_bwd_weight(const KernelConfig& c, const Problem& p, int warp_size) {
    Reasons r;
    const int64_t cpg = p.c_per_group(), kpg = p.k_per_group();
    const int64_t columns = p.Z * p.Y * p.X * cpg;
    const int64_t reduction = p.N * p.Do() * p.Ho() * p.Wo();
    // A = dOut, vectors along k; B = input, vectors along c; C = dW rows of Z*Y*X*C/G.
    if (kpg % c.vector_size_a != 0)
        r.fail("vector_size_a: ", c.vector_size_a, " does not divide K/G = ", kpg);
    if (cpg % c.vector_size_b != 0)
        r.fail("vector_size_b: ", c.vector_size_b, " does not divide C/G = ", cpg);
    if (columns % c.vector_size_c != 0)
        r.fail("vector_size_c: ", c.vector_size_c, " does not divide Z*Y*X*C/G = ", columns);
    if (!c.pad_m && kpg % c.tile_m != 0)
        r.fail("pad_m: false needs K/G = ", kpg, " to be a multiple of tile_m = ", c.tile_m);
    if (!c.pad_n && columns % c.tile_n != 0)
        r.fail("pad_n: false needs Z*Y*X*C/G = ", columns,
               " to be a multiple of tile_n = ", c.tile_n);
    if (!c.pad_k && reduction % c.tile_k != 0)
        r.fail("pad_k: false needs N*Do*Ho*Wo = ", reduction,
               " to be a multiple of tile_k = ", c.tile_k);
    if (c.split_k_mode == SplitKMode::TwoStage &&
        int64_t{c.split_k} * p.weight_elements() * 4 > (int64_t{1} << 40))
        r.fail("split_k: the two_stage workspace of ", c.split_k, " fp32 slices is over 1 TiB");
    check_offsets(r, c, p);
    if (uses_wgmma(c) && !r.failed) {
        const WgmmaTmaPlan tma = plan_wgmma_tma(c, p);
        if (!tma.enabled)
            r.fail("tensor maps: bwd_weight wgmma kernels load both operands through tensor maps "
                   "only, which this problem cannot use (",
                   tma.reason, ")");
    }
    check_grid(r, c, p, warp_size);
    return result(r);
}

LaunchPlan plan_backward(const KernelConfig& c, const Problem& p, int warp_size) {
    LaunchPlan plan;
    plan.block_threads = static_cast<unsigned>(block_warps(c) * warp_size);
    plan.shared_bytes = shared_bytes(c, warp_size);
    auto u32 = [](int64_t v) { return v > k_max_int || v < 0 ? 0u : static_cast<unsigned>(v); };
    if (c.variant == Variant::BwdData) {
        const int64_t gm = std::max(1, c.num_groups_to_merge);
        plan.grid_x = u32(phases(p) * bwd_data_tiles_per_phase(c, p));
        plan.grid_y = u32(ceil_div(gm * p.c_per_group(), c.tile_n));
        plan.grid_z = u32(ceil_div(p.G, gm));
    } else {
        plan.grid_x = u32(ceil_div(p.k_per_group(), c.tile_m));
        plan.grid_y = u32(ceil_div(p.Z * p.Y * p.X * p.c_per_group(), c.tile_n));
        plan.grid_z = u32(p.G * std::max(1, c.split_k));
    }
    return plan;
}

} // namespace gconv::detail
