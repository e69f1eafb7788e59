#pragma once
// Geometry, support checks and grids of the direct-convolution pipeline (kernels/gconv_direct.h):
// what tile_m / tile_n / tile_k and the vector mean there, shared by rules.cpp, launch_plan.cpp
// and the generator.
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "config/arch_spec.h"
#include "kernels/gconv_direct_tc_layout.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gconv {

bool is_direct(const KernelConfig& config);
// Channel lanes of a block: tile_n / vector_size_a (each lane owns one channel vector).
int direct_channel_lanes(const KernelConfig& config);
// forward and bwd_data: rows a pixel lane computes, tile_m / (pixel lanes x tile_k) (1, 2 or 4;
// 0 when tile_m is not such a multiple); bwd_weight: 1 (0 unless tile_m is pixel lanes x tile_k).
int direct_rows(const KernelConfig& config, int warp_size = 32);
// The filter size of the entry specialised for a problem: K for a depthwise K x K filter
// (K = 3, 5, 7) with stride 1 and dilation 1 along H and W (bwd_data: stride 1 along D too;
// bwd_weight: 2D, and direct_weight_strip_fits or the tensor-core entries; the tensor-core
// entries: stride 1 or 2 along both), else 0 (the generic entry).
int direct_filter(const KernelConfig& config, const Problem& problem);
// The entry the launch plan runs: `gconv_direct_k<K>` for direct_filter() = K (the tensor-core
// entries that read K at run time: `gconv_direct_kx`, any K), else the generic
// kernel_entry_name(). Every direct module holds the entries its config can run.
std::string direct_entry_name(const KernelConfig& config, const Problem& problem);
inline constexpr int k_direct_filters[] = {3, 5, 7};
// Whether a config's K x K entries also come in stride-2 forms (stride 2 along H and W): the
// tensor-core ones and the staged forward ones.
bool direct_has_stride_2_entries(const KernelConfig& config);
// `gconv_direct_k<K>`; the stride-2 entries (direct_has_stride_2_entries) `gconv_direct_k<K>_s2`.
// Filter k_direct_any_filter: `gconv_direct_kx` (`_s2`), the tensor-core entries that read K at
// run time (bwd_weight's always, forward's and bwd_data's with runtime_filter;
// kernels/gconv_direct_tc.h).
std::string direct_filter_entry_name(int filter, int stride = 1);
inline constexpr int k_direct_any_filter = 0;
// Whether a config's K x K entries read the filter size at run time: the tensor-core ones of
// bwd_weight always, of forward and bwd_data with runtime_filter.
bool direct_reads_filter_at_run_time(const KernelConfig& config);
// The filter an entry of this config is named for: k_direct_any_filter for the entries that
// read K at run time, else the filter itself.
int direct_entry_filter(const KernelConfig& config, int filter);
// The workspace of a direct bwd_weight kernel whose sums go through fp32 (direct and
// tensor-core entries with a bf16 / fp16 dW, every direct_mma kernel): the fp32 dW, then one
// ticket per channel block of tile_n channels (kernels/gconv_weight_runs.h), zeroed per run.
// 0 where the kernel adds into an fp32 dW directly or is no direct bwd_weight kernel.
std::size_t direct_weight_workspace_bytes(const KernelConfig& config, const Problem& problem);
// The stride of the K x K entry a problem runs: 2 for a tensor-core problem with stride 2 along
// H and W, else 1.
int direct_filter_stride(const KernelConfig& config, const Problem& problem);
// bwd_weight's K x K entries (gconv_direct.h sliding_weight): a pixel lane reduces a strip of
// k_direct_weight_strip output columns over tile_k / k_direct_weight_strip rows, with
// K x K x vector fp32 sums in registers (at most k_direct_max_strip_accumulators). The generator
// hands both to the device code (kWeightStrip, kStripAccumulators).
inline constexpr int k_direct_weight_strip = 4;
inline constexpr int k_direct_max_strip_accumulators = 100;
bool direct_weight_strip_fits(const KernelConfig& config, int filter);
// The staged K x K entries (double_smem_buffer, kernels/gconv_direct_staged.h): 2D forward and
// bwd_data, depthwise K x K with stride 1 and dilation 1 along H and W (direct_filter() > 0).
// A block copies input tiles of tile_n channels x `cols` output columns x `rows` output rows
// (plus the K - 1 halo) into shared memory and walks k_direct_staged_walk consecutive tiles
// with two buffers; tile_k is the run of rows a thread computes down one column. Its pixel blocks
// are ceil(tiles / k_direct_staged_walk); as for every direct kernel grid x is pixel blocks x
// channel blocks, the channel block fastest, and y is 1. The generator
// hands the constants below to the device code, whose staged_geometry() is this formula.
bool is_direct_staged(const KernelConfig& config);
struct DirectStagedGeometry {
    int64_t cols = 0, col_tiles = 0; // output columns per tile, tiles along W
    int64_t rows = 0, bands = 0;     // output rows per tile, tiles along H
    int64_t tiles = 0;               // per channel block
    int64_t in_rows = 0, in_cols = 0;
};
DirectStagedGeometry direct_staged_geometry(const KernelConfig& config, const Problem& problem,
                                            int warp_size = 32);
