#include "config/rules.h"

#include "codegen/direct_mma_plan.h"
#include "codegen/direct_plan.h"
#include "codegen/direct_wgmma_plan.h"
#include "codegen/launch_plan.h"

#include <algorithm>
#include <array>

namespace gconv {
namespace {

std::string triple_text(int a, int b, int c) {
    return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c);
}

std::string list_triples(const std::vector<Triple>& triples) {
    std::string out;
    for (const auto& t : triples) out += (out.empty() ? "" : ", ") + triple_text(t[0], t[1], t[2]);
    return out;
}

bool contains(const std::vector<Triple>& list, Triple t) {
    return std::find(list.begin(), list.end(), t) != list.end();
}

bool is_pow2_in(int v, int lo, int hi) {
    return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

// Pipelines whose main loop ping-pongs over two shared-memory buffers; basic_v1 may add a second
// buffer (one barrier per tile instead of two); the others have one buffer (compv3) or their
// own ring of stages (mem, compv6, comp_async).
bool requires_double_buffer(Pipeline p) {
    return p == Pipeline::CompV4 || p == Pipeline::CompV5;
}
bool allows_double_buffer(Pipeline p) {
    return requires_double_buffer(p) || p == Pipeline::BasicV1;
}

// Accumulator registers per thread above this leave too few for operands and addresses
// (measured on sm_90: larger warp tiles spill).
constexpr int k_max_accumulator_registers = 128;
// Two wgmma consumer warpgroups hold 160 accumulators in the 208 registers setmaxnreg gives them,
// 192 in 232 (gemm.h WIDE_ACC) with the producer's spills only; 256 x 224's 224 spill 4 KB.
constexpr int k_max_wgmma_two_consumer_accumulators = 192;
// Global loads of A or B per loader thread and K tile that the kernels unroll.
constexpr int k_max_loads_per_thread = 16;
// Registers a thread must keep when block_per_cu asks for several resident blocks.
constexpr int k_min_registers_per_thread = 128;
constexpr int k_min_registers_per_thread_direct = 64;
constexpr int k_max_warps = 16;
// Resident threads per SM/CU that launch bounds may ask for.
constexpr int k_max_threads_per_cu = 2048;

class Checker {
public:
    Checker(const KernelConfig& c, const ArchSpec& a, const ArchSpecs& s) : c_(c), a_(a), s_(s) {}

    std::vector<CullReason> run() {
        if (c_.pipeline == Pipeline::Direct) {
            // Direct convolution has no GEMM main loop: only the block-level rules apply.
            spatial_dims();
            tile_shape();
            pipeline_hardware();
            wave_layout();
            thread_count();
            blocks_per_cu();
            direct();
            runtime_filter();
            channel_pad();
            cluster();
            pixels_on_n();
            return std::move(reasons_);
        }
        if (c_.pipeline == Pipeline::DirectMma) {
            // Tensor-core direct convolution: its own tile meaning (pixels x channels x C/G).
            // Its warps take items in turn, so any power-of-two count along m is a layout
            // (thread_count caps the block), doubled by wave_k 2 (pairs splitting an item's
            // taps, direct_mma() checks); other layouts are the architecture's.
            pipeline_hardware();
            const bool warps_in_turn = c_.wave_n == 1 && (c_.wave_k == 1 || c_.wave_k == 2) &&
                                       c_.wave_m > 0 && (c_.wave_m & (c_.wave_m - 1)) == 0;
            if (!warps_in_turn) wave_layout();
            thread_count();
            blocks_per_cu();
            direct_mma();
            runtime_filter();
            channel_pad();
            cluster();
            pixels_on_n();
            return std::move(reasons_);
        }
        if (c_.pipeline == Pipeline::DirectWgmma) {
            // wgmma straight from a staged band: its own tile meaning (row pixels x channels x C).
            pipeline_hardware();
            thread_count();
            blocks_per_cu();
            direct_wgmma();
            runtime_filter();
            channel_pad();
            cluster();
            pixels_on_n();
            return std::move(reasons_);
        }
        spatial_dims();
        tile_shape();
        variant_pipeline();
        pipeline_hardware();
        scheduler_pipeline();
        double_buffer();
        wave_groups();
        wave_layout();
        warp_tile();
        warp_coverage();
        thread_count();
        vector_width();
        shared_memory();
        registers();
        group_merge();
        blocks_per_cu();
        split_k();
        epilogue();
        wgmma();
        runtime_filter();
        channel_pad();
        cluster();
        pixels_on_n();
        return std::move(reasons_);
    }

private:
    void cull(Rule rule, std::string message) { reasons_.push_back({rule, std::move(message)}); }
    std::string pipeline() const { return std::string(to_string(c_.pipeline)); }

    void spatial_dims() {
        if (c_.ndim_spatial != 2 && c_.ndim_spatial != 3)
            cull(Rule::SpatialDims,
                 "ndim_spatial " + std::to_string(c_.ndim_spatial) + " is not 2 or 3");
    }

    void variant_pipeline() {
        if (c_.variant == Variant::Forward) return;
        // bwd_data on the wgmma pipeline is its forward kernel on the view of dOut
        // (codegen/forward_view.h), bwd_weight its MN-major variant; the wgmma rule says the
        // rest.
        if (uses_wgmma(c_)) return;
        static constexpr std::array<Pipeline, 3> backward = {Pipeline::BasicV1, Pipeline::CompV3,
                                                             Pipeline::Mem};
        if (std::find(backward.begin(), backward.end(), c_.pipeline) == backward.end())
            cull(Rule::VariantPipeline,
                 std::string(to_string(c_.variant)) +
                     " kernels exist for basic_v1, compv3 and mem only, not " + pipeline());
    }

    void pipeline_hardware() {
        auto it = s_.pipeline_features.find(c_.pipeline);
        if (it == s_.pipeline_features.end()) return;
        for (const auto& feature : it->second)
            if (!a_.has_feature(feature))
                cull(Rule::PipelineHardware,
                     pipeline() + " needs " + feature + ", which " + a_.name + " lacks");
    }

    void scheduler_pipeline() {
        // The wgmma pipeline reads interwave as ping-pong consumers (the wgmma rule).
        if (c_.scheduler == Scheduler::Interwave && c_.pipeline != Pipeline::BasicV1 &&
            c_.pipeline != Pipeline::Mem && !uses_wgmma(c_))
            cull(Rule::SchedulerPipeline,
                 "interwave scheduling pairs only with basic_v1, mem and the wgmma pipeline, not " +
                     pipeline());
    }

    void double_buffer() {
        if (requires_double_buffer(c_.pipeline) && !c_.double_smem_buffer)
            cull(Rule::DoubleBuffer,
                 pipeline() +
                     " ping-pongs over two shared buffers and needs double_smem_buffer (dsb)");
        if (c_.double_smem_buffer && !allows_double_buffer(c_.pipeline))
            cull(Rule::DoubleBuffer,
                 pipeline() + (c_.pipeline == Pipeline::CompV3
                                   ? " uses one shared buffer; with a second one it would be compv4"
                                   : " has its own ring of stages; double_smem_buffer (dsb) would "
                                     "be ignored"));
    }

    void wave_groups() {
        const int wanted = c_.pipeline == Pipeline::CompV5 ? 2 : 1;
        if (c_.num_wave_groups != wanted)
            cull(Rule::WaveGroups, pipeline() + " runs " + std::to_string(wanted) +
                                       " warp group(s), not num_wave_groups " +
                                       std::to_string(c_.num_wave_groups));
        // compv5 splits the block's warps into two halves along M or N.
        if (c_.pipeline == Pipeline::CompV5 && c_.wave_m % 2 != 0 && c_.wave_n % 2 != 0)
            cull(Rule::WaveGroups,
                 "compv5 splits the warps into two groups and needs wave_m or wave_n even, not " +
                     triple_text(c_.wave_m, c_.wave_n, c_.wave_k));
    }

    void wave_layout() {
        const Triple w{c_.wave_m, c_.wave_n, c_.wave_k};
        if (!contains(a_.wave_layouts, w))
            cull(Rule::WaveLayout, "wave layout " + triple_text(w[0], w[1], w[2]) +
                                       " is not legal on " + a_.name +
                                       " (legal: " + list_triples(a_.wave_layouts) + ")");
    }

    void warp_tile() {
        auto it = a_.warp_tiles.find(c_.dtype);
        if (it == a_.warp_tiles.end()) {
            cull(Rule::WarpTile,
                 a_.name + " has no matrix path for " + std::string(to_string(c_.dtype)));
            return;
        }
        const Triple t{c_.warp_tile_m, c_.warp_tile_n, c_.warp_tile_k};
        if (!contains(it->second, t))
            cull(Rule::WarpTile, "warp tile " + triple_text(t[0], t[1], t[2]) +
                                     " is not legal for " + std::string(to_string(c_.dtype)) +
                                     " on " + a_.name + " (legal: " + list_triples(it->second) +
                                     ")");
    }

    void tile_shape() {
        // A forward tile_n may be any multiple of 16 up to 256 (a 144-channel layer runs in one
        // 144-wide tile, not a 128-wide one and a 128-wide one computing 16 columns;
        // warp_coverage checks the warps), a warpgroup tile's N any wgmma N built, three
        // consumer warpgroups' tile 192 rows (admits_non_pow2).
        for (auto [name, v] : {std::pair{"tile_m", c_.tile_m},
                               {"tile_n", c_.tile_n},
                               {"tile_k", c_.tile_k},
                               {"wave_m", c_.wave_m},
                               {"wave_n", c_.wave_n}})
            if (!is_pow2_in(v, 1, 1 << 16) && !admits_non_pow2(c_, name))
                cull(Rule::TileShape, std::string(name) + " " + std::to_string(v) +
                                          (std::string_view(name) == "tile_n"
                                               ? " is neither a power of two nor (forward) a "
                                                 "multiple of 16 up to 256"
                                               : " is not a power of two"));
        if (c_.wave_k != 1)
            cull(Rule::TileShape, "wave_k " + std::to_string(c_.wave_k) +
                                      ": the K loop is not split across warps (wave_k 1)");
        if ((long long)c_.wave_m * c_.wave_n > k_max_warps)
            cull(Rule::TileShape, "wave layout " + triple_text(c_.wave_m, c_.wave_n, c_.wave_k) +
                                      " has more than " + std::to_string(k_max_warps) + " warps");
    }

    void warp_coverage() {
        // tile_dim over wave_wdim x warp_tile_wdim: the warps tile the instruction's M and N,
        // which pixels_on_n lays over the tile's channels (tile_n) and pixels (tile_m).
        auto check = [&](const char* dim, int tile, const char* wdim, int waves, int warp_tile) {
            if (waves <= 0 || warp_tile <= 0 || tile % ((long long)waves * warp_tile) != 0)
                cull(Rule::WarpCoverage,
                     std::string("tile_") + dim + " " + std::to_string(tile) +
                         " is not a multiple of wave_" + wdim + " x warp_tile_" + wdim + " = " +
                         std::to_string(waves) + " x " + std::to_string(warp_tile));
        };
        const bool pn = c_.pixels_on_n && is_warpgroup_tile(c_);
        check(pn ? "n" : "m", pn ? c_.tile_n : c_.tile_m, "m", c_.wave_m, c_.warp_tile_m);
        check(pn ? "m" : "n", pn ? c_.tile_m : c_.tile_n, "n", c_.wave_n, c_.warp_tile_n);
        check("k", c_.tile_k, "k", c_.wave_k, c_.warp_tile_k);
    }

    void thread_count() {
        const int threads = block_threads(c_, a_);
        if (threads > a_.max_threads_per_block)
            cull(Rule::ThreadCount, std::to_string(threads) + " threads per block exceed " +
                                        a_.name + "'s " + std::to_string(a_.max_threads_per_block));
    }

    void vector_width() {
        const int max_elems = 16 / element_bytes(c_.dtype);
        auto check = [&](const char* which, int v, int along, const char* along_name) {
            if (!is_pow2_in(v, 1, max_elems)) {
                cull(Rule::VectorWidth,
                     std::string("vector_size_") + which + " " + std::to_string(v) +
                         " is not a power of two from 1 to " + std::to_string(max_elems) +
                         " (16 bytes of " + std::string(to_string(c_.dtype)) + ")");
            } else if (along % v != 0) {
                cull(Rule::VectorWidth, std::string("vector_size_") + which + " " +
                                            std::to_string(v) + " does not divide " + along_name +
                                            " " + std::to_string(along));
            }
        };
        // MN-major operands (launch_plan.h) load their vectors along tile_m / tile_n.
        if (a_is_mn_major(c_))
            check("a", c_.vector_size_a, c_.tile_m, "tile_m");
        else
            check("a", c_.vector_size_a, c_.tile_k, "tile_k");
        if (b_is_mn_major(c_))
            check("b", c_.vector_size_b, c_.tile_n, "tile_n");
        else
            check("b", c_.vector_size_b, c_.tile_k, "tile_k");
        check("c", c_.vector_size_c, c_.tile_n, "tile_n");
    }

    void shared_memory() {
        const std::size_t bytes = shared_bytes(c_, a_.warp_size);
        if (bytes > std::size_t(a_.shared_memory_per_block_optin))
            cull(Rule::SharedMemory,
                 pipeline() + (c_.double_smem_buffer ? " with two buffers" : "") + " needs " +
                     std::to_string(bytes) + " bytes of shared memory, over " + a_.name + "'s " +
                     std::to_string(a_.shared_memory_per_block_optin) + " per block");
    }

    void registers() {
        const int threads = block_threads(c_, a_);
        if (threads <= 0) return;
        // Each warp group holds a full set of accumulators over its share of the threads.
        // wgmma: only the consumer warps (the wave layout) hold accumulators; the producer
        // warpgroup loads.
        const bool wg = uses_wgmma(c_);
        // Ping-pong: each consumer warpgroup (4 warps) holds a whole tile.
        const long long tile_warps = wgmma_pingpong(c_) ? 4 : c_.wave_m * c_.wave_n;
        const long long acc = wg ? (long long)c_.tile_m * c_.tile_n / (tile_warps * a_.warp_size)
                                 : (long long)c_.tile_m * c_.tile_n * c_.num_wave_groups / threads;
        const int most = wg && c_.wave_m * c_.wave_n == 8 ? k_max_wgmma_two_consumer_accumulators
                                                          : k_max_accumulator_registers;
        if (acc > most)
            cull(Rule::Registers, "each thread would hold " + std::to_string(acc) +
                                      " fp32 accumulators, over " + std::to_string(most));
        const long long loaders =
            wg ? 128 : std::max<long long>(1, threads / std::max(1, c_.num_wave_groups));
        auto loads = [&](const char* which, int rows, int vec) {
            const long long n = (long long)rows * c_.tile_k / std::max(vec, 1) / loaders;
            if (n > k_max_loads_per_thread)
                cull(Rule::Registers, std::string("each loader thread would issue ") +
                                          std::to_string(n) + " " + which +
                                          " loads per K tile, over " +
                                          std::to_string(k_max_loads_per_thread));
        };
        loads("A", c_.tile_m, c_.vector_size_a);
        loads("B", c_.tile_n, c_.vector_size_b);
    }

    void group_merge() {
        if (!is_pow2_in(c_.num_groups_to_merge, 1, 8))
            cull(Rule::GroupMerge, "num_groups_to_merge " + std::to_string(c_.num_groups_to_merge) +
                                       " is not 1, 2, 4 or 8");
        // A bwd_weight block owns one group's dW tile; merged groups would be a block-diagonal
        // product computing gm times the useful work.
        if (c_.variant == Variant::BwdWeight && c_.num_groups_to_merge != 1)
            cull(Rule::GroupMerge,
                 "bwd_weight computes one group per block, not num_groups_to_merge " +
                     std::to_string(c_.num_groups_to_merge));
    }

    void blocks_per_cu() {
        const int threads = block_threads(c_, a_);
        if (c_.block_per_cu < 1 || (long long)threads * c_.block_per_cu > k_max_threads_per_cu) {
            cull(Rule::BlocksPerCu, "block_per_cu " + std::to_string(c_.block_per_cu) + " x " +
                                        std::to_string(threads) + " threads exceeds " +
                                        std::to_string(k_max_threads_per_cu) + " resident threads");
            return;
        }
        const long long regs =
            a_.registers_per_block / std::max<long long>(1, (long long)threads * c_.block_per_cu);
        // Direct kernels hold no GEMM fragments: their sums and windows fit in fewer (not the
        // tensor-core entries: 64 sums and a row's fragments in flight take 120-150).
        const int floor = c_.pipeline == Pipeline::Direct && !is_direct_tc(c_)
                              ? k_min_registers_per_thread_direct
                              : k_min_registers_per_thread;
        if (c_.block_per_cu > 1 && regs < floor)
            cull(Rule::BlocksPerCu, "block_per_cu " + std::to_string(c_.block_per_cu) + " leaves " +
                                        std::to_string(regs) + " registers per thread, under " +
                                        std::to_string(floor));
    }

    void split_k() {
        if (c_.split_k < 1) {
            cull(Rule::SplitK, "split_k must be at least 1");
            return;
        }
        if (c_.variant == Variant::BwdData) {
            if (c_.split_k != 1 || c_.split_k_mode != SplitKMode::None)
                cull(Rule::SplitK, "split-K exists for bwd_weight (its GEMM K is N*Ho*Wo) and "
                                   "the forward GEMM pipelines, not bwd_data");
            return;
        }
        if (c_.variant == Variant::Forward &&
            (c_.split_k > 1 || c_.split_k_mode != SplitKMode::None)) {
            // Forward splits the filter reduction Z*Y*X*C/G; the blocks of a tile meet only in
            // fp32 atomics (no per-split slices: the output is usually far larger than dW).
            if (c_.split_k_mode == SplitKMode::TwoStage)
                cull(Rule::SplitK, "forward split-K adds its splits atomically (split_k_mode "
                                   "atomic), not through 2stage slices");
            if (c_.split_image)
                cull(Rule::SplitK, "forward split-K with split_image: the fp32 sums are one "
                                   "workspace with 32-bit offsets");
        }
        if (c_.split_k > 1 && c_.split_k_mode == SplitKMode::None)
            cull(Rule::SplitK, "split_k " + std::to_string(c_.split_k) +
                                   " needs a reduction: split_k_mode atomic or 2stage");
        if (c_.split_k == 1 && c_.split_k_mode == SplitKMode::Atomic)
            cull(Rule::SplitK, "atomic reduction with split_k 1 only adds a zeroing pass");
    }

    void epilogue() {
        // cshufflebuf gives the C tile a buffer beside the wgmma ring so that the grid can be
        // persistent; the engine's cshuffle reuses the pipeline's space after the main loop.
        if (c_.epilogue == Epilogue::CShuffleBuf && !uses_wgmma(c_))
            cull(Rule::Epilogue,
                 "the cshufflebuf epilogue (a C buffer beside the operand ring, "
                 "persistent grid) exists for the sm_90a wgmma pipeline only, not " +
                     pipeline() + " with warp tile " +
                     triple_text(c_.warp_tile_m, c_.warp_tile_n, c_.warp_tile_k));
        // Without the shared-memory shuffle each thread stores the runs of adjacent columns its
        // accumulator fragment holds: 2 for mma.sync, 1 for MFMA, warp_tile_n / 8 for SIMT.
        if (c_.epilogue != Epilogue::Direct) return;
        const int run = !uses_mma(c_)        ? std::max(1, c_.warp_tile_n / 8)
                        : a_.vendor == "amd" ? 1
                                             : 2;
        if (c_.vector_size_c > run)
            cull(Rule::Epilogue, "the direct epilogue stores runs of " + std::to_string(run) +
                                     " adjacent columns here, so vector_size_c " +
                                     std::to_string(c_.vector_size_c) +
                                     " would be a name without effect (cshuffle can)");
    }

    // The direct pipeline (kernels/gconv_direct.h): what its tile means, and the GEMM-only
    // knobs it must leave at their defaults (otherwise two names would be one kernel).
    // tile_m output pixels per block (rows of the image tile), tile_n channels (whole units),
    // tile_k the C/G the kernel is compiled for; warp tile [16 * fragments, unit, 16].
    void direct_mma() {
        auto cull_if = [&](bool bad, const std::string& what) {
            if (bad) cull(Rule::DirectMma, what);
        };
        const bool weight = c_.variant == Variant::BwdWeight;
        cull_if(c_.dtype == DataType::FP32,
                "data_type fp32: direct_mma multiplies bf16 / fp16 with mma.sync m16n8k16");
        if (weight)
            cull_if(c_.wave_k != 1, "wave layout " + triple_text(c_.wave_m, c_.wave_n, c_.wave_k) +
                                        ": bwd_weight direct_mma has wave_m warps over (unit, "
                                        "fragment) pairs x wave_n warps over the tile's pixels");
        else
            cull_if(c_.wave_n != 1 || (c_.wave_k != 1 && c_.wave_k != 2) ||
                        (c_.wave_k == 2 && c_.wave_m > 8),
                    "wave layout " + triple_text(c_.wave_m, c_.wave_n, c_.wave_k) +
                        ": direct_mma warps take items in turn (count them in wave_m); wave_k 2 "
                        "splits each item's taps between two warps, a named barrier per pair "
                        "(wave_m at most 8)");
        cull_if(c_.scheduler != Scheduler::Intrawave, "scheduler " +
                                                          std::string(to_string(c_.scheduler)) +
                                                          ": direct_mma warps run on their own");
        cull_if(c_.epilogue != Epilogue::Direct,
                "epilogue " + std::string(to_string(c_.epilogue)) +
                    ": direct_mma stores from registers (epilogue direct)");
        gemm_knobs_absent(Rule::DirectMma, "direct_mma",
                          " (a block holds whole groups; offsets are 32-bit)");
        if (weight)
            cull_if(c_.split_k_mode != SplitKMode::Atomic,
                    "split_k_mode " + std::string(to_string(c_.split_k_mode)) +
                        ": bwd_weight direct_mma blocks add their dW slices atomically "
                        "(split_k = slices of the pixel reduction, split_k_mode atomic)");
        else
            cull_if(c_.split_k != 1 || c_.split_k_mode != SplitKMode::None,
                    "split_k: " + std::string(to_string(c_.variant)) + " has no split-K");
        const int width = 16 / element_bytes(c_.dtype);
        cull_if(c_.vector_size_a != width || c_.vector_size_b != width || c_.vector_size_c != width,
                "vector sizes " +
                    triple_text(c_.vector_size_a, c_.vector_size_b, c_.vector_size_c) +
                    ": direct_mma copies 16-byte vectors (" + std::to_string(width) + " elements)");
        const int cpg = c_.tile_k;
        const bool cpg_ok =
            cpg == 1 || cpg == 2 || cpg == 4 || (cpg >= 8 && cpg <= 64 && cpg % 8 == 0);
        if (!cpg_ok) {
            cull(Rule::DirectMma,
                 "tile_k " + std::to_string(cpg) +
                     " (the C/G the kernel is built for) is not 1, 2, 4 or a multiple of 8 up to "
                     "64: an ldmatrix row is 8 channels of one tap");
            return;
        }
        const int unit = direct_mma_unit_channels(c_);
        cull_if(c_.tile_n < unit || c_.tile_n % unit != 0 || c_.tile_n > 256,
                "tile_n " + std::to_string(c_.tile_n) + " is not a multiple of the " +
                    std::to_string(unit) + "-channel unit up to 256 channels");
        cull_if(c_.tile_m < 16 || c_.tile_m > 1024,
                "tile_m " + std::to_string(c_.tile_m) +
                    " output pixels per block is outside [16, 1024]");
        if (weight) {
            // bwd_weight: a warp owns warp_tile_m / 16 (unit, m16 fragment) pairs for the whole
            // block, each with unit / 8 n8 accumulators of 4 fp32 (at most 128 registers).
            const int pairs = c_.warp_tile_m / 16;
            cull_if(c_.warp_tile_m < 16 || c_.warp_tile_m % 16 != 0 || pairs * (unit / 8) > 32,
                    "warp_tile_m " + std::to_string(c_.warp_tile_m) +
                        " is not 16 x pairs with pairs x " + std::to_string(unit / 8) +
                        " n8 accumulators <= 32 (128 fp32 registers)");
        } else {
            cull_if(c_.warp_tile_m != 16 && c_.warp_tile_m != 32 && c_.warp_tile_m != 64,
                    "warp_tile_m " + std::to_string(c_.warp_tile_m) +
                        " is not 1, 2 or 4 m16 fragments (16, 32, 64)");
        }
        cull_if(c_.warp_tile_n != direct_mma_warp_tile_n(cpg) || c_.warp_tile_k != 16,
                "warp tile " + triple_text(c_.warp_tile_m, c_.warp_tile_n, c_.warp_tile_k) +
                    ": n is the unit's " + std::to_string(direct_mma_warp_tile_n(cpg)) +
                    " output channels and k one k16 step");
        // C/G <= 64 and 4 m16 fragments cap the accumulators at 4 x 8 x 4 = 128 registers
        // (k_max_accumulator_registers).
    }

    // The GEMM knobs a direct pipeline does not have, left at their defaults (otherwise two
    // names would be one kernel); `why` adds the pipeline's reason.
    void gemm_knobs_absent(Rule rule, const std::string& pipe, const std::string& why) {
        const KernelConfig d;
        if (c_.num_wave_groups != 1 || c_.num_groups_to_merge != d.num_groups_to_merge ||
            c_.split_image)
            cull(rule, "wave groups / num_groups_to_merge / split_image: GEMM knobs " + pipe +
                           " does not have" + why);
        if (!c_.pad_m || !c_.pad_n || !c_.pad_k)
            cull(rule, "pad_m/n/k false: " + pipe + " always guards its tails");
    }

    // The wgmma direct pipeline (kernels/gconv_direct_wgmma.h, codegen/direct_wgmma_plan.h): its
    // tile meaning, and the knobs it must leave at their defaults (otherwise two names would be
    // one kernel).
    void direct_wgmma() {
        auto cull_if = [&](bool bad, const std::string& what) {
            if (bad) cull(Rule::DirectWgmma, what);
        };
        cull_if(c_.variant != Variant::Forward, "variant " + std::string(to_string(c_.variant)) +
                                                    ": direct_wgmma is a forward kernel");
        cull_if(c_.ndim_spatial != 2, "ndim_spatial " + std::to_string(c_.ndim_spatial) +
                                          ": direct_wgmma bands are 2D rows");
        cull_if(c_.dtype == DataType::FP32,
                "data_type fp32: direct_wgmma multiplies bf16 / fp16 with wgmma m64nNk16");
        const int consumers = c_.wave_m / 4;
        cull_if(c_.wave_n != 1 || c_.wave_k != 1 || c_.wave_m % 4 != 0 || consumers < 1 ||
                    consumers > k_direct_wgmma_max_consumers,
                "wave layout " + triple_text(c_.wave_m, c_.wave_n, c_.wave_k) +
                    ": direct_wgmma runs 1 or 2 consumer warpgroups taking a band's rows in turn "
                    "([4, 1, 1] or [8, 1, 1])");
        cull_if(c_.scheduler != Scheduler::Intrawave,
                "scheduler " + std::string(to_string(c_.scheduler)) +
                    ": direct_wgmma warpgroups run on their own");
        cull_if(c_.epilogue != Epilogue::CShuffleBuf,
                "epilogue " + std::string(to_string(c_.epilogue)) +
                    ": direct_wgmma stores each row through a buffer of its own (cshufflebuf)");
        cull_if(!c_.double_smem_buffer,
                "double_smem_buffer false: direct_wgmma copies the next band while it multiplies "
                "the current one (dsb)");
        gemm_knobs_absent(Rule::DirectWgmma, "direct_wgmma", "");
        cull_if(c_.split_k != 1 || c_.split_k_mode != SplitKMode::None,
                "split_k: direct_wgmma has no split-K");
        cull_if(c_.block_per_cu != 1,
                "block_per_cu " + std::to_string(c_.block_per_cu) +
                    ": direct_wgmma sizes its bands to one block per multiprocessor");
        const int width = 16 / element_bytes(c_.dtype);
        cull_if(
            c_.vector_size_a != width || c_.vector_size_b != width || c_.vector_size_c != width,
            "vector sizes " + triple_text(c_.vector_size_a, c_.vector_size_b, c_.vector_size_c) +
                ": direct_wgmma copies 16-byte vectors (" + std::to_string(width) + " elements)");
        cull_if(c_.tile_k != 16 && c_.tile_k != 32 && c_.tile_k != 48 && c_.tile_k != 64,
                "tile_k " + std::to_string(c_.tile_k) +
                    " (the C the kernel is built for) is not 16, 32, 48 or 64: whole k16 steps, "
                    "the filter slice beside two bands");
        cull_if(c_.tile_n != 64 && c_.tile_n != 128,
                "tile_n " + std::to_string(c_.tile_n) +
                    " is not 64 or 128: one or two m64 blocks of output channels per row");
        cull_if(c_.tile_m < 64 || c_.tile_m > 256 || c_.tile_m % 8 != 0,
                "tile_m " + std::to_string(c_.tile_m) +
                    " is not a wgmma N from 64 to 256 in 8s (the pixels of a row tile)");
        cull_if(c_.tile_m / 2 * (c_.tile_n / 64) > k_direct_wgmma_max_accumulators,
                "tile " + std::to_string(c_.tile_m) + " x " + std::to_string(c_.tile_n) + ": " +
                    std::to_string(c_.tile_m / 2 * (c_.tile_n / 64)) +
                    " accumulators a thread, over " +
                    std::to_string(k_direct_wgmma_max_accumulators));
        cull_if(c_.warp_tile_m != 16 || c_.warp_tile_n != c_.tile_m || c_.warp_tile_k != 16,
                "warp tile " + triple_text(c_.warp_tile_m, c_.warp_tile_n, c_.warp_tile_k) +
                    ": a warp's share of wgmma m64nNk16 over the row tile, [16, tile_m, 16]");
    }

    void direct() {
        auto knob = [&](bool bad, const std::string& what) {
            if (bad) cull(Rule::Direct, what + ": a GEMM knob the direct pipeline does not have");
        };
        const KernelConfig d;
        const Triple wt = direct_warp_tile(c_.dtype);
        knob(c_.wave_n != 1, "wave_n " + std::to_string(c_.wave_n) +
                                 " (direct kernels count warps in wave_m only; use wave_n 1)");
        knob(c_.scheduler != Scheduler::Intrawave,
             "scheduler " + std::string(to_string(c_.scheduler)) + " (only intrawave)");
        knob(c_.epilogue != d.epilogue, "epilogue " + std::string(to_string(c_.epilogue)) +
                                            " (direct kernels store from registers; leave "
                                            "epilogue at cshuffle)");
        const bool tc = is_direct_tc(c_);
        knob(!tc && Triple{c_.warp_tile_m, c_.warp_tile_n, c_.warp_tile_k} != wt,
             "warp tile " + triple_text(c_.warp_tile_m, c_.warp_tile_n, c_.warp_tile_k) +
                 " (leave it at " + triple_text(wt[0], wt[1], wt[2]) +
                 ", or 16x8x16 for the tensor-core K x K entries)");
        // dsb is the staged K x K entries (input tiles through two shared-memory buffers).
        if (c_.double_smem_buffer && (c_.variant == Variant::BwdWeight || c_.ndim_spatial != 2))
            cull(Rule::Direct, "double_smem_buffer: the staged entries exist for 2D forward and "
                               "bwd_data only");
        knob(c_.num_wave_groups != 1, "num_wave_groups " + std::to_string(c_.num_wave_groups));
        knob(c_.num_groups_to_merge != 1, "num_groups_to_merge " +
                                              std::to_string(c_.num_groups_to_merge) +
                                              " (vectors run across groups already)");
        knob(c_.split_image, "split_image (direct kernels use 32-bit offsets)");
        knob(!c_.pad_m || !c_.pad_n || !c_.pad_k,
             "pad_m/n/k false (direct kernels always guard their tails)");

        if (tc) {
            direct_tc();
            return;
        }
        const int vec = c_.vector_size_a;
        const int max_elems = 16 / element_bytes(c_.dtype);
        if (!is_pow2_in(vec, 1, max_elems)) {
            cull(Rule::Direct, "vector_size_a " + std::to_string(vec) +
                                   " is not a power of two from 1 to " + std::to_string(max_elems) +
                                   " (16 bytes of " + std::string(to_string(c_.dtype)) + ")");
            return;
        }
        if (c_.vector_size_b != vec || c_.vector_size_c != vec)
            cull(Rule::Direct, "vector_size_b / vector_size_c must equal vector_size_a " +
                                   std::to_string(vec) +
                                   ": one channel vector serves every tensor");
        const int threads = block_threads(c_, a_);
        const int lanes = direct_channel_lanes(c_);
        if (c_.tile_n % vec != 0 || lanes > threads || threads % lanes != 0) {
            cull(Rule::Direct, "tile_n " + std::to_string(c_.tile_n) + " / vector_size_a " +
                                   std::to_string(vec) + " = " + std::to_string(lanes) +
                                   " channel lanes must divide the " + std::to_string(threads) +
                                   " threads");
            return;
        }
        const long long want = (long long)(threads / lanes) * c_.tile_k;
        if (c_.variant == Variant::BwdWeight && c_.tile_m != want)
            cull(Rule::Direct, "tile_m " + std::to_string(c_.tile_m) + " must be pixel lanes x " +
                                   "tile_k = " + std::to_string(threads / lanes) + " x " +
                                   std::to_string(c_.tile_k) + " = " + std::to_string(want));
        // forward / bwd_data: a pixel lane computes tile_k pixels of 1, 2 or 4 rows.
        const int rows = direct_rows(c_, a_.warp_size);
        if (c_.variant != Variant::BwdWeight && rows == 0)
            cull(Rule::Direct, "tile_m " + std::to_string(c_.tile_m) + " must be pixel lanes x " +
                                   "tile_k x rows = " + std::to_string(threads / lanes) + " x " +
                                   std::to_string(c_.tile_k) + " x 1, 2 or 4");
        // forward / bwd_data keep rows x tile_k x vector fp32 accumulators per thread; a staged
        // kernel one run of tile_k rows at a time (its rows set the tile height instead).
        const int summed_rows = c_.double_smem_buffer ? 1 : std::max(rows, 1);
        if (c_.variant != Variant::BwdWeight && summed_rows * c_.tile_k * vec > 64)
            cull(Rule::Direct, std::to_string(summed_rows) + " row(s) x tile_k " +
                                   std::to_string(c_.tile_k) + " x vector " + std::to_string(vec) +
                                   " fp32 accumulators per thread exceed 64");
        if (c_.variant == Variant::BwdWeight) {
            if (c_.split_k != 1 || c_.split_k_mode != SplitKMode::Atomic)
                cull(Rule::Direct, "bwd_weight reduces tile_m pixels per block and adds them "
                                   "atomically: split_k 1 with split_k_mode atomic, not split_k " +
                                       std::to_string(c_.split_k) + " " +
                                       std::string(to_string(c_.split_k_mode)));
        } else if (c_.split_k != 1 || c_.split_k_mode != SplitKMode::None) {
            cull(Rule::Direct, "split-K exists only for bwd_weight");
        }
    }

    // Only the tensor-core K x K entries of forward and bwd_data exist in both forms; every other
    // kernel has one (GEMM and direct_mma: any filter; the FMA K x K entries unroll their taps;
    // the tensor-core bwd_weight entries always read the size at run time).
    void runtime_filter() {
        if (!c_.runtime_filter) return;
        if (!is_direct_tc(c_))
            cull(Rule::RuntimeFilter, "true: only the tensor-core direct K x K entries (pipeline "
                                      "direct, warp tile 16x8x16) come with the filter size "
                                      "compiled in or read at run time; every other kernel has "
                                      "one form");
        else if (c_.variant == Variant::BwdWeight)
            cull(Rule::RuntimeFilter, "true: the tensor-core bwd_weight entries always read the "
                                      "filter size at run time (leave runtime_filter false)");
    }

    // The channel-padded copy exists for the forward GEMM on mma.sync (its main step reads the
    // workspace through ConvParams; wgmma's tensor maps, the direct kernels' own tiles and
    // split-K's workspace are not set up for it).
    void channel_pad() {
        if (!c_.channel_pad) return;
        if (c_.variant != Variant::Forward)
            cull(Rule::ChannelPad, "true: only forward kernels copy a channel-padded input");
        else if (c_.pipeline == Pipeline::Direct || c_.pipeline == Pipeline::DirectMma)
            cull(Rule::ChannelPad, "true: the direct pipelines read C/G in their own units; only "
                                   "the GEMM pipelines run on a channel-padded copy");
        else if (uses_wgmma(c_))
            cull(Rule::ChannelPad, "true: the wgmma pipeline's tensor maps read the tensors as "
                                   "stored; only mma.sync GEMMs run on a channel-padded copy");
        else if (c_.split_k != 1)
            cull(Rule::ChannelPad, "true: split-K's workspace holds its sums; a channel-padded "
                                   "copy takes split_k 1");
        else if (c_.vector_size_a < 2)
            cull(Rule::ChannelPad, "true: vector_size_a 1 divides every C/G, the copy would pad "
                                   "nothing");
    }

    // A cluster of two or four blocks along N shares each A tile by multicast: the persistent
    // forward wgmma kernels (their tile walk groups the blocks' tiles; gconv_wgmma.h), which
    // load through the tensor maps (the multicast is a tensor copy). With the pixels on N the
    // shared tile is the pixels' too (the A copy lands where it always does).
    void cluster() {
        cluster_along_k();
        if (c_.cluster_n == 1) return;
        const std::string cn = std::to_string(c_.cluster_n) + ": ";
        if (c_.cluster_n != 2 && c_.cluster_n != 4)
            cull(Rule::Cluster, cn + "clusters of 1, 2 or 4 blocks");
        else if (!uses_wgmma(c_))
            cull(Rule::Cluster, cn + "only the wgmma pipeline (sm_90a) multicasts its A tiles");
        else if (c_.variant != Variant::Forward)
            cull(Rule::Cluster, cn + "forward only (bwd_data's view and bwd_weight's MN-major "
                                     "operands walk their tiles otherwise)");
        else if (c_.epilogue == Epilogue::CShuffle)
            cull(Rule::Cluster, cn + "the cshuffle epilogue stages C in the ring, one tile per "
                                     "block; a cluster walks tile groups on the persistent grid "
                                     "(direct or cshufflebuf)");
        else if (c_.scheduler == Scheduler::Interwave)
            cull(Rule::Cluster, cn + "ping-pong consumers take alternate tiles; a cluster's blocks "
                                     "take one tile each (intrawave)");
        else if (c_.split_k != 1 || c_.num_groups_to_merge != 1 || c_.split_image)
            cull(Rule::Cluster, cn + "split-K, merged groups and split images are not walked in "
                                     "tile groups");
        else if (!c_.pad_n)
            cull(Rule::Cluster, cn + "a group's last N tiles may lie past N and store nothing, "
                                     "which takes the N tail handling (pad_n)");
    }

    // A cluster along K: its blocks reduce shares of one output tile's K tiles, stage their
    // partial sums in the drained ring and sum them through distributed shared memory, each
    // block storing tile_m / cluster_k rows. Built for the one-tile-per-block cshuffle walk of
    // the forward wgmma kernels, which load through the tensor maps (their K tiles are what the
    // blocks split).
    void cluster_along_k() {
        if (c_.cluster_k == 1) return;
        const std::string ck = "cluster_k " + std::to_string(c_.cluster_k) + ": ";
        auto no = [&](const std::string& why) { cull(Rule::Cluster, ck + why); };
        if (c_.cluster_k < 1 || c_.cluster_k > 8) {
            no("clusters of 1 to 8 blocks (the portable cluster size)");
            return;
        }
        if (!uses_wgmma(c_)) {
            no("only the wgmma pipeline (sm_90a) sums partial tiles across a cluster");
            return;
        }
        if (c_.variant != Variant::Forward)
            no("built for forward only, not " + std::string(to_string(c_.variant)));
        if (c_.epilogue != Epilogue::CShuffle)
            no("the blocks of a cluster reduce one tile and stage it in the drained ring: the "
               "cshuffle epilogue (one tile per block), not " +
               std::string(to_string(c_.epilogue)));
        if (c_.cluster_n != 1) no("one cluster shape at a time (cluster_n 1)");
        if (c_.split_k != 1) no("split_k 1 (the cluster is the K split)");
        if (c_.num_groups_to_merge != 1) no("one group per block (num_groups_to_merge 1)");
        if (c_.split_image) no("the tensor maps it loads through do not take split images");
        if (c_.tile_m % c_.cluster_k != 0)
            no("each block stores tile_m / cluster_k rows: tile_m " + std::to_string(c_.tile_m) +
               " is not a multiple");
    }

    // The tensor-core K x K entries of the direct pipeline (warp tile 16x8x16,
    // kernels/gconv_direct_tc.h): their own tile meaning (rows of m16 blocks x columns x channels).
    void direct_tc() {
        auto bad = [&](const std::string& what) {
            cull(Rule::Direct, "warp tile 16x8x16 (tensor-core K x K entries): " + what);
        };
        for (const char* feature : {"mma_sync", "ldmatrix"})
            if (!a_.has_feature(feature))
                bad(std::string("needs ") + feature + ", which " + a_.name + " lacks");
        if (element_bytes(c_.dtype) != 2)
            bad("mma.sync multiplies bf16 / fp16, not " + std::string(to_string(c_.dtype)));
        if (c_.ndim_spatial != 2) bad("2D only");
        if (c_.double_smem_buffer)
            bad("one tile per block; double_smem_buffer is the staged entries");
        if (c_.vector_size_a * element_bytes(c_.dtype) != 16 ||
            c_.vector_size_b != c_.vector_size_a || c_.vector_size_c != c_.vector_size_a)
            bad("vectors are 16 bytes (8 channels) for every tensor");
        if (c_.tile_n % 8 != 0)
            bad("tile_n " + std::to_string(c_.tile_n) + " is not whole 8-channel vectors");
        const int rows = 16 * c_.tile_k;
        if (c_.tile_k != 1 && c_.tile_k != 2 && c_.tile_k != 4)
            bad("tile_k " + std::to_string(c_.tile_k) + " counts m16 row blocks: 1, 2 or 4");
        else if (c_.tile_m % rows != 0 || (c_.tile_m / rows) % 16 != 0 ||
                 c_.tile_m / rows > direct_tc::kMaxCols)
            bad("tile_m " + std::to_string(c_.tile_m) + " / " + std::to_string(rows) +
                " rows must be 16, 32, 48 or 64 columns");
        if (c_.variant == Variant::BwdWeight
                ? c_.split_k != 1 || c_.split_k_mode != SplitKMode::Atomic
                : c_.split_k != 1 || c_.split_k_mode != SplitKMode::None)
            bad(c_.variant == Variant::BwdWeight
                    ? "bwd_weight blocks add their sums atomically: split_k 1 with atomic"
                    : "split-K exists only for bwd_weight");
    }

    // compv5 with a warpgroup warp tile on an arch with wgmma (sm_90a) is the warp-specialised
    // wgmma pipeline of core/kernels/gconv_wgmma.h; warpgroup warp tiles exist only there.
    void wgmma() {
        const bool has = a_.has_feature("wgmma");
        const bool tile = is_warpgroup_tile(c_);
        if (!has) return; // warpgroup tiles are absent from the warp_tile lists elsewhere
        if (tile && c_.pipeline != Pipeline::CompV5)
            cull(Rule::Wgmma,
                 "warp tile " + triple_text(c_.warp_tile_m, c_.warp_tile_n, c_.warp_tile_k) +
                     " is a warpgroup's wgmma share and runs only with compv5, not " + pipeline());
        // compv5 with an mma.sync warp tile stays the two-group compv5 of gconv_gemm.h here.
        if (c_.pipeline != Pipeline::CompV5 || !tile) return;
        // bwd_weight's operands are MN-major (kernels/gconv_wgmma.h): one tile per block,
        // C staged in the drained ring.
        if (c_.variant == Variant::BwdWeight && c_.epilogue != Epilogue::CShuffle)
            cull(Rule::Wgmma, "bwd_weight wgmma kernels compute one tile per block and stage C "
                              "in the ring: the cshuffle epilogue, not " +
                                  std::string(to_string(c_.epilogue)));
        // A consumer warpgroup covers the whole tile_n with one m64nNk16 per 64-row block, or,
        // split in N, half of it: the two warpgroups of [4, 2, 1] each take every 64-row block
        // over their half (a tile of 192 or 256 rows by 208 columns is two m64n104 halves).
        const bool split = wgmma_n_split(c_);
        if (c_.pixels_on_n && (c_.warp_tile_n != c_.tile_m || c_.wave_n != 1))
            cull(Rule::Wgmma, "pixels_on_n: each consumer warpgroup covers the tile's pixels "
                              "with one m64nNk16 (wave_n 1, warp_tile_n == tile_m): got "
                              "warp_tile_n " +
                                  std::to_string(c_.warp_tile_n) + ", tile_m " +
                                  std::to_string(c_.tile_m) + ", wave layout " +
                                  triple_text(c_.wave_m, c_.wave_n, c_.wave_k));
        else if (!c_.pixels_on_n && !split && (c_.warp_tile_n != c_.tile_n || c_.wave_n != 1))
            cull(Rule::Wgmma,
                 "each consumer warpgroup covers the whole tile_n with one m64nNk16 (wave_n 1, "
                 "warp_tile_n == tile_n) or, split in N, half of it (wave layout [4, 2, 1], "
                 "warp_tile_n == tile_n / 2): got warp_tile_n " +
                     std::to_string(c_.warp_tile_n) + ", tile_n " + std::to_string(c_.tile_n) +
                     ", wave layout " + triple_text(c_.wave_m, c_.wave_n, c_.wave_k));
        // N 192 exists for bwd_weight, whose N is C/G x taps: 1152 columns (C/G 128, 3x3) are
        // six 192-wide tiles where 256 leaves half of the fifth empty. Forward has every N in
        // 32-steps from 64: a layer of 160 or 408 channels runs in one 160-wide tile or two
        // 224-wide ones instead of 128-wide tiles whose last computes a few columns; and every
        // 8-step N from 72 to 120, the halves of an N split (408 channels: two 208-wide tiles).
        if (!wgmma_n_built(c_))
            cull(Rule::Wgmma, "warp_tile_n " + std::to_string(c_.warp_tile_n) +
                                  " is not a wgmma N built here (64, 128, 256; forward also 96, "
                                  "160, 192, 224 and 72 ... 120 in 8s, with pixels_on_n 64 ... "
                                  "256 in 8s; bwd_weight also 96 and 192)");
        if (split) {
            if (c_.variant != Variant::Forward)
                cull(Rule::Wgmma, "the N split of two consumer warpgroups is built for forward "
                                  "only, not " +
                                      std::string(to_string(c_.variant)));
            if (c_.scheduler == Scheduler::Interwave)
                cull(Rule::Wgmma, "interwave (ping-pong) gives each consumer warpgroup whole "
                                  "tiles; the N split shares every tile between two: intrawave");
            if (c_.tile_m % 64 != 0 || c_.tile_m > 256)
                cull(Rule::Wgmma, "tile_m " + std::to_string(c_.tile_m) +
                                      " is not 64, 128, 192 or 256 rows: each N-split consumer "
                                      "warpgroup takes every m64 block of the tile (at most the "
                                      "copy engine's 256-row box)");
        } else if (wgmma_pingpong(c_)) {
            // Ping-pong (interwave): two consumer warpgroups on alternate whole tiles.
            if (c_.wave_m != 8)
                cull(Rule::Wgmma, "interwave (ping-pong) alternates two consumer warpgroups: "
                                  "wave_m 8, not " +
                                      std::to_string(c_.wave_m));
            if (c_.tile_m != 64 && c_.tile_m != 128 && c_.tile_m != 256)
                cull(Rule::Wgmma, "tile_m " + std::to_string(c_.tile_m) +
                                      " is not 64, 128 or 256 rows (1, 2 or 4 m64 instructions "
                                      "of one ping-pong warpgroup)");
            if (c_.epilogue == Epilogue::CShuffle)
                cull(Rule::Wgmma, "interwave (ping-pong) needs an epilogue that leaves the ring "
                                  "to the next tile (direct or cshufflebuf); cshuffle stages C "
                                  "in the ring, one tile per block");
        } else if (c_.wave_m != 4 && c_.wave_m != 8 && c_.wave_m != 12)
            cull(Rule::Wgmma, "wave_m " + std::to_string(c_.wave_m) +
                                  " is not 1, 2 or 3 consumer warpgroups (4, 8 or 12 warps)");
        else if (c_.wave_m == 12 && instruction_m(c_) != 192)
            cull(Rule::Wgmma, m_field() + " " + std::to_string(instruction_m(c_)) +
                                  " is not 192: three consumer warpgroups take one m64 block "
                                  "each (a tile_m 384 is over the copy engine's 256-row box)");
        else if (instruction_m(c_) != 64 * (c_.wave_m / 4) &&
                 instruction_m(c_) != 128 * (c_.wave_m / 4))
            cull(Rule::Wgmma, m_field() + " " + std::to_string(instruction_m(c_)) +
                                  " is not 64 or 128 rows per "
                                  "consumer warpgroup (one or two m64 instructions)");
        // 512 threads leave 128 registers a thread, and ptxas checks each wgmma instruction
        // against that bound whatever setmaxnreg gives the consumers' code (m64n208 asks 130:
        // C7602): at most 96 accumulators beside the addresses.
        if (c_.wave_m == 12 && instruction_n(c_) > 192)
            cull(Rule::Wgmma, n_field() + " " + std::to_string(instruction_n(c_)) +
                                  " over 192 with three consumer warpgroups: 512 threads hold "
                                  "at most 128 registers each, 96 of them accumulators");
        if (c_.tile_k != 64 && (c_.tile_k != 32 || c_.variant == Variant::BwdWeight))
            cull(Rule::Wgmma,
                 "tile_k " + std::to_string(c_.tile_k) +
                     (c_.variant == Variant::BwdWeight
                          ? " is not 64: bwd_weight's MN-major tiles are 128-byte swizzled rows"
                          : " is not 64 or 32: a tile row is one 128- or 64-byte swizzled row "
                            "(the 32-byte swizzle is not built)"));
        if (c_.block_per_cu != 1)
            cull(Rule::Wgmma, "block_per_cu " + std::to_string(c_.block_per_cu) +
                                  ": setmaxnreg needs __launch_bounds__(threads, 1)");
    }

    // The tile fields on the instruction's M and N sides, as the messages name them.
    std::string m_field() const { return c_.pixels_on_n ? "tile_n (pixels_on_n)" : "tile_m"; }
    std::string n_field() const { return c_.pixels_on_n ? "tile_m (pixels_on_n)" : "tile_n"; }

    // pixels_on_n swaps the operands of the wgmma consumers of a forward tile: the channel tile
    // is the instruction's A (64-row blocks), the pixel tile its B (N any multiple of 8), and
    // the epilogue stages C transposed back to pixel rows. Built for one tile per block or the
    // persistent cshufflebuf walk of lone blocks, loading through the tensor maps.
    void pixels_on_n() {
        if (!c_.pixels_on_n) return;
        auto no = [&](const std::string& why) { cull(Rule::Wgmma, "pixels_on_n: " + why); };
        if (!uses_wgmma(c_)) {
            no("a wgmma (compv5 on sm_90a, warpgroup warp tile) option, not " + pipeline() +
               " with warp tile " + triple_text(c_.warp_tile_m, c_.warp_tile_n, c_.warp_tile_k));
            return;
        }
        if (c_.variant != Variant::Forward)
            no("built for forward only, not " + std::string(to_string(c_.variant)));
        if (c_.scheduler == Scheduler::Interwave)
            no("intrawave only (ping-pong consumers are not built with swapped operands)");
        if (c_.epilogue == Epilogue::Direct)
            no("the direct epilogue stores pixel rows from the accumulators; with the pixels on "
               "N they are columns: cshuffle or cshufflebuf");
        if (c_.split_k != 1) no("split_k 1 only");
        if (c_.num_groups_to_merge != 1) no("one group per block (num_groups_to_merge 1)");
        if (c_.split_image) no("the tensor maps it loads through do not take split images");
    }

    const KernelConfig& c_;
    const ArchSpec& a_;
    const ArchSpecs& s_;
    std::vector<CullReason> reasons_;
};

} // namespace

std::string_view rule_id(Rule rule) {
    switch (rule) {
    case Rule::SpatialDims:
        return "spatial_dims";
    case Rule::TileShape:
        return "tile_shape";
    case Rule::VariantPipeline:
        return "variant_pipeline";
    case Rule::PipelineHardware:
        return "pipeline_hardware";
    case Rule::SchedulerPipeline:
        return "scheduler_pipeline";
    case Rule::DoubleBuffer:
        return "double_buffer";
    case Rule::WaveGroups:
        return "wave_groups";
    case Rule::WaveLayout:
        return "wave_layout";
    case Rule::WarpTile:
        return "warp_tile";
    case Rule::WarpCoverage:
        return "warp_coverage";
    case Rule::ThreadCount:
        return "thread_count";
    case Rule::VectorWidth:
        return "vector_width";
    case Rule::SharedMemory:
        return "shared_memory";
    case Rule::Registers:
        return "registers";
    case Rule::GroupMerge:
        return "group_merge";
    case Rule::BlocksPerCu:
        return "blocks_per_cu";
    case Rule::SplitK:
        return "split_k";
    case Rule::Epilogue:
        return "epilogue";
    case Rule::Wgmma:
        return "wgmma";
    case Rule::Direct:
        return "direct_pipeline";
    case Rule::DirectMma:
        return "direct_mma_pipeline";
    case Rule::DirectWgmma:
        return "direct_wgmma_pipeline";
    case Rule::RuntimeFilter:
        return "runtime_filter";
    case Rule::ChannelPad:
        return "channel_pad";
    case Rule::Cluster:
        return "cluster";
    case Rule::Where:
        return "where";
    }
    return "?";
}

int block_threads(const KernelConfig& c, const ArchSpec& arch) {
    // Warp groups are carved out of the block's warps, so they do not add threads. Fields are
    // at most 65536 each; clamp so that absurd configs report a huge count, not an overflow.
    const long long t =
        ((long long)c.wave_m * c.wave_n * c.wave_k + (uses_wgmma(c) ? 4 : 0)) * arch.warp_size;
    return int(std::min<long long>(t, 1 << 30));
}

std::vector<CullReason> check_legality(const KernelConfig& config, const ArchSpec& arch,
                                       const ArchSpecs& specs) {
    return Checker(config, arch, specs).run();
}

} // namespace gconv
