// Support checks and grids of the direct-convolution kernels (gconv_direct.h).
#include "codegen/direct_mma_plan.h"
#include "codegen/direct_plan.h"
#include "codegen/kernel_source.h"
#include "codegen/launch_plan_detail.h"

#include <algorithm>

namespace gconv {
using detail::ceil_div;
using detail::Reasons;

namespace {

constexpr int64_t k_max_int = INT32_MAX;

bool pow2(int64_t v) {
    return v >= 1 && (v & (v - 1)) == 0;
}

int threads_of(const KernelConfig& c, int warp_size) {
    return c.wave_m * c.wave_n * c.wave_k * warp_size;
}

} // namespace

bool is_direct(const KernelConfig& c) {
    return c.pipeline == Pipeline::Direct;
}

int direct_channel_lanes(const KernelConfig& c) {
    return std::max(1, c.tile_n / std::max(1, c.vector_size_a));
}

int direct_rows(const KernelConfig& c, int warp_size) {
    const int64_t per_row = int64_t{threads_of(c, warp_size) / direct_channel_lanes(c)} * c.tile_k;
    if (per_row <= 0 || c.tile_m % per_row != 0) return 0;
    const int64_t rows = c.tile_m / per_row;
    if (c.variant == Variant::BwdWeight) return rows == 1 ? 1 : 0;
    return rows == 1 || rows == 2 || rows == 4 ? static_cast<int>(rows) : 0;
}

bool direct_weight_strip_fits(const KernelConfig& c, int filter) {
    return c.variant == Variant::BwdWeight && c.ndim_spatial == 2 &&
           c.tile_k % k_direct_weight_strip == 0 &&
           filter * filter * c.vector_size_a <= k_direct_max_strip_accumulators;
}

int direct_filter(const KernelConfig& c, const Problem& p) {
    if (p.c_per_group() != 1 || p.k_per_group() != 1) return 0;
    if (p.X != p.Y || p.dilation_h != 1 || p.dilation_w != 1) return 0;
    // Stride 1, or 2 along both where the config has `_s2` entries.
    if (p.stride_h != p.stride_w || p.stride_w > (direct_has_stride_2_entries(c) ? 2 : 1)) return 0;
    // bwd_data turns into a forward walk over dOut only with stride 1 along D as well.
    if (c.variant == Variant::BwdData && p.stride_d != 1) return 0;
    for (int k : k_direct_filters)
        if (p.X == k)
            return c.variant != Variant::BwdWeight || is_direct_tc(c) ||
                           direct_weight_strip_fits(c, k)
                       ? k
                       : 0;
    return 0;
}

bool direct_has_stride_2_entries(const KernelConfig& c) {
    return is_direct_tc(c) || (is_direct_staged(c) && c.variant == Variant::Forward);
}

std::string direct_filter_entry_name(int filter, int stride) {
    return "gconv_direct_k" +
           (filter == k_direct_any_filter ? std::string("x") : std::to_string(filter)) +
           (stride == 1 ? "" : "_s" + std::to_string(stride));
}

bool direct_reads_filter_at_run_time(const KernelConfig& c) {
    return is_direct_tc(c) && (c.variant == Variant::BwdWeight || c.runtime_filter);
}

int direct_entry_filter(const KernelConfig& c, int filter) {
    return direct_reads_filter_at_run_time(c) ? k_direct_any_filter : filter;
}

std::size_t direct_weight_workspace_bytes(const KernelConfig& c, const Problem& p) {
    const bool through_fp32 = is_direct_mma(c) || (is_direct(c) && c.dtype != DataType::FP32);
    if (c.variant != Variant::BwdWeight || !through_fp32) return 0;
    const int64_t tickets = ceil_div(p.C, std::max(1, c.tile_n));
    return static_cast<std::size_t>(p.weight_elements() * 4 + ceil_div(tickets, 4) * 16);
}

int direct_filter_stride(const KernelConfig& c, const Problem& p) {
    return direct_filter(c, p) > 0 ? static_cast<int>(p.stride_w) : 1;
}

std::string direct_entry_name(const KernelConfig& c, const Problem& p) {
    const int filter = direct_filter(c, p);
    return filter > 0 ? direct_filter_entry_name(direct_entry_filter(c, filter),
                                                 direct_filter_stride(c, p))
                      : std::string(kernel_entry_name());
}

bool is_direct_staged(const KernelConfig& c) {
    return is_direct(c) && c.double_smem_buffer;
}

DirectStagedGeometry direct_staged_geometry(const KernelConfig& c, const Problem& p,
                                            int warp_size) {
    DirectStagedGeometry g;
    const bool bwd = c.variant == Variant::BwdData;
    const int64_t dH = bwd ? p.Hi : p.Ho(), dW = bwd ? p.Wi : p.Wo();
    if (dH <= 0 || dW <= 0 || c.tile_k <= 0) return g;
    const int64_t pixel_lanes = threads_of(c, warp_size) / direct_channel_lanes(c);
    g.cols = std::min<int64_t>(dW, k_direct_staged_max_cols);
    g.col_tiles = ceil_div(dW, g.cols);
    const int64_t runs = std::clamp<int64_t>(
        std::max(1, direct_rows(c, warp_size)) * pixel_lanes / g.cols, 1, ceil_div(dH, c.tile_k));
    g.rows = runs * c.tile_k;
    g.bands = ceil_div(dH, g.rows);
    g.tiles = p.N * g.bands * g.col_tiles;
    const int64_t stride = bwd ? 1 : p.stride_w; // the staged entries' stride (1 or 2)
    g.in_rows = (g.rows - 1) * stride + p.Y;
    g.in_cols = (g.cols - 1) * stride + p.X;
    return g;
}

bool is_direct_tc(const KernelConfig& c) {
    return is_direct(c) &&
           Triple{c.warp_tile_m, c.warp_tile_n, c.warp_tile_k} == k_direct_tc_warp_tile;
}

DirectTcGeometry direct_tc_geometry(const KernelConfig& c, const Problem& p) {
    const bool bwd = c.variant == Variant::BwdData;
    if (bwd && p.stride_w == 2) // the four phases over a grid of ceil(H / 2) x ceil(W / 2)
        return direct_tc::data_s2_geometry<int64_t>(c.tile_m, c.tile_k, p.Y, p.pad_h, p.N, p.Hi,
                                                    p.Wi);
    const int64_t stride_h = bwd ? 1 : p.stride_h; // forward and bwd_weight read strided rows
    return direct_tc::geometry<int64_t>(c.tile_m, c.tile_k, p.Y, stride_h, p.N, bwd ? p.Hi : p.Ho(),
                                        bwd ? p.Wi : p.Wo());
}

Triple direct_warp_tile(DataType dtype) {
    return {32, 32, dtype == DataType::FP32 ? 4 : 16};
}

int64_t direct_row_taps(const KernelConfig& c, const Problem& p) {
    const bool fits = p.X * c.vector_size_a * p.c_per_group() <= 64;
    return (p.X == 3 || p.X == 5 || p.X == 7) && fits ? p.X : 1;
}

std::size_t direct_shared_bytes(const KernelConfig& c, const Problem& p, int warp_size) {
    if (is_direct_tc(c)) {
        const DirectTcGeometry g = direct_tc_geometry(c, p);
        const int64_t elem = element_bytes(c.dtype);
        if (c.variant == Variant::BwdWeight) { // the dOut and input planes, the sums
            const auto planes = direct_tc::weight_planes<int64_t>(g, p.stride_w, c.tile_n);
            return static_cast<std::size_t>((planes.douts + planes.ins) * elem +
                                            int64_t{c.tile_n} * p.Y * p.X * 4);
        }
        if (c.variant == Variant::BwdData && p.stride_w == 2) // one plane, four phases' rows
            return static_cast<std::size_t>(c.tile_n *
                                            (g.plane_rows * g.row_stride * elem +
                                             int64_t{4} * ((p.Y + 1) / 2) * direct_tc::kBRowBytes));
        // forward / bwd_data: a plane and the filter rows per (channel, column phase)
        const int64_t phases = c.variant == Variant::Forward ? p.stride_w : 1;
        return static_cast<std::size_t>(
            c.tile_n * phases *
            (g.plane_rows * g.row_stride * elem + int64_t{p.Y} * direct_tc::kBRowBytes));
    }
    if (is_direct_staged(c)) {
        const DirectStagedGeometry g = direct_staged_geometry(c, p, warp_size);
        auto round16 = [](int64_t bytes) { return (bytes + 15) / 16 * 16; };
        const int64_t filter = round16(int64_t{c.tile_n} * p.Y * p.X * 4);
        const int64_t tile = round16(g.in_rows * g.in_cols * c.tile_n * element_bytes(c.dtype));
        return static_cast<std::size_t>(filter + 2 * tile);
    }
    if (c.variant == Variant::BwdWeight) {
        const int64_t filter = direct_filter(c, p);
        return static_cast<std::size_t>(filter * filter * c.tile_n * 4);
    }
    return static_cast<std::size_t>(int64_t{c.tile_n} * p.Z * p.Y * p.X * p.c_per_group() * 4);
}

namespace detail {

LaunchPlan plan_direct(const KernelConfig& c, const Problem& p, int warp_size) {
    LaunchPlan plan;
    const int threads = threads_of(c, warp_size);
    const int64_t pixel_lanes = std::max(1, threads / direct_channel_lanes(c));
    const int64_t rows = std::max(1, direct_rows(c, warp_size));
    auto u32 = [](int64_t v) { return v > k_max_int || v < 0 ? 0u : static_cast<unsigned>(v); };
    // Pixel blocks: a staged kernel's one per k_direct_staged_walk tiles, the others' per entry.
    int64_t blocks_x = 0;
    if (is_direct_tc(c)) {
        blocks_x = direct_tc_geometry(c, p).tiles;
    } else if (is_direct_staged(c)) {
        blocks_x = ceil_div(direct_staged_geometry(c, p, warp_size).tiles, k_direct_staged_walk);
    } else if (c.variant == Variant::Forward) {
        blocks_x = ceil_div(p.N * p.Do() * ceil_div(p.Ho(), rows) * ceil_div(p.Wo(), c.tile_k),
                            pixel_lanes);
    } else if (c.variant == Variant::BwdData) {
        blocks_x =
            ceil_div(p.N * p.Di * ceil_div(p.Hi, rows) * ceil_div(p.Wi, c.tile_k), pixel_lanes);
    } else if (direct_filter(c, p) > 0) { // bwd_weight: pixel lanes of strips over bands
        const int64_t band = c.tile_k / k_direct_weight_strip;
        blocks_x = ceil_div(p.N * ceil_div(p.Ho(), band) * ceil_div(p.Wo(), k_direct_weight_strip),
                            pixel_lanes);
    } else { // bwd_weight: filter rows x pixel slices
        blocks_x = p.Z * p.Y * p.X / direct_row_taps(c, p) *
                   ceil_div(p.N * p.Do() * p.Ho() * p.Wo(), c.tile_m);
    }
    // Pixel blocks x channel blocks along x, the channel block fastest (gconv_direct.h
    // channel_block(): a pixel's channels cross DRAM together).
    plan.grid_x = u32(blocks_x * ceil_div(p.C, c.tile_n));
    plan.grid_y = 1;
    plan.grid_z = 1;
    plan.block_threads = static_cast<unsigned>(threads);
    plan.shared_bytes = direct_shared_bytes(c, p, warp_size);
    return plan;
}

namespace {

// The tensor-core K x K entries: their config facts (the device static_asserts them, rules.cpp
// culls them) and the problems they run.
SupportCheck check_direct_tc(const KernelConfig& c, const Problem& p, int warp_size) {
    Reasons r;
    const int64_t rows = int64_t{16} * c.tile_k;
    if (element_bytes(c.dtype) != 2)
        r.fail("data_type: the tensor-core direct entries (warp tile 16x8x16) multiply bf16 / fp16 "
               "on mma.sync, not ",
               to_string(c.dtype));
    else if (c.vector_size_a * 2 != 16 || c.vector_size_b != 8 || c.vector_size_c != 8)
        r.fail("vector_size_a/b/c: the tensor-core direct entries move 8-channel (16-byte) "
               "vectors, got ",
               c.vector_size_a, "/", c.vector_size_b, "/", c.vector_size_c);
    if (c.ndim_spatial != 2 || c.double_smem_buffer)
        r.fail("warp tile 16x8x16: the tensor-core direct entries exist for 2D without "
               "double_smem_buffer");
    if (c.tile_k != 1 && c.tile_k != 2 && c.tile_k != 4)
        r.fail("tile_k: ", c.tile_k,
               " m16 row blocks per tile; the tensor-core entries take 1, 2 "
               "or 4");
    else if (c.tile_m % rows != 0 || (c.tile_m / rows) % 16 != 0 ||
             c.tile_m / rows > direct_tc::kMaxCols)
        r.fail("tile_m: ", c.tile_m, " / ", rows,
               " rows is not a width of 16, 32, 48 or 64 "
               "columns");
    if (c.tile_n % 8 != 0) r.fail("tile_n: ", c.tile_n, " is not whole 8-channel vectors");
    const SplitKMode mode = c.variant == Variant::BwdWeight ? SplitKMode::Atomic : SplitKMode::None;
    if (c.split_k != 1 || c.split_k_mode != mode)
        r.fail("split_k: ", to_string(c.variant), " kernels take split_k = 1 and split_k_mode ",
               to_string(mode));
    if (c.split_image) r.fail("split_image: direct kernels address whole tensors (32-bit)");
    if (r.failed) return {false, r.text.str()};

    if (direct_filter(c, p) == 0)
        r.fail("warp tile 16x8x16: the tensor-core entries run depthwise 3x3, 5x5 and 7x7 filters "
               "with dilation 1 and stride 1 or 2 along H and W (this problem: C/G ",
               p.c_per_group(), ", K/G ", p.k_per_group(), ", filter ", p.Y, "x", p.X, ", stride ",
               p.stride_h, "x", p.stride_w, ", dilation ", p.dilation_h, "x", p.dilation_w, ")");
    else if (p.C % 8 != 0)
        r.fail("vector_size_a: 8 does not divide C = ", p.C);
    else if (direct_shared_bytes(c, p) > k_direct_tc_max_shared)
        r.fail("tile_n: ", c.tile_n, " channel planes of the tile and the filter rows need ",
               direct_shared_bytes(c, p), " bytes of shared memory, over ", k_direct_tc_max_shared);
    if (!detail::fits_int_offsets(p))
        r.fail("input / output / weight: over 2^31 elements; direct kernels use 32-bit offsets");
    if (r.failed) return {false, r.text.str()};
    return detail::check_xy_grid(plan_direct(c, p, warp_size));
}

} // namespace

SupportCheck check_direct(const KernelConfig& c, const Problem& p, int warp_size) {
    Reasons r;
    const std::vector<std::string> problem_errors = validate(p);
    if (!problem_errors.empty()) r.fail("problem: ", problem_errors.front());
    if (c.layout != "nhwgc") r.fail("layout: only nhwgc exists (got '", c.layout, "')");
    if (c.ndim_spatial != p.ndim_spatial)
        r.fail("ndim_spatial: kernel is ", c.ndim_spatial, "d, problem is ", p.ndim_spatial, "d");
    if (c.ndim_spatial == 2 &&
        (p.Di != 1 || p.Z != 1 || p.pad_d != 0 || p.stride_d != 1 || p.dilation_d != 1))
        r.fail("ndim_spatial: a 2d kernel needs Di = Z = 1, pad_d = 0, stride_d = dilation_d = 1");
    if (r.failed) return {false, r.text.str()};

    if (is_direct_tc(c)) return check_direct_tc(c, p, warp_size);

    // Config facts the device code static_asserts (rules.cpp culls them too).
    const int vec = c.vector_size_a;
    const int threads = threads_of(c, warp_size);
    const int lanes = direct_channel_lanes(c);
    if (!pow2(vec) || vec * element_bytes(c.dtype) > 16)
        r.fail("vector_size_a: ", vec, " is not a power of two of at most 16 bytes");
    else if (c.vector_size_b != vec || c.vector_size_c != vec)
        r.fail("vector_size_b/c: direct kernels use one channel vector (vector_size_a = ", vec,
               ") for every tensor");
    else if (c.tile_n % vec != 0 || threads % lanes != 0)
        r.fail("tile_n: ", c.tile_n, " / vector ", vec, " channel lanes must divide the ", threads,
               " threads");
    else if (c.variant == Variant::BwdWeight && int64_t{threads / lanes} * c.tile_k != c.tile_m)
        r.fail("tile_m: ", c.tile_m, " is not pixel lanes x tile_k = ", threads / lanes, " x ",
               c.tile_k);
    else if (direct_rows(c, warp_size) == 0)
        r.fail("tile_m: ", c.tile_m, " is not pixel lanes x tile_k x rows = ", threads / lanes,
               " x ", c.tile_k, " x 1, 2 or 4");
    if (c.split_image) r.fail("split_image: direct kernels address whole tensors (32-bit)");
    if (c.double_smem_buffer && (c.variant == Variant::BwdWeight || c.ndim_spatial != 2))
        r.fail("double_smem_buffer: the staged entries exist for 2D forward and bwd_data only");
    if (c.variant == Variant::BwdWeight) {
        if (c.split_k != 1 || c.split_k_mode != SplitKMode::Atomic)
            r.fail("split_k_mode: direct bwd_weight reduces tile_m pixels per block and adds "
                   "them atomically (split_k 1, atomic), got split_k ",
                   c.split_k, " ", to_string(c.split_k_mode));
    } else if (c.split_k != 1 || c.split_k_mode != SplitKMode::None) {
        r.fail("split_k: ", to_string(c.variant),
               " kernels take split_k = 1 and split_k_mode none");
    }
    if (r.failed) return {false, r.text.str()};

    // Problem-dependent rules: vectors across groups need whole groups per vector.
    const int64_t cpg = p.c_per_group(), kpg = p.k_per_group();
    if (kpg != cpg)
        r.fail("K/G: ", kpg, " differs from C/G = ", cpg,
               "; direct kernels need K/G = C/G (channel multipliers are not implemented)");
    else if (cpg > vec || vec % cpg != 0)
        r.fail("vector_size_a: a vector of ", vec, " channels must hold whole groups, C/G = ", cpg,
               " does not divide it");
    else if (p.C % vec != 0)
        r.fail("vector_size_a: ", vec, " does not divide C = ", p.C);
    if (is_direct_staged(c)) {
        if (direct_filter(c, p) == 0)
            r.fail("double_smem_buffer: the staged entries run depthwise 3x3, 5x5 and 7x7 filters "
                   "with dilation 1 and stride 1 along H and W (forward also 2) (this problem: "
                   "C/G ",
                   cpg, ", K/G ", kpg, ", filter ", p.Y, "x", p.X, ", stride ", p.stride_h, "x",
                   p.stride_w, ", dilation ", p.dilation_h, "x", p.dilation_w, ")");
        else if (direct_shared_bytes(c, p, warp_size) > k_direct_staged_max_shared)
            r.fail("tile_n: two staged tiles of ", c.tile_n, " channels and the filter slice need ",
                   direct_shared_bytes(c, p, warp_size), " bytes of shared memory, over ",
                   k_direct_staged_max_shared);
    } else if (direct_shared_bytes(c, p) > k_direct_max_shared)
        r.fail("tile_n: the fp32 filter slice of ", c.tile_n, " channels x ", p.Z * p.Y * p.X,
               " taps x C/G ", cpg, " needs ", direct_shared_bytes(c, p),
               " bytes of shared memory, over ", k_direct_max_shared);
    if (!detail::fits_int_offsets(p))
        r.fail("input / output / weight: over 2^31 elements; direct kernels use 32-bit offsets");
    if (r.failed) return {false, r.text.str()};
    return detail::check_xy_grid(plan_direct(c, p, warp_size));
}

} // namespace detail
} // namespace gconv
