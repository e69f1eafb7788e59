#pragma once
// The tensor maps of a wgmma kernel (compv5 on sm_90a, core/kernels/gconv_wgmma.h): whether a
// (config, problem) pair can load its operands with the bulk tensor copy engine, and the
// geometry the host encodes (core/worker/tma_maps.h). GPU-free, so tests can check it.
//
// A: the NHWGC (NDHWGC) input as a rank-4 (rank-5) tensor {C, Wi, Hi, (Di,) N} in im2col mode:
//    one copy = tile_m output pixels x 64 channels of one tap. The bounding box holds the
//    filter base positions (lower corner -pad, upper corner pad - dilation * (R - 1)), walked
//    with the convolution strides; the tap enters as the im2col offsets (dilation * tap).
// B: the weight {C/G, Z*Y*X, G*K/G} tiled, one copy = 64 channels x 1 tap x tile_n rows.
// bwd_weight reduces over output pixels, so both operands are MN-major: A is dOut tiled as
// {K, N*Do*Ho*Wo, 1} (one copy = 64 channels x 64 pixels), B the input in im2col mode with 64
// pixels x 64 channels per copy (tile_n / 64 copies of one tap's channel slice each), or of 32
// channels in the 64-byte swizzle (tile_n / 32 copies; narrow_weight_copies). It has no cp.async
// producer: C/G must be a multiple of 32 (a B copy stays inside one tap) and the maps are
// required.
// Both land in the 128-byte swizzle the wgmma descriptors read. A K tile stays inside one tap:
// the kernel reduces Z*Y*X * ceil(C/G / 64) K tiles, each tap's last one zero-filled past C/G.
// A cluster (cluster_n 2): the first block's A copy is multicast to both blocks, so there is no
// cp.async fallback either (`required`).
// tile_k 32 (forward and bwd_data's view): the copies are 32 channels wide in the 64-byte
// swizzle, so a tap's last slice wastes at most 24 channels (C/G 32: none, where 64-channel
// tiles multiply half zeros), C/G must be a multiple of 32 with groups, and there is no
// cp.async fallback (`required`).
// A forward convolution of a 1x1 (1x1x1) filter with stride 1 and no padding multiplies the
// input itself: A is then the input as a tiled {C, N*Di*Hi*Wi, 1} map (`input_tiled`, one copy =
// 64 channels x tile_m pixel rows, the same swizzled stage as the im2col copy). A row copy
// walks plain rows where the im2col unit walks pixel by pixel through the bounding box
// (for now only with GCONV_WGMMA_INPUT_TILED=1 in the environment: the im2col map stays the
// default until a device run has verified and timed the tiled one).
// Not eligible: merged groups, split image, C/G not a multiple of 8, C/G not a multiple of
// tile_k with G > 1 (the tail would read the next group's channels), corners or offsets outside
// what the copy engine encodes, strides over 8. A bwd_data kernel plans the
// maps of its forward view (forward_view.h): A over dOut, B over the view's filter.
#include "config/kernel_config.h"
#include "problem/problem.h"

#include <cstdint>
#include <string>

namespace gconv {

struct TmaIm2colGeometry {
    int rank = 0;                     // 4 (2D) or 5 (3D)
    uint64_t dims[5] = {};            // innermost first: C, Wi, Hi, (Di,) N
    uint64_t strides_bytes[4] = {};   // of dims 1 .. rank-1
    int lower[3] = {}, upper[3] = {}; // bounding-box corners, W, H, (D)
    uint32_t element_strides[5] = {}; // 1, stride_w, stride_h, (stride_d,) 1
    uint32_t channels = 0, pixels = 0;
};

struct TmaTiledGeometry {
    uint64_t dims[3] = {};          // C/G, Z*Y*X, G*K/G (bwd_weight: K, N*Do*Ho*Wo, 1)
    uint64_t strides_bytes[2] = {}; // of dims 1, 2
    uint32_t box[3] = {};           // 64, 1, tile_n (bwd_weight: 64, 64, 1)
};

struct WgmmaTmaPlan {
    bool enabled = false;
    std::string reason; // why not, when !enabled
    TmaIm2colGeometry im2col;
    TmaTiledGeometry tiled;
    // Forward 1x1, stride 1, unpadded: the input also as a tiled matrix (input_tile), which the
    // kernel reads instead of the im2col map.
    bool input_tiled = false;
    TmaTiledGeometry input_tile;
    // bwd_weight: the tiled map is over dOut (the output slot), not the filter.
    bool tiled_over_output = false;
    // The kernel has no cp.async producer, so it cannot run without the maps
    // (maps_only_reason).
    bool required = false;
};

// What makes a wgmma kernel load through the tensor maps only, with no cp.async producer to fall
// back on: "MN-major operands" (bwd_weight), "tile_k 32" (64-byte rows in the 64-byte
// swizzle), "cluster" (along N its shared A tile is a multicast copy; along K its blocks split
// the maps' K tiles), "pixels_on_n" (its consumers read the stages as the copy engine swizzles
// them); empty where a cp.async producer stands in.
std::string maps_only_reason(const KernelConfig& config);

WgmmaTmaPlan plan_wgmma_tma(const KernelConfig& config, const Problem& problem);

// bwd_weight: whether the input's copies are 32 channels wide (C/G % 64 == 32, or a tile_n of
// 32-column blocks such as 96); the kernel decides the same (gconv_wgmma.h narrow_b_blocks).
bool narrow_weight_copies(const KernelConfig& config, const Problem& problem);

} // namespace gconv
