// Support checks and grid of the wgmma direct kernels (gconv_direct_wgmma.h).
#include "codegen/direct_wgmma_plan.h"
#include "codegen/launch_plan_detail.h"

#include <algorithm>

namespace gconv {
using detail::ceil_div;
using detail::Reasons;

namespace {

// The kernel's per-pixel row buffer: 64 channels plus 8 of padding, 16-bit.
constexpr int64_t k_stage_row_bytes = (64 + 8) * 2;

} // namespace

bool is_direct_wgmma(const KernelConfig& c) {
    return c.pipeline == Pipeline::DirectWgmma;
}

int direct_wgmma_consumers(const KernelConfig& c) {
    return std::max(1, c.wave_m / 4);
}

DirectWgmmaGeometry direct_wgmma_geometry(const KernelConfig& c, const Problem& p) {
    DirectWgmmaGeometry g;
    const int64_t chunks = std::max(1, c.tile_k / 8), taps = p.Y * p.X;
    const int64_t consumers = direct_wgmma_consumers(c), tile_m = std::max(1, c.tile_m);
    g.band_cols = tile_m + (p.X - 1) * p.dilation_w;
    g.fixed_bytes = static_cast<std::size_t>(128 + taps * chunks * c.tile_n * 16 +
                                             consumers * tile_m * k_stage_row_bytes);
    const int64_t row_bytes = chunks * g.band_cols * 16;
    const int64_t halo = (p.Y - 1) * p.dilation_h + 1;
    auto band_rows = [&](int64_t rows) { return (rows - 1) * p.stride_h + halo; };
    auto fits = [&](int64_t rows) {
        return g.fixed_bytes + 2 * band_rows(rows) * row_bytes <= k_direct_wgmma_shared;
    };
    const int64_t cap = std::min<int64_t>(
        k_direct_wgmma_max_rows, ceil_div(std::max<int64_t>(1, p.Ho()), consumers) * consumers);
    int64_t rows = 0;
    for (int64_t r = cap; r >= 1 && rows == 0; --r)
        if (fits(r)) rows = r;
    if (rows >= consumers) rows -= rows % consumers;
    if (rows == 0) {
        g.shared_bytes = g.fixed_bytes + 2 * band_rows(1) * row_bytes; // what one row would take
        return g;
    }
    g.rows = rows;
    g.band_rows = band_rows(rows);
    g.band_bytes = static_cast<std::size_t>(g.band_rows * row_bytes);
    g.shared_bytes = g.fixed_bytes + 2 * g.band_bytes;
    g.bands = ceil_div(p.Ho(), rows);
    g.col_tiles = ceil_div(p.Wo(), tile_m);
    g.kblocks = std::max<int64_t>(1, p.K / std::max(1, c.tile_n));
    g.items = p.N * g.bands * g.col_tiles * g.kblocks;
    return g;
}

namespace detail {

LaunchPlan plan_direct_wgmma(const KernelConfig& c, const Problem& p) {
    const DirectWgmmaGeometry g = direct_wgmma_geometry(c, p);
    LaunchPlan plan;
    // Persistent: the executor launches min(items, multiprocessors) blocks (launch_sequence.h).
    plan.grid_x = g.items > INT32_MAX || g.items <= 0 ? 0u : static_cast<unsigned>(g.items);
    plan.grid_y = plan.grid_z = 1;
    plan.block_threads = static_cast<unsigned>(128 * direct_wgmma_consumers(c));
    plan.shared_bytes = g.shared_bytes;
    return plan;
}

SupportCheck check_direct_wgmma(const KernelConfig& c, const Problem& p, int warp_size,
                                std::size_t shared_optin) {
    Reasons r;
    const std::vector<std::string> problem_errors = validate(p);
    if (!problem_errors.empty()) r.fail("problem: ", problem_errors.front());
    if (c.layout != "nhwgc") r.fail("layout: only nhwgc exists (got '", c.layout, "')");
    if (c.variant != Variant::Forward) r.fail("variant: direct_wgmma is a forward kernel");
    if (c.ndim_spatial != 2 || p.ndim_spatial != 2)
        r.fail("ndim_spatial: direct_wgmma is built for 2d problems (kernel ", c.ndim_spatial,
               "d, problem ", p.ndim_spatial, "d)");
    if (c.dtype == DataType::FP32) r.fail("data_type: direct_wgmma multiplies bf16 / fp16");
    if (warp_size != 32) r.fail("warp size: direct_wgmma is built for 32-lane warps only");
    if (r.failed) return {false, r.text.str()};
    if (p.G != 1)
        r.fail("G: direct_wgmma is built for dense convolutions (G = 1), the problem has G = ",
               p.G);
    else if (p.C != c.tile_k)
        r.fail("tile_k: the kernel is compiled for C = ", c.tile_k, ", the problem has C = ", p.C);
    else if (c.tile_n <= 0 || p.K % c.tile_n != 0)
        r.fail("K: ", p.K, " is not a multiple of tile_n ", c.tile_n,
               " (a block's output channels)");
    if (p.stride_w != 1)
        r.fail("stride_w: ", p.stride_w,
               "; direct_wgmma's taps are shifted starts into one band row, which needs "
               "consecutive output pixels to read consecutive input pixels (stride_w 1)");
    if (r.failed) return {false, r.text.str()};
    const DirectWgmmaGeometry g = direct_wgmma_geometry(c, p);
    const std::size_t limit =
        shared_optin ? std::min(shared_optin, k_direct_wgmma_shared) : k_direct_wgmma_shared;
    if (g.rows == 0 || g.shared_bytes > limit)
        r.fail("shared memory: the filter slice (", p.Y * p.X, " taps x ", c.tile_n,
               " channels), the row buffers and two bands take ", g.shared_bytes,
               " bytes, over the ", limit, " a block may have");
    if (r.failed) return {false, r.text.str()};
    return check_xy_grid(plan_direct_wgmma(c, p));
}

} // namespace detail
} // namespace gconv
