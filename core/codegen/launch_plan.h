#pragma once
// How a kernel configuration (any direction) is launched on a problem, how much shared memory
// it needs, and whether it can compute that problem at all. The whole launch sequence of one
// run (memsets, GEMM, convert kernel) is in launch_sequence.h.
#include "config/kernel_config.h"
#include "kernels/gconv_params.h"
#include "problem/problem.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gconv {

struct LaunchPlan {
    unsigned grid_x = 0, grid_y = 0,
             grid_z = 0; // M tiles (over all split-image pieces), N tiles, group sets
    unsigned block_threads = 0;
    std::size_t shared_bytes = 0; // dynamic shared memory per block
};

struct SupportCheck {
    bool ok = true;
    std::string reason; // empty when ok; otherwise names the field and the violated rule
};

// Largest tensor (in elements) one 32-bit-offset piece may address.
inline constexpr int64_t k_max_piece_elements = INT32_MAX;

// True when bf16/fp16 use the matrix units (warp_tile_k >= 16); fp32, or a 16-bit type with
// warp_tile_k < 16, runs on the SIMT FMA path.
bool uses_mma(const KernelConfig& config);
// A warpgroup warp tile (16 x N>=64 x 16, bf16/fp16): each warp's share of a wgmma.m64nNk16.
bool is_warpgroup_tile(const KernelConfig& config);
// A forward tile_n that is not a power of two but a multiple of 16 up to 256: output channels
// come in 48s (144, 240, 672...), so a tile fits them. The rules and is_supported both admit it;
// the backward kernels were not emulated with such tiles and keep powers of two.
bool any_width_tile_n(const KernelConfig& config);
// Whether warp_tile_n (a warpgroup tile's instruction N) is an N of the wgmma instructions
// gconv_wgmma.h builds for c's direction: 64, 128, 256; forward also 96, 160, 192, 224 and every
// multiple of 8 between 64 and 128 (the halves of an N split: 144 ... 240), with pixels_on_n
// every multiple of 8 from 64 to 256 (the pixel edge); bwd_weight also 192 and 96 (whose
// 32-channel input copies fit 3 x 3 filters of C/G 32 exactly: 288 columns in 3 tiles).
// The wgmma rule and is_supported both ask it.
bool wgmma_n_built(const KernelConfig& config);
// The N split of two consumer warpgroups (wave layout [4, 2, 1], warp_tile_n = tile_n / 2): each
// warpgroup computes every 64-row block of the tile over its half of the columns, so a tile may
// be 192 rows with two consumers (192 x 208: two m64n104 halves, 156 accumulators a thread).
bool wgmma_n_split(const KernelConfig& config);
// compv5 built for sm_90a as the warp-specialised wgmma pipeline (core/kernels/gconv_wgmma.h):
// a warpgroup warp tile with warp_tile_n == tile_n and wave layout [4 x consumers, 1, 1], or
// the N split of two consumers (wgmma_n_split).
bool uses_wgmma(const KernelConfig& config);
// The extents of a wgmma kernel's instruction M and N over its tile: tile_m (pixels) and tile_n
// (channels), or swapped with pixels_on_n (channels in 64-row blocks on M, pixels on N).
int instruction_m(const KernelConfig& config);
int instruction_n(const KernelConfig& config);
// A wgmma kernel with the interwave scheduler: its consumer warpgroups ping-pong, each
// computing alternate tiles whole (gconv_wgmma.h).
bool wgmma_pingpong(const KernelConfig& config);
// The warpgroup tile of three consumer warpgroups (wave layout [12, 1, 1], tile_m 192, one m64
// block each): 192-pixel tiles, whose counts fill whole waves where 128 and 256 leave a tail
// (12288 pixels: 64 tiles of 192). The rules and is_supported admit its tile_m and wave_m, which
// are not powers of two.
bool wgmma_three_consumers(const KernelConfig& config);
// Whether the config field `field` (tile_m, tile_n, wave_m, warp_tile_n, ...) may be other than a
// power of two: a forward tile_n in 16s (any_width_tile_n), a wgmma N as tile_n and warp_tile_n
// (wgmma_n_built, the warp tile spanning the tile or half of it), three consumers' tile_m 192
// and wave_m 12, and an N split's tile_m in 64s. The tile-shape rule and is_supported both ask it.
bool admits_non_pow2(const KernelConfig& config, std::string_view field);
// Warps per block: the wave layout, plus the producer warpgroup of a wgmma kernel.
int block_warps(const KernelConfig& config);

