#include "codegen/wgmma_tma.h"

#include "codegen/forward_view.h"
#include "codegen/launch_plan.h"

namespace gconv {

bool narrow_weight_copies(const KernelConfig& c, const Problem& p) {
    return p.c_per_group() % 64 != 0 || c.tile_n % 64 != 0;
}

std::string maps_only_reason(const KernelConfig& c) {
    if (c.variant == Variant::BwdWeight) return "MN-major operands";
    if (c.tile_k == 32) return "tile_k 32";
    if (c.cluster_n > 1 || c.cluster_k > 1) return "cluster";
    if (c.pixels_on_n) return "pixels_on_n";
    return {};
}

WgmmaTmaPlan plan_wgmma_tma(const KernelConfig& c, const Problem& p) {
    WgmmaTmaPlan plan;
    auto no = [&](std::string why) {
        plan.reason = std::move(why);
        return plan;
    };
    if (runs_forward_view(c)) return plan_wgmma_tma(forward_twin(c), forward_view(p));
    if (!uses_wgmma(c)) return no("not a wgmma kernel");
    const bool weight_grad = c.variant == Variant::BwdWeight;
    plan.tiled_over_output = weight_grad;
    if (c.num_groups_to_merge != 1) return no("merged groups");
    if (c.split_image) return no("split image");
    plan.required = !maps_only_reason(c).empty();
    if (c.tile_k != 64 && (c.tile_k != 32 || weight_grad))
        return no("tile_k is not 64" + std::string(weight_grad ? "" : " or 32"));
    const int64_t cpg = p.c_per_group(), kpg = p.k_per_group(), slice = c.tile_k;
    const int64_t taps = p.Z * p.Y * p.X;
    // A K tile is one tap's tile_k-channel slice. Past C/G the copies read zeros only where
    // they are past C as well (G == 1); with groups they would meet the next group's channels.
    // bwd_weight's B copies are one tap's slice too, 64 channels wide or 32
    // (narrow_weight_copies).
    if (weight_grad && cpg % 32 != 0) return no("C/G is not a multiple of 32");
    if (cpg % slice != 0 && !weight_grad && p.G != 1)
        return no("C/G is not a multiple of " + std::to_string(slice) + " (and G is not 1)");
    // Global strides are 16-byte multiples: the input's pixel (C) and the filter's tap (C/G).
    if (cpg % 8 != 0) return no("C/G is not a multiple of 8");
    if (weight_grad && p.K % 8 != 0)
        return no("K is not a multiple of 8 (the rows of the tiled dOut map are 16-byte units)");
    const bool three = c.ndim_spatial == 3;
    // Corner and offset ranges of the copy engine's im2col mode: 8 / 8 bits for a rank-4
    // tensor, 5 / 5 bits for rank 5.
    const int64_t corner_min = three ? -16 : -128, corner_max = three ? 15 : 127;
    const int64_t offset_max = three ? 31 : 255;
    const int64_t pad[3] = {p.pad_w, p.pad_h, p.pad_d};
    const int64_t span[3] = {p.dilation_w * (p.X - 1), p.dilation_h * (p.Y - 1),
                             p.dilation_d * (p.Z - 1)};
    const int64_t stride[3] = {p.stride_w, p.stride_h, p.stride_d};
    const int spatial = three ? 3 : 2;
    for (int i = 0; i < spatial; ++i) {
        const int64_t lower = -pad[i], upper = pad[i] - span[i];
        if (lower < corner_min || lower > corner_max || upper < corner_min || upper > corner_max)
            return no("padding or filter span outside the im2col corner range");
        if (span[i] > offset_max) return no("filter span outside the im2col offset range");
        if (stride[i] < 1 || stride[i] > 8) return no("stride over 8");
        plan.im2col.lower[i] = static_cast<int>(lower);
        plan.im2col.upper[i] = static_cast<int>(upper);
    }
    const uint64_t elem = 2;
    TmaIm2colGeometry& a = plan.im2col;
    a.rank = three ? 5 : 4;
    const uint64_t in_dims[5] = {uint64_t(p.C), uint64_t(p.Wi), uint64_t(p.Hi), uint64_t(p.Di),
                                 uint64_t(p.N)};
    int d = 0;
    for (int i = 0; i < 5; ++i) {
        if (!three && i == 3) continue; // no depth dimension
        a.dims[d++] = in_dims[i];
    }
    uint64_t running = elem;
    for (int i = 1; i < a.rank; ++i) {
        running *= a.dims[i - 1];
        a.strides_bytes[i - 1] = running;
    }
    a.element_strides[0] = 1;
    for (int i = 0; i < spatial; ++i) a.element_strides[1 + i] = static_cast<uint32_t>(stride[i]);
    a.element_strides[a.rank - 1] = 1;
    a.channels =
        weight_grad ? (narrow_weight_copies(c, p) ? 32u : 64u) : static_cast<uint32_t>(slice);
    // bwd_weight: one copy is one K tile (64 output pixels) of one B column block.
    a.pixels = static_cast<uint32_t>(weight_grad ? c.tile_k : c.tile_m);

    TmaTiledGeometry& b = plan.tiled;
    if (weight_grad) {
        const uint64_t pixels = uint64_t(p.N * p.Do() * p.Ho() * p.Wo());
        b.dims[0] = uint64_t(p.K);
        b.dims[1] = pixels;
        b.dims[2] = 1;
        b.strides_bytes[0] = uint64_t(p.K) * elem;
        b.strides_bytes[1] = uint64_t(p.K) * elem * pixels;
        b.box[0] = 64;
        b.box[1] = static_cast<uint32_t>(c.tile_k);
        b.box[2] = 1;
        plan.enabled = true;
        return plan;
    }
    if (taps == 1 && p.stride_w == 1 && p.stride_h == 1 && (!three || p.stride_d == 1) &&
        p.pad_w == 0 && p.pad_h == 0 && (!three || p.pad_d == 0)) {
        TmaTiledGeometry& in = plan.input_tile;
        in.dims[0] = uint64_t(p.C);
        in.dims[1] = uint64_t(p.N) * a.dims[1] * a.dims[2] * (three ? a.dims[3] : 1);
        in.dims[2] = 1;
        in.strides_bytes[0] = uint64_t(p.C) * elem;
        in.strides_bytes[1] = in.strides_bytes[0] * in.dims[1];
        in.box[0] = static_cast<uint32_t>(slice);
        in.box[1] = static_cast<uint32_t>(c.tile_m);
        in.box[2] = 1;
        plan.input_tiled = true;
    }
    b.dims[0] = uint64_t(cpg);
    b.dims[1] = uint64_t(taps);
    b.dims[2] = uint64_t(p.G * kpg);
    b.strides_bytes[0] = uint64_t(cpg) * elem;
    b.strides_bytes[1] = uint64_t(cpg * taps) * elem;
    b.box[0] = static_cast<uint32_t>(slice);
    b.box[1] = 1;
    b.box[2] = static_cast<uint32_t>(c.tile_n);
    plan.enabled = true;
    return plan;
}

} // namespace gconv
