// Support checks and grids of the tensor-core direct kernels (gconv_direct_mma.h).
#include "codegen/direct_mma_plan.h"
#include "codegen/forward_view.h"
#include "codegen/launch_plan_detail.h"

#include <algorithm>

namespace gconv {
using detail::ceil_div;
using detail::Reasons;

namespace {

constexpr int64_t k_max_int = INT32_MAX;

// Elements per halo pixel: tile_n plus a pad that makes the pixel an odd number of 16-byte
// units, so the 8 rows of an ldmatrix phase (consecutive pixels) hit 8 different bank groups.
int64_t pixel_stride(const KernelConfig& c) {
    return c.tile_n + ((c.tile_n / 8) % 2 == 0 ? 8 : 16);
}

} // namespace

bool is_direct_mma(const KernelConfig& c) {
    return c.pipeline == Pipeline::DirectMma;
}

int direct_mma_unit_channels(const KernelConfig& c) {
    return std::max(8, c.tile_k);
}

int direct_mma_warp_tile_n(int c_per_group) {
    return std::max(8, c_per_group);
}

DirectMmaGeometry direct_mma_geometry(const KernelConfig& c, const Problem& problem) {
    const Problem p = launched_problem(c, problem);
    DirectMmaGeometry g;
    const int64_t tm = std::max(1, c.tile_m);
    g.tile_w = std::max<int64_t>(1, std::min(p.Wo(), tm));
    g.tile_h = std::clamp<int64_t>(tm / g.tile_w, 1, std::max<int64_t>(1, p.Ho()));
    g.tiles_w = ceil_div(p.Wo(), g.tile_w);
    g.tiles_h = ceil_div(p.Ho(), g.tile_h);
    g.halo_h = (g.tile_h - 1) * p.stride_h + (p.Y - 1) * p.dilation_h + 1;
    g.halo_w = (g.tile_w - 1) * p.stride_w + (p.X - 1) * p.dilation_w + 1;
    g.halo_d = (p.Z - 1) * p.dilation_d + 1;
    g.tiles = p.N * p.Do() * g.tiles_h * g.tiles_w;
    g.taps = p.Z * p.Y * p.X;
    g.reduction = ceil_div(g.taps * direct_mma_unit_channels(c), 16) * 16;
    return g;
}

std::string_view direct_mma_phases_entry_name() {
    return "gconv_phases";
}

bool direct_mma_runs_phases(const KernelConfig& c, const Problem& p) {
    return runs_forward_view(c) && is_direct_mma(c) && p.stride_h * p.stride_w > 1;
}

bool direct_mma_walks_planes(const KernelConfig& c) {
    return c.double_smem_buffer && c.ndim_spatial == 3;
}

int64_t direct_mma_tiles_per_block(const KernelConfig& c, const Problem& problem) {
    if (!c.double_smem_buffer) return 1;
    const Problem p = launched_problem(c, problem);
    if (direct_mma_walks_planes(c)) return p.Do();
    const DirectMmaGeometry g = direct_mma_geometry(c, problem);
    const int64_t blocks = g.tiles * ceil_div(p.C, std::max(1, c.tile_n));
    return std::max<int64_t>(2, ceil_div(blocks, k_direct_mma_target_blocks));
}

int64_t direct_mma_weight_pairs_per_block(const KernelConfig& c) {
    return int64_t{c.wave_m} * std::max(1, c.warp_tile_m / 16);
}

int64_t direct_mma_weight_chunks(const KernelConfig& c, const Problem& p) {
    const DirectMmaGeometry g = direct_mma_geometry(c, p);
    const int64_t pairs = c.tile_n / direct_mma_unit_channels(c) * (g.reduction / 16);
    return ceil_div(pairs, std::max<int64_t>(1, direct_mma_weight_pairs_per_block(c)));
}

std::size_t direct_mma_max_shared(std::size_t shared_optin) {
    return shared_optin ? shared_optin : k_direct_mma_portable_shared;
}

std::size_t direct_mma_shared_bytes(const KernelConfig& c, const Problem& p) {
    if (runs_forward_view(c)) {
        std::size_t most = 0;
        for (const ViewPhase& ph : bwd_data_phases(p))
            most = std::max(most, direct_mma_shared_bytes(forward_twin(c), ph.view));
        return most;
    }
    const DirectMmaGeometry g = direct_mma_geometry(c, p);
    const int64_t elem = element_bytes(c.dtype);
    if (c.variant == Variant::BwdWeight) {
        // Halo and dOut rows (two of each with dsb), the offset tables, and afterwards, over
        // the same bytes, the block's fp32 slice of dW.
        const int64_t rows = ceil_div(g.tile_w * g.tile_h, 16) * 16;
        const int64_t buffers = direct_mma_walks_planes(c)
                                    ? ((g.halo_d + p.stride_d) * g.halo_h * g.halo_w + 2 * rows) *
                                          pixel_stride(c) * elem
                                    : (c.double_smem_buffer ? 2 : 1) *
                                          (g.halo_d * g.halo_h * g.halo_w + rows) *
                                          pixel_stride(c) * elem;
        const int64_t tables = g.reduction / 8 * 4 + 2 * rows * 4;
        const int64_t slice = int64_t{c.tile_n} * g.taps * c.tile_k * 4;
        return static_cast<std::size_t>(std::max(buffers + tables, slice));
    }
    // The plane walk's ring holds halo_d + stride_d planes; otherwise one or two halos.
    const bool ring = direct_mma_walks_planes(c);
    const int64_t planes = ring ? g.halo_d + launched_problem(c, p).stride_d
                                : (c.double_smem_buffer ? 2 : 1) * g.halo_d;
    const int64_t halo = planes * g.halo_h * g.halo_w * pixel_stride(c) * elem;
    const int64_t filter = int64_t{c.tile_n} * (g.reduction + 8) * elem;
    // Offsets of the reduction's 8-channel halves (the ring: also their in-plane parts and tap
    // planes), and two ints per padded tile pixel.
    const int64_t tile_pixels = g.tile_w * g.tile_h, frags = std::max(1, c.warp_tile_m / 16);
    const int64_t rows = ceil_div(ceil_div(tile_pixels, 16), frags) * frags * 16;
    const int64_t table = (ring ? 3 : 1) * g.reduction / 8 * 4 + 2 * rows * 4;
    // wave_k 2: per pair of warps, the second warp's fp32 sums (32 lanes x fragments x 4).
    const int64_t pairs = int64_t{c.wave_m} * c.wave_n;
    const int64_t sums =
        c.wave_k == 2 ? pairs * 32 * frags * (direct_mma_unit_channels(c) / 8) * 4 * 4 : 0;
    return static_cast<std::size_t>(halo + filter + table + sums);
}

namespace detail {

LaunchPlan plan_direct_mma(const KernelConfig& c, const Problem& problem, int warp_size) {
    if (runs_forward_view(c)) {
        // Every phase's blocks in one grid, the phase fastest along x (gconv_direct_mma.h).
        const std::vector<ViewPhase> phases = bwd_data_phases(problem);
        LaunchPlan plan;
        int64_t most = 0;
        for (const ViewPhase& ph : phases) {
            const LaunchPlan q = plan_direct_mma(forward_twin(c), ph.view, warp_size);
            if (q.grid_x == 0) return q; // over the limits: check_xy_grid refuses it
            most = std::max<int64_t>(most, q.grid_x);
            plan.grid_y = q.grid_y, plan.grid_z = q.grid_z, plan.block_threads = q.block_threads;
            plan.shared_bytes = std::max(plan.shared_bytes, q.shared_bytes);
        }
        const int64_t x = most * static_cast<int64_t>(phases.size());
        plan.grid_x = x > k_max_int ? 0u : static_cast<unsigned>(x);
        return plan;
    }
    LaunchPlan plan;
    const Problem p = launched_problem(c, problem);
    const DirectMmaGeometry g = direct_mma_geometry(c, problem);
    auto u32 = [](int64_t v) { return v > k_max_int || v < 0 ? 0u : static_cast<unsigned>(v); };
    const int64_t tiles = g.tiles;
    plan.grid_y = u32(ceil_div(p.C, std::max(1, c.tile_n)));
    if (c.variant == Variant::BwdWeight) {
        // split_k slices of the pixel reduction per channel run, each walking tiles in turn
        // (the plane walk: tile columns, each over its Do planes).
        const int64_t walked =
            direct_mma_walks_planes(c) ? tiles / std::max<int64_t>(1, p.Do()) : tiles;
        plan.grid_x = u32(std::min<int64_t>(std::max(1, c.split_k), walked));
        plan.grid_z = u32(direct_mma_weight_chunks(c, problem));
    } else {
        plan.grid_x = u32(ceil_div(tiles, direct_mma_tiles_per_block(c, problem)));
        plan.grid_z = 1;
    }
    plan.block_threads = static_cast<unsigned>(c.wave_m * c.wave_n * c.wave_k * warp_size);
    plan.shared_bytes = direct_mma_shared_bytes(c, problem);
    return plan;
}

SupportCheck check_direct_mma(const KernelConfig& c, const Problem& p, int warp_size,
                              std::size_t shared_optin) {
    Reasons r;
    const std::vector<std::string> problem_errors = validate(p);
    if (!problem_errors.empty()) r.fail("problem: ", problem_errors.front());
    if (c.layout != "nhwgc") r.fail("layout: only nhwgc exists (got '", c.layout, "')");
    if (c.ndim_spatial != p.ndim_spatial)
        r.fail("ndim_spatial: the kernel is built for ", c.ndim_spatial,
               "d problems, the problem is ", p.ndim_spatial, "d");
    if (c.dtype == DataType::FP32) r.fail("data_type: direct_mma runs bf16 / fp16 mma.sync");
    if (warp_size != 32) r.fail("warp size: direct_mma is built for 32-lane warps only");
    // The layouts the kernels are written for (the rules cull the rest from pools; a kernel
    // named directly meets them here).
    if (c.variant == Variant::BwdWeight
            ? c.wave_k != 1
            : c.wave_n != 1 || (c.wave_k != 1 && c.wave_k != 2) || (c.wave_k == 2 && c.wave_m > 8))
        r.fail("wave layout ", c.wave_m, "x", c.wave_n, "x", c.wave_k,
               c.variant == Variant::BwdWeight
                   ? ": bwd_weight direct_mma runs wave_k 1"
                   : ": direct_mma runs wave_n 1 and wave_k 1, or 2 with wave_m at most 8");
    if (r.failed) return {false, r.text.str()};

    // The kernel is compiled for one group width: tile_k = C/G = K/G.
    const int64_t cpg = p.c_per_group(), kpg = p.k_per_group();
    if (kpg != cpg)
        r.fail("K/G: ", kpg, " differs from C/G = ", cpg,
               "; direct_mma needs K/G = C/G (channel multipliers are not implemented)");
    else if (cpg != c.tile_k)
        r.fail("tile_k: the kernel is compiled for C/G = ", c.tile_k,
               ", the problem has C/G = ", cpg);
    else if (p.C % direct_mma_unit_channels(c) != 0)
        r.fail("C: ", p.C, " is not a multiple of the ", direct_mma_unit_channels(c),
               "-channel unit (8 / (C/G) groups for C/G < 8)");
    if (!detail::fits_int_offsets(p))
        r.fail("input / output / weight: over 2^31 elements; direct_mma kernels use 32-bit "
               "offsets");
    if (const std::size_t cap = direct_mma_max_shared(shared_optin);
        direct_mma_shared_bytes(c, p) > cap)
        r.fail("tile_m / tile_n: the ",
               c.variant == Variant::BwdWeight ? "halo, dOut rows and dW slice" : "halo and filter",
               " of a ", c.tile_m, "-pixel x ", c.tile_n, "-channel block need ",
               direct_mma_shared_bytes(c, p), " bytes of shared memory, over ", cap,
               shared_optin ? " (the target's opt-in)" : " (the portable limit)");
    if (r.failed) return {false, r.text.str()};
    const LaunchPlan plan = plan_direct_mma(c, p, warp_size);
    if (plan.grid_z > 65535) return {false, "grid: z exceeds the launch limits"};
    return detail::check_xy_grid(plan);
}

SupportCheck check_direct_mma_phases(const KernelConfig& c, const Problem& p, int warp_size,
                                     std::size_t shared_optin) {
    if (std::string why = bwd_data_phases_refusal(p); !why.empty()) return {false, why};
    const std::vector<ViewPhase> phases = bwd_data_phases(p);
    for (const ViewPhase& ph : phases) {
        SupportCheck s = check_direct_mma(forward_twin(c), ph.view, warp_size, shared_optin);
        if (!s.ok) {
            s.reason += " (bwd_data as the forward convolution of dOut: dOut is its input, dIn "
                        "its output";
            if (phases.size() > 1)
                s.reason += "; phase " + std::to_string(ph.rh) + "," + std::to_string(ph.rw) +
                            " of the stride";
            s.reason += ")";
            return s;
        }
    }
    return detail::check_xy_grid(plan_direct_mma(c, p, warp_size));
}

} // namespace detail
} // namespace gconv