// Shared-memory layout of the GEMM operands: K-major (forward A and B, bwd_data A) or
// MN-major (bwd_data B = weight, bwd_weight A = dOut and B = input), see gconv_gemm.h. A
// bwd_data kernel that runs as the forward kernel of its view (forward_view.h) is K-major.
bool a_is_mn_major(const KernelConfig& config);
bool b_is_mn_major(const KernelConfig& config);
// Bytes of one C element as the GEMM stores it: 4 for a bwd_weight split-K reduction (fp32
// workspace or atomics), else the element type.
int output_element_bytes(const KernelConfig& config);

// Column slices in which a wgmma cshufflebuf epilogue stages its C tile: 1, or the fewest
// powers of two that let the ring beside its buffer hold the most stages (4 for the 128 x 256
// and 256 x 128 tiles); 1 for every other kernel.
int c_buffer_passes(const KernelConfig& config);
// Shared-memory stages of the pipeline: basic_v1 1 (2 with dsb), compv3 1, compv4 / compv5 /
// comp_async 2, compv6 3, mem 1 + clamp(ceil(32 KiB / stage bytes), 2, 8); wgmma 3-4 (as many
// as fit in 192 KiB, and beside the C buffer in 227 KiB for cshufflebuf).
int pipeline_stages(const KernelConfig& config);
// Bytes of one stage: per operand tile_m (or tile_n) rows of tile_k + 16 / elem elements when
// K-major, tile_k rows of tile_m (tile_n) + 16 / elem when MN-major, times elem.
std::size_t stage_bytes(const KernelConfig& config);
// Dynamic shared memory per block: max(stages * stage, cshuffle C tile
// tile_m * (tile_n + 16 / out) * out with out = output_element_bytes, compv5 reduction
// tile_m * tile_n * 4). wgmma: unpadded stages and the cshuffle tile share the space, the
// cshufflebuf C buffer (tile_m x (tile_n / c_buffer_passes + 16 / out) x out, one per consumer
// warpgroup with ping-pong) comes on top, plus 1088 bytes
// of mbarriers and alignment slack.
// The device code static_asserts the same value. warp_size does not change it today.
std::size_t shared_bytes(const KernelConfig& config, int warp_size = 32);

// Images per split-image piece for a problem (N when one piece suffices).
int64_t images_per_piece(const KernelConfig& config, const Problem& problem,
                         int64_t max_piece_elements = k_max_piece_elements);

// shared_optin: the dynamic shared memory one block may opt in to on the target (the arch
// spec's or the device's figure; 0 when not known: portable limits). Kernels whose shared memory
// grows with the problem (direct_mma) take larger tiles where the target has room.
SupportCheck is_supported(const KernelConfig& config, const Problem& problem, int warp_size = 32,
                          int64_t max_piece_elements = k_max_piece_elements,
                          std::size_t shared_optin = 0);

LaunchPlan plan_launch(const KernelConfig& config, const Problem& problem, int warp_size = 32,
                       int64_t max_piece_elements = k_max_piece_elements);

// Kernel argument for a supported (config, problem) pair. All directions take the problem's
// three tensors in their own slots (in = input / dIn, wei = weight / dW, out = output / dOut);
// the kernel knows which one it writes. A kernel that runs bwd_data as the forward kernel of
// its view (forward_view.h) gets the view's sizes; its launch sequence says which tensor goes
// into which slot (KernelStep::dout_as_input). max_piece_elements lets tests force
// several split-image pieces on small shapes; plan_launch must be given the same value.
ConvParams make_params(const KernelConfig& config, const Problem& problem, const void* in,
                       const void* wei, void* out,
                       int64_t max_piece_elements = k_max_piece_elements);
// Kernel argument for the reference kernels (one piece, no tiling).
ConvParams make_params(const Problem& problem, const void* in, const void* wei, void* out);

} // namespace gconv
