#pragma once
// Geometry, support checks and grids of the tensor-core direct pipeline
// (kernels/gconv_direct_mma.h): what tile_m / tile_n / tile_k and the warp tile mean there, shared
// by rules.cpp, launch_plan.cpp and the generator.
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gconv {

bool is_direct_mma(const KernelConfig& config);
// Channels of one unit: C/G when it is a multiple of 8, else 8 (8 / (C/G) groups staged
// block-diagonally). tile_k is the C/G the kernel is compiled for.
int direct_mma_unit_channels(const KernelConfig& config);
// The warp tile n a direct_mma kernel carries: its unit's output channels.
int direct_mma_warp_tile_n(int c_per_group);

// bwd_data runs as the forward kernel of its phase views (codegen/forward_view.h, one per
// phase of the stride): geometry and tiles per block below are of the first phase
// (launched_problem), shared memory the most any phase needs, and the grid holds every phase's
// blocks (x = the most blocks of a phase x phases, the phase fastest).

// Per-problem block geometry; gconv_direct_mma.h's geometry() is the same formula.
// A tile is TH x TW output pixels of one image (3D: of one output plane); its halo spans the
// input planes, rows and columns its taps read.
struct DirectMmaGeometry {
    int64_t tile_w = 0, tile_h = 0;             // output columns and rows of a block tile
    int64_t tiles_w = 0, tiles_h = 0;           // tiles per image plane along W and H
    int64_t tiles = 0;                          // N x Do x tiles_h x tiles_w
    int64_t halo_d = 0, halo_h = 0, halo_w = 0; // input planes (1 in 2D), rows and columns
    int64_t taps = 0, reduction = 0;            // filter taps; tap * unit channels padded to 16
};
DirectMmaGeometry direct_mma_geometry(const KernelConfig& config, const Problem& problem);
// 3D with double_smem_buffer: a block walks the output planes of (image, row tile, column tile)
// columns, its input planes in a ring of halo_d + stride_d (bwd_weight: its split_k blocks per
// channel run take columns in turn, two dOut row buffers).
bool direct_mma_walks_planes(const KernelConfig& config);
// Tiles one block walks: 1 without double_smem_buffer; Do for the plane walk; else at least 2,
// more when the problem has more than k_direct_mma_target_blocks tiles (times channel runs), so
// that the grid stays near a few resident blocks per SM and each block overlaps copies with
// MMAs.
inline constexpr int64_t k_direct_mma_target_blocks = 1024;
int64_t direct_mma_tiles_per_block(const KernelConfig& config, const Problem& problem);
// bwd_weight: a block's wave_m pair warps own wave_m x warp_tile_m / 16 pairs (unit, m16
// fragment of the unit's reduction rows; its wave_n pixel warps share them and split the tile's
// pixels); the units x fragments of a channel run beyond that go to grid z. The workspace is the
// fp32 dW and one ticket per channel run (direct_weight_workspace_bytes), zeroed per run.
int64_t direct_mma_weight_pairs_per_block(const KernelConfig& config);
int64_t direct_mma_weight_chunks(const KernelConfig& config, const Problem& problem);
// Dynamic shared memory (bwd_weight: the halo and the dOut rows of the tile pixels rounded up to
// 16, two of each with double_smem_buffer, the offset tables, or the block's fp32 dW slice
// tile_n x taps x C/G if larger: it reuses those bytes after the last tile). Forward: halo (halo_h
// * halo_w pixels of tile_n + pad channels; two buffers with double_smem_buffer) + filter (tile_n
// rows of reduction + 8) + the reduction's offset table (reduction / 8 ints) + two ints (halo
// offset, row and column) per tile pixel, the pixels padded to whole items of warp_tile_m rows.
// The plane walk holds halo_d + stride_d planes and two more reduction tables.
std::size_t direct_mma_shared_bytes(const KernelConfig& config, const Problem& problem);
// Largest dynamic shared memory a direct_mma block may take on a target whose blocks may opt
// in to shared_optin bytes: all of it; 96 KiB, which every NVIDIA target this project builds for
// can give one block, where the target is not known (0). Tiles past half the opt-in run one
// block per multiprocessor: the benchmark, not a rule, says whether that pays.
inline constexpr std::size_t k_direct_mma_portable_shared = 96 * 1024;
std::size_t direct_mma_max_shared(std::size_t shared_optin);

// bwd_data with a stride runs this entry of its module (all phases in one launch, the kernel
// argument the bwd_data problem); stride 1 runs the main entry on the host's view.
std::string_view direct_mma_phases_entry_name();
bool direct_mma_runs_phases(const KernelConfig& config, const Problem& problem);

// The generated translation unit of a direct_mma kernel.
std::string generate_direct_mma_source(const KernelConfig& config, const ModuleEntries& entries);

namespace detail {
SupportCheck check_direct_mma(const KernelConfig& config, const Problem& problem, int warp_size,
                              std::size_t shared_optin);
// bwd_data: every phase view (forward_view.h bwd_data_phases) as the forward kernel's problem.
SupportCheck check_direct_mma_phases(const KernelConfig& config, const Problem& problem,
                                     int warp_size, std::size_t shared_optin);
LaunchPlan plan_direct_mma(const KernelConfig& config, const Problem& problem, int warp_size);
} // namespace detail

} // namespace gconv
