#pragma once
// One kernel configuration: every knob that changes the compiled kernel, plus its signature.
// Its name (kernel_name.h) is its identity.
#include "config/enums.h"

#include <compare>
#include <string>

namespace gconv {

struct KernelConfig {
    // Signature.
    Variant variant = Variant::Forward;
    DataType dtype = DataType::BF16;
    int ndim_spatial = 2;
    // Only NHWGC / GKYXC / NHWGK (and their 3D forms) exist today; kept as a field so a
    // future layout gets a new name instead of colliding.
    std::string layout = "nhwgc";

    // Block tile (GEMM M x N x K per block).
    int tile_m = 128;
    int tile_n = 128;
    int tile_k = 32;
    // Warps per block along M, N, K ("waves" in CK's words).
    int wave_m = 2;
    int wave_n = 2;
    int wave_k = 1;
    // Per-warp MMA tile.
    int warp_tile_m = 32;
    int warp_tile_n = 32;
    int warp_tile_k = 16;

    Pipeline pipeline = Pipeline::CompV3;
    Scheduler scheduler = Scheduler::Intrawave;
    Epilogue epilogue = Epilogue::CShuffle;

    // Global access widths in elements for A, B and C.
    int vector_size_a = 8;
    int vector_size_b = 8;
    int vector_size_c = 8;

    int block_per_cu = 1;
    // Blocks of a thread-block cluster along N (the persistent wgmma kernels with tensor maps):
    // 2 pairs the blocks of two adjacent N tiles of one M tile, which load that A tile once and
    // multicast it into both (gconv_wgmma.h), so A's L2 reads halve.
    int cluster_n = 1;
    // Blocks of a thread-block cluster along K (the one-tile-per-block cshuffle wgmma kernels
    // with tensor maps): each reduces its share of the K tiles of the same output tile, then
    // they sum their partial tiles through distributed shared memory, each block storing a
    // slice of the rows (gconv_wgmma.h), so few-tile problems with long K fill more
    // multiprocessors without a workspace or a second kernel (ck).
    int cluster_k = 1;
    // wgmma forward: the output pixels on the instruction's N side (tile_m any multiple of 8 up
    // to 256, one m64nNk16 spanning the tile's pixels) and the output channels on its M side
    // (tile_n in 64-row blocks), so the pixel edge of a tile need not come in 64s (pn).
    bool pixels_on_n = false;
    int num_wave_groups = 1;
    int num_groups_to_merge = 1;

    bool double_smem_buffer = false;
    bool split_image = false;
    // The tensor-core direct K x K entries of forward and bwd_data read the filter size at run
    // time (one entry per stride, the filter rows a loop) instead of one entry per size.
    bool runtime_filter = false;
    // Forward GEMM pipelines on mma.sync: a first kernel copies the input and the filter with
    // C/G padded with zeros to a multiple of vector_size_a into the workspace, and the GEMM runs
    // the padded problem with full-width loads (C/G 3 or 45: codegen/channel_pad.h).
    bool channel_pad = false;
    // Tail handling per GEMM dim: a kernel without it supports only problems whose
    // dimension divides the tile (is_supported says so).
    bool pad_m = true;
    bool pad_n = true;
    bool pad_k = true;

    // The GEMM K is cut into split_k slices: bwd_weight's N*Ho*Wo, forward's Z*Y*X*C/G
    // (atomic only).
    int split_k = 1;
    SplitKMode split_k_mode = SplitKMode::None;
    // CK's `two_stage` flag is split_k_mode == TwoStage.
    bool two_stage() const { return split_k_mode == SplitKMode::TwoStage; }

    int warps() const { return wave_m * wave_n * wave_k; }

    auto operator<=>(const KernelConfig&) const = default;
    bool operator==(const KernelConfig&) const = default;
};

} // namespace gconv