inline constexpr int k_direct_staged_walk = 2;
inline constexpr int k_direct_staged_max_cols = 64;
// A thread keeps the K*K x vector fp32 weights in registers up to this many, else reads them
// from shared memory at each use.
inline constexpr int k_direct_staged_register_weights = 72;
// Two staged tiles and the filter slice: the sm_89 opt-in rounded down, as for direct_mma.
inline constexpr std::size_t k_direct_staged_max_shared = 96 * 1024;
// The tensor-core K x K entries (warp tile 16x8x16, kernels/gconv_direct_tc.h): 2D depthwise
// K x K, dilation 1, stride 1 or 2 along H and W (direct_filter() > 0), every direction, on
// mma.sync with the filter row as a Toeplitz matrix. A block tile is rows = 16 x tile_k
// destination rows x cols = min(tile_m / rows, dW rounded up to 16) columns x tile_n channels of
// one image (bwd_data with stride 2: positions of the four phases' grid; bwd_weight: of dOut);
// one tile per block: grid x is tiles x channel blocks, the channel block fastest.
// direct_tc_geometry() is the formula of kernels/gconv_direct_tc_layout.h the device uses too.
inline constexpr Triple k_direct_tc_warp_tile{16, 8, 16};
bool is_direct_tc(const KernelConfig& config);
using DirectTcGeometry = direct_tc::Geometry<int64_t>;
DirectTcGeometry direct_tc_geometry(const KernelConfig& config, const Problem& problem);
// The staged planes and filter rows of a tensor-core tile: the sm_89 opt-in rounded down, as for
// the staged entries.
inline constexpr std::size_t k_direct_tc_max_shared = 96 * 1024;
// The warp tile direct kernels take (the GEMM knob left at its derived default).
Triple direct_warp_tile(DataType dtype);
// bwd_weight: taps of one filter row a thread accumulates together (X when X is 3, 5 or 7 and
// X * vector * C/G <= 64, else 1); gconv_direct.h's row_taps() is the same formula.
int64_t direct_row_taps(const KernelConfig& config, const Problem& problem);
// The row-tap counts direct_row_taps() gives, in the order of the generic bwd_weight entry's
// kRowTapsMask bits (gconv_direct.h RowTapsBuilt).
inline constexpr int k_direct_row_taps[] = {1, 3, 5, 7};
// Dynamic shared memory of a direct kernel on a problem: the fp32 filter slice
// tile_n * Z*Y*X * C/G * 4 bytes for forward and bwd_data; bwd_weight, the block's sums
// K*K * tile_n * 4 bytes in a K x K entry, none in the generic one; a staged kernel, its filter
// slice and two tiles of in_rows x in_cols x tile_n elements, each rounded up to 16 bytes; a
// tensor-core kernel, its staged planes and filter rows (bwd_weight: dOut and input planes and
// the sums).
std::size_t direct_shared_bytes(const KernelConfig& config, const Problem& problem,
                                int warp_size = 32);
// Largest filter slice a direct kernel stages (the default per-block limit everywhere).
inline constexpr std::size_t k_direct_max_shared = 48 * 1024;

// The generated translation unit of a direct kernel (kernel_source.cpp hands direct configs here).
std::string generate_direct_source(const KernelConfig& config, const ModuleEntries& entries);

namespace detail {
SupportCheck check_direct(const KernelConfig& config, const Problem& problem, int warp_size);
LaunchPlan plan_direct(const KernelConfig& config, const Problem& problem, int warp_size);
} // namespace detail

} // namespace gconv
