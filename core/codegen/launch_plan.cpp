#include "codegen/launch_plan.h"

#include "codegen/channel_pad.h"
#include "codegen/direct_mma_plan.h"
#include "codegen/direct_plan.h"
#include "codegen/direct_wgmma_plan.h"
#include "codegen/forward_view.h"
#include "codegen/kernel_problem.h"
#include "codegen/launch_plan_detail.h"
#include "codegen/wgmma_tma.h"

#include <algorithm>
#include <sstream>

namespace gconv {
using detail::ceil_div;
using detail::Reasons;
namespace {

bool pow2_in(int v, int lo, int hi) {
    return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

// More loads per thread and tile than this would spill the loader's per-row state.
constexpr int64_t k_max_loads_per_thread = 16;

int64_t pad_elements(DataType dtype) {
    return 16 / element_bytes(dtype);
}

// sm_90's opt-in shared memory per block (configs/arch_specs.json), the budget of a wgmma
// ring beside its own C buffer; the shared_memory rule checks the result per arch.
constexpr int64_t k_sm90_shared_optin = 232448;

// The cshuffle C tile: tile_m rows of tile_n outputs, each row padded by 16 bytes; a cluster
// along K stages its partial sums there as fp32 first (rows padded by 16 bytes as well).
int64_t cshuffle_bytes(const KernelConfig& c) {
    const int64_t out_elem = output_element_bytes(c);
    const int64_t c_tile = c.tile_m * (c.tile_n + 16 / out_elem) * out_elem;
    return c.cluster_k > 1 ? std::max<int64_t>(c_tile, c.tile_m * (c.tile_n + 4) * 4) : c_tile;
}
// The cshufflebuf C buffer beside a wgmma ring: tile_m rows of tile_n / passes outputs (the
// epilogue stages C that many column slices at a time), one per consumer warpgroup when they
// ping-pong.
int64_t c_buffer_bytes(const KernelConfig& c, int passes) {
    if (c.epilogue != Epilogue::CShuffleBuf) return 0;
    const int64_t out_elem = output_element_bytes(c);
    return c.tile_m * (c.tile_n / passes + 16 / out_elem) * out_elem *
           (wgmma_pingpong(c) ? c.wave_m / 4 : 1);
}

// wgmma ring stages beside a C buffer staged in `passes` column slices: as many as fit in
// 192 KiB, and beside the buffer in sm_90's 227 KiB; at least 3 (see pipeline_stages), at
// most 4.
int wgmma_stages(const KernelConfig& c, int passes) {
    const int64_t stage = int64_t{c.tile_m + c.tile_n} * c.tile_k * element_bytes(c.dtype);
    // tile_k 32: twice the stages of tile_k 64 in the same bytes (as many K in flight).
    const int most = c.tile_k == 32 ? 8 : 4;
    int64_t fit = 196608 / stage;
    if (c.epilogue == Epilogue::CShuffleBuf)
        fit = std::min(fit, (k_sm90_shared_optin - 1024 - 16 * most - c_buffer_bytes(c, passes)) /
                                stage);
    return static_cast<int>(std::clamp<int64_t>(fit, 3, most));
}

// A wgmma kernel's shared memory with C staged in `passes` column slices: the unpadded swizzled
// stages (cshuffle reuses them for C, cshufflebuf adds its own C buffer), two 8-byte mbarriers
// per stage (at least four stages' worth) and 1 KiB of alignment slack.
int64_t wgmma_shared_bytes(const KernelConfig& c, int passes) {
    const int stages = wgmma_stages(c, passes);
    const int64_t ring = stages * int64_t{c.tile_m + c.tile_n} * c.tile_k * element_bytes(c.dtype);
    const int64_t epi = c.epilogue == Epilogue::CShuffle ? cshuffle_bytes(c) : 0;
    return std::max(ring, epi) + c_buffer_bytes(c, passes) + 1024 + 16 * std::max(4, stages);
}

// Elements of one image of the input and of the output.
int64_t image_in_elements(const Problem& p) {
    return p.Di * p.Hi * p.Wi * p.C;
}
int64_t image_out_elements(const Problem& p) {
    return p.Do() * p.Ho() * p.Wo() * p.K;
}

} // namespace

bool uses_mma(const KernelConfig& c) {
    return c.dtype != DataType::FP32 && c.warp_tile_k >= 16;
}

bool is_warpgroup_tile(const KernelConfig& c) {
    return c.dtype != DataType::FP32 && c.warp_tile_m == 16 && c.warp_tile_n >= 64 &&
           c.warp_tile_k == 16;
}
bool any_width_tile_n(const KernelConfig& c) {
    return c.variant == Variant::Forward && c.tile_n % 16 == 0 && c.tile_n > 0 && c.tile_n <= 256;
}
bool wgmma_n_built(const KernelConfig& c) {
    const int n = c.warp_tile_n;
    if (n == 64 || n == 128 || n == 256) return true;
    if (c.variant == Variant::Forward && c.pixels_on_n) return n % 8 == 0 && n > 64 && n < 256;
    if (c.variant == Variant::Forward)
        return (n % 32 == 0 && n > 64 && n < 256) || (n % 8 == 0 && n > 64 && n < 128);
    return c.variant == Variant::BwdWeight && (n == 192 || n == 96);
}
bool wgmma_n_split(const KernelConfig& c) {
    return !c.pixels_on_n && c.pipeline == Pipeline::CompV5 && is_warpgroup_tile(c) &&
           c.wave_m == 4 && c.wave_n == 2 && c.warp_tile_n * 2 == c.tile_n;
}
bool uses_wgmma(const KernelConfig& c) {
    return c.pipeline == Pipeline::CompV5 && is_warpgroup_tile(c) &&
           ((c.wave_n == 1 && c.warp_tile_n == instruction_n(c)) || wgmma_n_split(c));
}
int instruction_m(const KernelConfig& c) {
    return c.pixels_on_n ? c.tile_n : c.tile_m;
}
int instruction_n(const KernelConfig& c) {
    return c.pixels_on_n ? c.tile_m : c.tile_n;
}
bool wgmma_three_consumers(const KernelConfig& c) {
    return c.pipeline == Pipeline::CompV5 && is_warpgroup_tile(c) && c.wave_m == 12 &&
           c.wave_n == 1 && instruction_m(c) == 192 && c.scheduler == Scheduler::Intrawave;
}
bool admits_non_pow2(const KernelConfig& c, std::string_view field) {
    const bool wgmma_n = is_warpgroup_tile(c) &&
                         (c.warp_tile_n == instruction_n(c) || wgmma_n_split(c)) &&
                         wgmma_n_built(c);
    if (field == "tile_n") return any_width_tile_n(c) || (wgmma_n && !c.pixels_on_n);
    if (field == "warp_tile_n") return wgmma_n;
    if (field == "tile_m" && c.pixels_on_n) return wgmma_n;
    if (field == "tile_m" && wgmma_n_split(c)) return c.tile_m % 64 == 0;
    if (field == "tile_m") return !c.pixels_on_n && wgmma_three_consumers(c);
    if (field == "wave_m") return wgmma_three_consumers(c);
    return false;
}
bool wgmma_pingpong(const KernelConfig& c) {
    return uses_wgmma(c) && c.scheduler == Scheduler::Interwave;
}

int c_buffer_passes(const KernelConfig& c) {
    // pixels_on_n: an n8 block of the instruction is 8 pixels, so a column slice of C would
    // take a few values of every accumulator block; its C buffer stays whole.
    if (!uses_wgmma(c) || c.epilogue != Epilogue::CShuffleBuf || c.pixels_on_n) return 1;
    // The fewest column slices that fit the ring's 3 or more stages beside the buffer and give
    // it its most stages: a whole 128 x 256 tile (67 KiB) leaves room for 3 stages of 48 KiB,
    // quarter slices (18 KiB) for 4; a whole 256 x 160 tile (84 KiB) beside 3 stages of 52 KiB
    // is over 227 KiB, half slices are not. A slice keeps at least 32 columns, whole n8 blocks
    // of the instruction and whole output vectors.
    const auto sliceable = [&](int passes) {
        const int cols = c.tile_n / passes;
        return c.tile_n % passes == 0 && cols >= 32 && cols % 8 == 0 && cols % c.vector_size_c == 0;
    };
    const auto in_budget = [&](int passes) {
        return wgmma_shared_bytes(c, passes) <= k_sm90_shared_optin;
    };
    int best = 1;
    for (int passes = 2; sliceable(passes); passes *= 2) {
        const bool fits = in_budget(passes), best_fits = in_budget(best);
        if (fits != best_fits ? fits : wgmma_stages(c, passes) > wgmma_stages(c, best))
            best = passes;
    }
    return best;
}
int block_warps(const KernelConfig& c) {
    return c.wave_m * c.wave_n * c.wave_k + (uses_wgmma(c) ? 4 : 0);
}

bool a_is_mn_major(const KernelConfig& c) {
    return c.variant == Variant::BwdWeight;
}
bool b_is_mn_major(const KernelConfig& c) {
    return c.variant != Variant::Forward && !runs_forward_view(c);
}

std::size_t stage_bytes(const KernelConfig& c) {
    const int64_t elem = element_bytes(c.dtype), pad = pad_elements(c.dtype);
    const int64_t a = a_is_mn_major(c) ? c.tile_k * (c.tile_m + pad) : c.tile_m * (c.tile_k + pad);
    const int64_t b = b_is_mn_major(c) ? c.tile_k * (c.tile_n + pad) : c.tile_n * (c.tile_k + pad);
    return static_cast<std::size_t>((a + b) * elem);
}

int output_element_bytes(const KernelConfig& c) {
    // Split-K blocks hold fp32 sums (bwd_weight: any split_k_mode; forward: split_k > 1).
    return c.variant != Variant::BwdData && c.split_k_mode != SplitKMode::None
               ? 4
               : element_bytes(c.dtype);
}

int pipeline_stages(const KernelConfig& c) {
    switch (c.pipeline) {
    case Pipeline::BasicV1:
        return c.double_smem_buffer ? 2 : 1;
    case Pipeline::CompV3:
        return 1;
    case Pipeline::CompV5:
        // wgmma: 3-4 unpadded stages in about 192 KiB. At least 3: the producer signals a stage
        // STAGES-2 tiles after issuing it, so 2 stages would deadlock (seen on the H200); 8 stages
        // in 225 KiB measured slower (one block per SM instead of two, docs/notes/wgmma.md).
        // cshufflebuf keeps its C buffer beside the ring: as many stages as fit next to it in
        // sm_90's 227 KiB, the buffer staging C in column slices where a whole tile would cost
        // a stage (c_buffer_passes).
        if (uses_wgmma(c)) return wgmma_stages(c, c_buffer_passes(c));
        return 2;
    case Pipeline::CompV4:
    case Pipeline::CompAsync:
        return 2;
    case Pipeline::CompV6:
        return 3;
    case Pipeline::Direct:
    case Pipeline::DirectMma:
    case Pipeline::DirectWgmma:
        return 0; // no staged operand tiles: the filter slice is sized per problem
    case Pipeline::Mem: {
        const int64_t in_flight = ceil_div(32 * 1024, static_cast<int64_t>(stage_bytes(c)));
        return 1 + static_cast<int>(std::clamp<int64_t>(in_flight, 2, 8));
    }
    }
    return 1;
}

std::size_t shared_bytes(const KernelConfig& c, int /*warp_size*/) {
    if (is_direct(c)) return 0;       // per problem: direct_shared_bytes()
    if (is_direct_mma(c)) return 0;   // per problem: direct_mma_shared_bytes()
    if (is_direct_wgmma(c)) return 0; // per problem: direct_wgmma_geometry()
    if (uses_wgmma(c)) return static_cast<std::size_t>(wgmma_shared_bytes(c, c_buffer_passes(c)));
    const int64_t pipe = pipeline_stages(c) * static_cast<int64_t>(stage_bytes(c));
    const int64_t epi = c.epilogue == Epilogue::CShuffle ? cshuffle_bytes(c) : 0;
    const int64_t red = c.pipeline == Pipeline::CompV5 ? int64_t{c.tile_m} * c.tile_n * 4 : 0;
    return static_cast<std::size_t>(std::max({pipe, epi, red}));
}

int64_t images_per_piece(const KernelConfig& c, const Problem& p, int64_t max_piece_elements) {
    if (!c.split_image) return p.N;
    const int64_t per_image =
        std::max<int64_t>(1, std::max(image_in_elements(p), image_out_elements(p)));
    return std::clamp<int64_t>(max_piece_elements / per_image, 1, p.N);
}

SupportCheck check_forward(const KernelConfig& c, const Problem& p, int warp_size,
                           int64_t max_piece_elements);

SupportCheck is_supported(const KernelConfig& c, const Problem& given, int warp_size,
                          int64_t max_piece_elements, std::size_t shared_optin) {
    if (std::string why = channel_pad_refusal(c, given); !why.empty()) return {false, why};
    const Problem p = kernel_problem(c, given);
    if (runs_forward_view(c)) {
        // Refuse in the problem's own terms first; the rest is the forward kernel's check.
        const std::vector<std::string> problem_errors = validate(p);
        if (!problem_errors.empty()) return {false, "problem: " + problem_errors.front()};
        if (is_direct_mma(c)) return detail::check_direct_mma_phases(c, p, warp_size, shared_optin);
        if (std::string why = forward_view_refusal(p); !why.empty()) return {false, why};
        SupportCheck view = is_supported(forward_twin(c), forward_view(p), warp_size,
                                         max_piece_elements, shared_optin);
        if (!view.ok)
            view.reason += " (bwd_data as the forward convolution of dOut: dOut is its "
                           "input, dIn its output)";
        return view;
    }
    if (is_direct(c)) return detail::check_direct(c, p, warp_size);
    if (is_direct_mma(c)) return detail::check_direct_mma(c, p, warp_size, shared_optin);
    if (is_direct_wgmma(c)) return detail::check_direct_wgmma(c, p, warp_size, shared_optin);
    Reasons r;
    const std::vector<std::string> problem_errors = validate(p);
    if (!problem_errors.empty()) r.fail("problem: ", problem_errors.front());
    if (c.layout != "nhwgc") r.fail("layout: only nhwgc exists (got '", c.layout, "')");
    if (c.ndim_spatial != 2 && c.ndim_spatial != 3)
        r.fail("ndim_spatial: must be 2 or 3 (got ", c.ndim_spatial, ")");
    if (c.ndim_spatial != p.ndim_spatial)
        r.fail("ndim_spatial: kernel is ", c.ndim_spatial, "d, problem is ", p.ndim_spatial, "d");
    if (c.ndim_spatial == 2 &&
        (p.Di != 1 || p.Z != 1 || p.pad_d != 0 || p.stride_d != 1 || p.dilation_d != 1))
        r.fail("ndim_spatial: a 2d kernel needs Di = Z = 1, pad_d = 0, stride_d = dilation_d = 1");
    if (c.wave_k != 1) r.fail("wave_k: must be 1 (got ", c.wave_k, ")");
    if (c.num_wave_groups != (c.pipeline == Pipeline::CompV5 ? 2 : 1))
        r.fail("num_wave_groups: compv5 splits its warps into 2 groups, the other pipelines run 1 "
               "(got ",
               c.num_wave_groups, ")");
    if (c.variant == Variant::BwdData && (c.split_k != 1 || c.split_k_mode != SplitKMode::None))
        r.fail("split_k: ", to_string(c.variant),
               " kernels take split_k = 1 and split_k_mode none");
    if (c.variant != Variant::BwdData) {
        // Split-K: bwd_weight's and forward's; forward adds atomically into one workspace.
        if (c.split_k < 1 || c.split_k > 1024)
            r.fail("split_k: must be in [1, 1024] (got ", c.split_k, ")");
        else if (c.split_k > 1 && c.split_k_mode == SplitKMode::None)
            r.fail("split_k_mode: split_k ", c.split_k, " needs atomic or 2stage");
        else if (c.split_k == 1 && c.split_k_mode == SplitKMode::Atomic)
            r.fail("split_k_mode: atomic with split_k 1 only adds a zeroing pass");
        else if (c.variant == Variant::Forward &&
                 (c.split_k_mode == SplitKMode::TwoStage || (c.split_k > 1 && c.split_image)))
            r.fail("split_k_mode: forward split-K is atomic and without split_image (got ",
                   to_string(c.split_k_mode), c.split_image ? ", si" : "", ")");
    }
    if (c.variant == Variant::BwdWeight) {
        if (c.num_groups_to_merge != 1)
            r.fail("num_groups_to_merge: bwd_weight computes one group per block (got ",
                   c.num_groups_to_merge, "); merged groups would multiply the work by gm");
    }
    for (auto [name, v] : {std::pair{"tile_m", c.tile_m},
                           {"tile_n", c.tile_n},
                           {"tile_k", c.tile_k},
                           {"wave_m", c.wave_m},
                           {"wave_n", c.wave_n},
                           {"warp_tile_m", c.warp_tile_m},
                           {"warp_tile_n", c.warp_tile_n},
                           {"warp_tile_k", c.warp_tile_k}}) {
        if (!pow2_in(v, 1, 256) && !admits_non_pow2(c, name))
            r.fail(name, ": must be a power of two in [1, 256]",
                   std::string_view(name) == "tile_n" ? " (forward: or a multiple of 16)" : "",
                   " (got ", v, ")");
    }
    if (r.failed) return {false, r.text.str()};

    const int warps = c.wave_m * c.wave_n;
    if (warps > 16) r.fail("wave_m * wave_n: at most 16 warps per block (got ", warps, ")");
    // The warps tile the instruction's M and N: the tile's pixels and channels, or its channels
    // and pixels (pixels_on_n).
    const char* m_name = c.pixels_on_n ? "tile_n (pixels_on_n): " : "tile_m: ";
    const char* n_name = c.pixels_on_n ? "tile_m (pixels_on_n): " : "tile_n: ";
    if (instruction_m(c) % (c.wave_m * c.warp_tile_m) != 0)
        r.fail(m_name, instruction_m(c),
               " is not a multiple of wave_m * warp_tile_m = ", c.wave_m * c.warp_tile_m);
    if (instruction_n(c) % (c.wave_n * c.warp_tile_n) != 0)
        r.fail(n_name, instruction_n(c),
               " is not a multiple of wave_n * warp_tile_n = ", c.wave_n * c.warp_tile_n);
    if (c.tile_k % c.warp_tile_k != 0)
        r.fail("tile_k: ", c.tile_k, " is not a multiple of warp_tile_k = ", c.warp_tile_k);
    if (c.tile_k < 8) r.fail("tile_k: must be at least 8 (got ", c.tile_k, ")");
    if (uses_mma(c)) {
        const int frag_n = warp_size == 64 ? 16 : 8;
        if (c.warp_tile_m % 16 != 0) r.fail("warp_tile_m: the MMA path needs a multiple of 16");
        if (c.warp_tile_n % frag_n != 0)
            r.fail("warp_tile_n: the MMA path needs a multiple of ", frag_n);
        if (c.warp_tile_k % 16 != 0) r.fail("warp_tile_k: the MMA path needs a multiple of 16");
    } else {
        if (c.warp_tile_m % (warp_size / 8) != 0 || c.warp_tile_m < 8)
            r.fail("warp_tile_m: the SIMT path needs a multiple of ", std::max(8, warp_size / 8));
        if (c.warp_tile_n % 8 != 0) r.fail("warp_tile_n: the SIMT path needs a multiple of 8");
        if (c.warp_tile_k > 8) r.fail("warp_tile_k: the SIMT path takes 1, 2, 4 or 8");
    }
    const int elem = element_bytes(c.dtype);
    for (auto [name, v] : {std::pair{"vector_size_a", c.vector_size_a},
                           {"vector_size_b", c.vector_size_b},
                           {"vector_size_c", c.vector_size_c}}) {
        if (!pow2_in(v, 1, 8) || v * elem > 16)
            r.fail(name, ": must be 1, 2, 4 or 8 elements and at most 16 bytes (got ", v, ")");
    }
    // K-major operands load vectors along tile_k, MN-major ones along tile_m / tile_n.
    const int a_run = a_is_mn_major(c) ? c.tile_m : c.tile_k;
    const int b_run = b_is_mn_major(c) ? c.tile_n : c.tile_k;
    if (a_run % c.vector_size_a != 0)
        r.fail("vector_size_a: must divide ", a_is_mn_major(c) ? "tile_m = " : "tile_k = ", a_run);
    if (b_run % c.vector_size_b != 0)
        r.fail("vector_size_b: must divide ", b_is_mn_major(c) ? "tile_n = " : "tile_k = ", b_run);
    if (c.tile_n % c.vector_size_c != 0) r.fail("vector_size_c: must divide tile_n = ", c.tile_n);
    if (!pow2_in(c.num_groups_to_merge, 1, 8))
        r.fail("num_groups_to_merge: must be 1, 2, 4 or 8 (got ", c.num_groups_to_merge, ")");
    if (c.block_per_cu < 1 || c.block_per_cu > 8)
        r.fail("block_per_cu: must be in [1, 8] (got ", c.block_per_cu, ")");

    switch (c.pipeline) {
    case Pipeline::CompV4:
        if (!c.double_smem_buffer)
            r.fail("pipeline: compv4 ping-pongs two buffers and requires double_smem_buffer");
        break;
    case Pipeline::CompV5:
        if (!c.double_smem_buffer)
            r.fail("pipeline: compv5 ping-pongs two buffers and requires double_smem_buffer");
        if (warps % 2 != 0)
            r.fail(
                "pipeline: compv5 splits the warps into two groups and needs an even count (got ",
                warps, ")");
        if (c.wave_n % 2 != 0 && c.wave_m % 2 != 0)
            r.fail("pipeline: compv5 needs wave_m or wave_n even");
        // (The wgmma pipeline reads interwave as ping-pong consumer warpgroups.)
        if (c.scheduler == Scheduler::Interwave && !uses_wgmma(c))
            r.fail("scheduler: interwave keeps all warps in step per chunk, but compv5's memory "
                   "group does not compute");
        break;
    case Pipeline::CompV3:
        if (c.double_smem_buffer)
            r.fail("double_smem_buffer: compv3 with two buffers is compv4; use compv4");
        break;
    case Pipeline::Mem:
    case Pipeline::CompV6:
    case Pipeline::CompAsync:
        if (c.double_smem_buffer)
            r.fail("double_smem_buffer: ", to_string(c.pipeline),
                   " already runs a multi-stage ring; dsb would change nothing");
        break;
    default:
        break;
    }
    {
        const bool split = c.pipeline == Pipeline::CompV5 && !uses_wgmma(c);
        const int compute_warps = std::max(1, split ? warps / 2 : warps);
        const int64_t acc = int64_t{c.tile_m} * c.tile_n / (compute_warps * int64_t{warp_size});
        if (acc > 256)
            r.fail("tile_m * tile_n: ", acc,
                   " fp32 accumulators per thread exceed 256 (register file)");
        if (acc < 1) r.fail("tile_m * tile_n: fewer outputs than threads");
        // Each loader thread keeps per-row im2col state and a staging register per vector.
        const int64_t loaders = uses_wgmma(c) ? 128 : compute_warps * int64_t{warp_size};
        const int64_t loads_a = ceil_div(int64_t{c.tile_m} * c.tile_k / c.vector_size_a, loaders);
        const int64_t loads_b = ceil_div(int64_t{c.tile_n} * c.tile_k / c.vector_size_b, loaders);
        if (loads_a > k_max_loads_per_thread || loads_b > k_max_loads_per_thread)
            r.fail("vector_size_a/b: each thread would issue ", loads_a, " A and ", loads_b,
                   " B loads per K tile; at most ", k_max_loads_per_thread);
    }
    if (r.failed) return {false, r.text.str()};

    switch (c.variant) {
    case Variant::BwdData:
        return detail::check_bwd_data(c, p, warp_size);
    case Variant::BwdWeight:
        return detail::check_bwd_weight(c, p, warp_size);
    case Variant::Forward:
        break;
    }
    return check_forward(c, p, warp_size, max_piece_elements);
}

SupportCheck check_forward(const KernelConfig& c, const Problem& p, int warp_size,
                           int64_t max_piece_elements) {
    Reasons r;
    // Problem-dependent rules.
    const int64_t cpg = p.c_per_group(), kpg = p.k_per_group(), gm = c.num_groups_to_merge;
    const int64_t taps = p.Z * p.Y * p.X;
    const bool group_tail = p.G % gm != 0;
    if (gm > p.G) r.fail("num_groups_to_merge: ", gm, " exceeds G = ", p.G);
    if (gm > 1 && gm * kpg > c.tile_n)
        r.fail("num_groups_to_merge: ", gm, " groups x K/G = ", gm * kpg,
               " columns exceed tile_n = ", c.tile_n);
    const int va = c.vector_size_a, vb = c.vector_size_b, vc = c.vector_size_c;
    if ((gm * cpg) % va != 0 || (group_tail && cpg % va != 0))
        r.fail("vector_size_a: ", va, " does not divide C/G = ", cpg,
               gm > 1 ? " (times num_groups_to_merge, without group tail)" : "");
    if (gm == 1 ? (taps * cpg) % vb != 0 : cpg % vb != 0)
        r.fail("vector_size_b: ", vb, " does not divide ",
               gm == 1 ? "Z*Y*X*C/G = " : "C/G = ", gm == 1 ? taps * cpg : cpg);
    if ((gm * kpg) % vc != 0 || (group_tail && kpg % vc != 0))
        r.fail("vector_size_c: ", vc, " does not divide K/G = ", kpg,
               gm > 1 ? " (times num_groups_to_merge, without group tail)" : "");

    const int64_t ipp = images_per_piece(c, p, max_piece_elements);
    const int64_t pixels_out = p.Do() * p.Ho() * p.Wo();
    if (!c.pad_m) {
        const int64_t last = (p.N % ipp == 0 ? ipp : p.N % ipp) * pixels_out;
        if ((ipp * pixels_out) % c.tile_m != 0 || last % c.tile_m != 0)
            r.fail("pad_m: false needs every piece's N*Do*Ho*Wo to be a multiple of tile_m = ",
                   c.tile_m);
    }
    if (!c.pad_n && ((gm * kpg) % c.tile_n != 0 || group_tail))
        r.fail("pad_n: false needs num_groups_to_merge * K/G = ", gm * kpg,
               " to be a multiple of tile_n = ", c.tile_n,
               " and G divisible by num_groups_to_merge");
    if (!c.pad_k && (taps * gm * cpg) % c.tile_k != 0)
        r.fail("pad_k: false needs Z*Y*X*num_groups_to_merge*C/G = ", taps * gm * cpg,
               " to be a multiple of tile_k = ", c.tile_k);

    if (p.weight_elements() > k_max_piece_elements)
        r.fail("weight: ", p.weight_elements(), " elements exceed 32-bit offsets");
    if (!c.split_image) {
        if (p.input_elements() > max_piece_elements || p.output_elements() > max_piece_elements)
            r.fail("split_image: input (", p.input_elements(), ") or output (", p.output_elements(),
                   ") elements exceed 32-bit offsets; needs split_image");
    } else if (image_in_elements(p) > max_piece_elements ||
               image_out_elements(p) > max_piece_elements) {
        r.fail("split_image: one image exceeds 32-bit offsets (input ", image_in_elements(p),
               ", output ", image_out_elements(p), " elements)");
    }
    if (const std::string only = uses_wgmma(c) ? maps_only_reason(c) : std::string();
        !only.empty() && !r.failed) {
        const WgmmaTmaPlan tma = plan_wgmma_tma(c, p);
        if (!tma.enabled)
            r.fail("tensor maps: ", only,
                   " wgmma kernels load through tensor maps only, which this problem cannot use (",
                   tma.reason, ")");
    }
    if (r.failed) return {false, r.text.str()};
    const LaunchPlan plan = plan_launch(c, p, warp_size, max_piece_elements);
    if (plan.grid_x == 0 || plan.grid_y > 65535 || plan.grid_z > 65535)
        r.fail("grid: ", plan.grid_x, " x ", plan.grid_y, " x ", plan.grid_z,
               " exceeds the launch limits");
    if (r.failed) return {false, r.text.str()};
    return {true, {}};
}

LaunchPlan plan_launch(const KernelConfig& c, const Problem& p, int warp_size,
                       int64_t max_piece_elements) {
    if (is_direct_mma(c)) return detail::plan_direct_mma(c, p, warp_size);
    if (runs_forward_view(c))
        return plan_launch(forward_twin(c), forward_view(p), warp_size, max_piece_elements);
    if (is_direct(c)) return detail::plan_direct(c, p, warp_size);
    if (is_direct_mma(c)) return detail::plan_direct_mma(c, p, warp_size);
    if (is_direct_wgmma(c)) return detail::plan_direct_wgmma(c, p);
    if (c.variant != Variant::Forward) return detail::plan_backward(c, p, warp_size);
    LaunchPlan plan;
    const int64_t ipp = images_per_piece(c, p, max_piece_elements);
    const int64_t pieces = ceil_div(p.N, ipp);
    const int64_t tiles_per_piece = ceil_div(ipp * p.Do() * p.Ho() * p.Wo(), c.tile_m);
    const int64_t gm = std::max(1, c.num_groups_to_merge);
    // A cluster along K: its cluster_k blocks (consecutive x) reduce one output tile.
    const int64_t gx = pieces * tiles_per_piece * std::max(1, c.cluster_k);
    plan.grid_x = gx > INT32_MAX ? 0u : static_cast<unsigned>(gx);
    plan.grid_y = static_cast<unsigned>(ceil_div(gm * p.k_per_group(), c.tile_n));
    plan.grid_z = static_cast<unsigned>(ceil_div(p.G, gm) * std::max(1, c.split_k));
    plan.block_threads = static_cast<unsigned>(block_warps(c) * warp_size);
    plan.shared_bytes = shared_bytes(c, warp_size);
    return plan;
}

ConvParams make_params(const Problem& p, const void* in, const void* wei, void* out) {
    ConvParams q{};
    q.in = in;
    q.wei = wei;
    q.out = out;
    auto i32 = [](int64_t v) { return static_cast<int>(v); };
    q.N = i32(p.N), q.C = i32(p.C), q.K = i32(p.K), q.G = i32(p.G);
    q.Di = i32(p.Di), q.Hi = i32(p.Hi), q.Wi = i32(p.Wi);
    q.Z = i32(p.Z), q.Y = i32(p.Y), q.X = i32(p.X);
    q.stride_d = i32(p.stride_d), q.stride_h = i32(p.stride_h), q.stride_w = i32(p.stride_w);
    q.pad_d = i32(p.pad_d), q.pad_h = i32(p.pad_h), q.pad_w = i32(p.pad_w);
    q.dilation_d = i32(p.dilation_d), q.dilation_h = i32(p.dilation_h),
    q.dilation_w = i32(p.dilation_w);
    q.Do = i32(p.Do()), q.Ho = i32(p.Ho()), q.Wo = i32(p.Wo());
    q.c_per_group = i32(p.c_per_group()), q.k_per_group = i32(p.k_per_group());
    q.stored_c_per_group = q.c_per_group;
    q.images_per_piece = q.N;
    q.m_tiles_per_piece = 1;
    q.in_piece_stride = 0;
    q.out_piece_stride = 0;
    return q;
}

ConvParams make_params(const KernelConfig& c, const Problem& p, const void* in, const void* wei,
                       void* out, int64_t max_piece_elements) {
    // direct_mma's phases entry derives each phase's view itself from the bwd_data problem.
    if (direct_mma_runs_phases(c, p)) return make_params(p, in, wei, out);
    if (runs_forward_view(c))
        return make_params(forward_twin(c), forward_view(p), in, wei, out, max_piece_elements);
    ConvParams q = make_params(p, in, wei, out);
    if (c.variant == Variant::BwdData) {
        q.m_tiles_per_piece = static_cast<int>(detail::bwd_data_tiles_per_phase(c, p));
        return q;
    }
    if (c.variant == Variant::BwdWeight) return q;
    const int64_t ipp = images_per_piece(c, p, max_piece_elements);
    q.images_per_piece = static_cast<int>(ipp);
    q.m_tiles_per_piece = static_cast<int>(ceil_div(ipp * p.Do() * p.Ho() * p.Wo(), c.tile_m));
    q.in_piece_stride = ipp * image_in_elements(p);
    q.out_piece_stride = ipp * image_out_elements(p);
    return q;
}

} // namespace gconv
