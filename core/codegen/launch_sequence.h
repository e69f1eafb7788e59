#pragma once
// The ordered steps of one run of a kernel configuration on a problem: memsets, kernel
// launches and the workspace they need. Forward and bwd_data are one launch (two for a
// bwd_data kernel that runs as the forward kernel of its view: the filter rotation first);
// bwd_weight adds the zeroing an atomic split-K needs and the convert kernel of an fp32
// workspace. Every step
// belongs to the timed work. Qt-free and GPU-free: the worker executes it
// (worker/kernel_launch.h), tests inspect it.
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "codegen/wgmma_tma.h"

#include <cstddef>
#include <string>
#include <vector>

namespace gconv {

// The device buffers a step refers to: the problem's three tensors (in their ConvParams
// slots, whatever the direction) and the run's fp32 workspace.
enum class LaunchBuffer { Input, Weight, Output, Workspace };
std::string_view to_string(LaunchBuffer buffer);

struct MemsetStep {
    LaunchBuffer buffer = LaunchBuffer::Workspace;
    std::size_t bytes = 0; // from the buffer's start, set to zero bytes
};

struct KernelStep {
    std::string entry; // extern "C" symbol in the generated module
    unsigned grid_x = 1, grid_y = 1, grid_z = 1;
    unsigned block_threads = 0;
    std::size_t shared_bytes = 0;
    // Arguments: (ConvParams) when false, (ConvParams, void* workspace) when true.
    bool workspace_arg = false;
    // A wgmma kernel: (ConvParams, WgmmaMaps) built from LaunchSequence::tma (maps.enabled 0
    // when the plan is not enabled).
    bool wgmma_maps = false;
    // A persistent grid (a wgmma kernel with the direct or cshufflebuf epilogue, gconv_wgmma.h
    // TileWalk): the executor launches min(grid_x * grid_y * grid_z, multiprocessors) x 1 x 1
    // blocks, each walking the tiles of the grid above with a stride of the blocks launched.
    bool persistent = false;
    // Blocks of a thread-block cluster (compile-time cluster dims, KernelConfig::cluster_n): a
    // persistent grid of them launches whole clusters.
    unsigned cluster = 1;
    // bwd_data as the forward kernel of its view (forward_view.h): the step takes dOut in the
    // input slot, dIn in the output slot and the workspace (the view's filter) as the weight;
    // its tensor maps are encoded on those. Every other step takes the tensors in their slots.
    bool dout_as_input = false;
    // With dout_as_input: the step reads the stored filter in the weight slot (it rotates it
    // itself, gconv_direct_mma.h) instead of the workspace.
    bool stored_filter = false;
    // The GEMM of a channel_pad kernel (channel_pad.h): it reads the padded input at the
    // workspace's start and the padded filter at LaunchSequence::padded_weight_offset.
    bool padded_operands = false;
};

struct LaunchStep {
    enum class Kind { Memset, Kernel } kind = Kind::Kernel;
    MemsetStep memset;
    KernelStep kernel;
};

struct LaunchSequence {
    std::vector<LaunchStep> steps;
    std::size_t workspace_bytes = 0;      // workspace the steps use (0: none)
    std::size_t padded_weight_offset = 0; // bytes: where a channel-padded copy's filter starts
    // The kernel argument with null tensor pointers: the executor fills in, out, wei.
    ConvParams params{};
    // Tensor-map geometry of a wgmma kernel (wgmma_tma.h); !enabled for every other kernel.
    WgmmaTmaPlan tma;
    // The workspace must be zero before the sequence's first run and every run leaves it zero
    // (params.keep_workspace_zero): the split-K and direct bwd_weight sequences whose first step
    // would otherwise zero it, with workspace_kept_zero_requested().
    bool workspace_kept_zero = false;
};

// GCONV_WORKSPACE_KEPT_ZERO=1 in the environment (of the sweep and its workers alike): opt-in
// until a device run has verified and timed it (docs/notes/device-runs.md, session 39).
bool workspace_kept_zero_requested();

// Fails (std::invalid_argument naming the reason) for pairs is_supported rejects.
// shared_optin as for is_supported.
LaunchSequence plan_sequence(const KernelConfig& config, const Problem& problem, int warp_size = 32,
                             std::size_t shared_optin = 0);

// The entry of the step that computes the convolution (the filter entries of the direct
// pipeline and direct_mma's strided bwd_data choose by problem; the rest is the main entry).
// Total: it names an entry for unsupported pairs too.
std::string main_entry_name(const KernelConfig& config, const Problem& problem);
// Adds the entry a (config, problem) pair launches, and for the direct pipeline its C/G width, to
// `entries` (a run that knows its problems
// starts from ModuleEntries{false, {}} per kernel and notes every cell, supported or not, so a
// worker that supports more than the host thought still finds its entry).
void note_entries(const KernelConfig& config, const Problem& problem, ModuleEntries& entries);

// The tensors of one run in their ConvParams slots, and its workspace.
struct StepTensors {
    const void* in = nullptr;
    const void* wei = nullptr;
    void* out = nullptr;
    void* workspace = nullptr;
};
// The ConvParams argument of `step`: the sequence's params on the tensors in their slots, or on
// bwd_data's view (dOut as the input, dIn as the output, the workspace or with stored_filter the
// stored filter as the weight).
ConvParams step_params(const LaunchSequence& sequence, const KernelStep& step,
                       const StepTensors& tensors);
// The blocks `step` launches: its grid, or for a persistent step min(grid blocks,
// multiprocessors) x 1 x 1; with clusters of c blocks, c x min(tile groups, multiprocessors / c)
// (a tile group: one M tile, c N tiles). Hopper's multiprocessors come in pairs (TPCs), so
// clusters of 2 fill every one.
struct StepGrid {
    unsigned x = 1, y = 1, z = 1;
};
StepGrid step_grid(const KernelStep& step, unsigned multiprocessors);

// Threads per block and block cap of the bwd_weight convert kernel (grid-stride loop).
inline constexpr unsigned k_finish_threads = 256;
inline constexpr unsigned k_finish_max_blocks = 4096;

} // namespace gconv
