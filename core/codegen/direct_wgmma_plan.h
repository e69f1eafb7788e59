#pragma once
// Geometry, support checks and grid of the wgmma direct pipeline (kernels/gconv_direct_wgmma.h):
// what its knobs mean, shared by rules.cpp, launch_plan.cpp and the generator.
//   tile_m   output pixels of a row tile, the instruction's N (64 to 256 in 8s)
//   tile_n   output channels of a block, 64 per m64 block (64 or 128)
//   tile_k   C, the reduction per tap the kernel is built for (16, 32, 48, 64)
//   wave     [4 x consumer warpgroups, 1, 1]; warp tile [16, tile_m, 16] (a warp's share)
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gconv {

bool is_direct_wgmma(const KernelConfig& config);
int direct_wgmma_consumers(const KernelConfig& config);

// Output rows per band: a band of R rows holds (R - 1) * stride_h + (Y - 1) * dilation_h + 1
// input rows of tile_m + (X - 1) * dilation_w columns. The plan takes the most rows up to
// k_direct_wgmma_max_rows whose two bands fit beside the filter slice and the row buffers in
// k_direct_wgmma_shared, a multiple of the consumer warpgroups where one fits (a band's rows go
// to them in turn) and no more than the image's rows rounded up to one; 0 when not even one row
// fits.
inline constexpr int k_direct_wgmma_max_rows = 8;
// fp32 sums a consumer thread holds for one row: tile_m / 2 per m64 block (the rule and the
// kernel's static_assert). Consumer warpgroups: 1 or 2; with three (384 threads, 168 registers
// a thread) even 64 sums spilled.
inline constexpr int k_direct_wgmma_max_accumulators = 128;
inline constexpr int k_direct_wgmma_max_consumers = 2;
// sm_90a's opt-in dynamic shared memory per block (227 KiB).
inline constexpr std::size_t k_direct_wgmma_shared = 232448;
struct DirectWgmmaGeometry {
    int64_t rows = 0;                     // output rows per band (R)
    int64_t band_rows = 0, band_cols = 0; // input rows and columns of a band
    int64_t bands = 0, col_tiles = 0, kblocks = 0;
    int64_t items = 0; // N x bands x col_tiles x kblocks
    std::size_t fixed_bytes = 0, band_bytes = 0, shared_bytes = 0;
};
DirectWgmmaGeometry direct_wgmma_geometry(const KernelConfig& config, const Problem& problem);

std::string generate_direct_wgmma_source(const KernelConfig& config);

namespace detail {
SupportCheck check_direct_wgmma(const KernelConfig& config, const Problem& problem, int warp_size,
                                std::size_t shared_optin);
LaunchPlan plan_direct_wgmma(const KernelConfig& config, const Problem& problem);
} // namespace detail

} // namespace gconv
