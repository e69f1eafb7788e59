#include "codegen/launch_sequence.h"

#include "codegen/channel_pad.h"
#include "codegen/direct_mma_plan.h"
#include "codegen/direct_plan.h"
#include "codegen/direct_wgmma_plan.h"
#include "codegen/forward_view.h"
#include "codegen/kernel_problem.h"
#include "codegen/kernel_source.h"
#include "util/env_switch.h"

#include <algorithm>
#include <stdexcept>

namespace gconv {

std::string_view to_string(LaunchBuffer buffer) {
    switch (buffer) {
    case LaunchBuffer::Input:
        return "input";
    case LaunchBuffer::Weight:
        return "weight";
    case LaunchBuffer::Output:
        return "output";
    case LaunchBuffer::Workspace:
        return "workspace";
    }
    return "?";
}

namespace {

LaunchStep memset_step(LaunchBuffer buffer, std::size_t bytes) {
    LaunchStep s;
    s.kind = LaunchStep::Kind::Memset;
    s.memset = {buffer, bytes};
    return s;
}

LaunchStep kernel_step(std::string_view entry, unsigned gx, unsigned gy, unsigned gz,
                       unsigned threads, std::size_t shared, bool workspace_arg) {
    LaunchStep s;
    s.kind = LaunchStep::Kind::Kernel;
    s.kernel = {std::string(entry), gx, gy, gz, threads, shared, workspace_arg};
    return s;
}

// Blocks of a grid-stride loop over `elements`: one element per thread, at most `cap` blocks.
unsigned grid_stride_blocks(int64_t elements, unsigned threads, unsigned cap) {
    return static_cast<unsigned>(
        std::clamp<int64_t>((elements + threads - 1) / threads, 1, int64_t{cap}));
}

} // namespace

LaunchSequence plan_sequence(const KernelConfig& c, const Problem& given, int warp_size,
                             std::size_t shared_optin) {
    const Problem p = kernel_problem(c, given);
    const SupportCheck support =
        is_supported(c, given, warp_size, k_max_piece_elements, shared_optin);
    if (!support.ok)
        throw std::invalid_argument("unsupported (config, problem): " + support.reason);
    LaunchSequence seq;
    seq.params = make_params(c, p, nullptr, nullptr, nullptr);
    const LaunchPlan plan = plan_launch(c, p, warp_size);
    const bool backward = c.variant != Variant::Forward;
    const std::size_t weight_f32 = static_cast<std::size_t>(p.weight_elements()) * 4;
    // Whether the first step zeroes fp32 sums (and tickets) in the workspace that every
    // converter of the run reads back (workspace_kept_zero_requested).
    bool zeroes_sums = false;

    if (const std::size_t direct = direct_weight_workspace_bytes(c, p); direct > 0) {
        // fp32 dW and the channel blocks' tickets, both zero on every run.
        seq.workspace_bytes = direct;
        seq.steps.push_back(memset_step(LaunchBuffer::Workspace, seq.workspace_bytes));
        zeroes_sums = true;
    } else if (c.variant == Variant::Forward && c.split_k_mode == SplitKMode::Atomic) {
        // The splits add into fp32 sums that start at zero on every run: the output itself
        // (fp32), else a workspace that the last split of each tile converts (mma.sync: its
        // tickets after the sums, zero on every run too) or the finish kernel (wgmma).
        const std::size_t out_f32 = static_cast<std::size_t>(p.output_elements()) * 4;
        if (c.dtype == DataType::FP32) {
            seq.steps.push_back(memset_step(LaunchBuffer::Output, out_f32));
        } else {
            seq.workspace_bytes = out_f32 + split_ticket_bytes(c, p);
            seq.steps.push_back(memset_step(LaunchBuffer::Workspace, seq.workspace_bytes));
            zeroes_sums = true;
        }
    } else if (c.variant == Variant::BwdWeight) {
        if (c.split_k_mode == SplitKMode::Atomic) {
            // Atomics accumulate: the fp32 target starts at zero on every run, and so do the
            // GEMM pipelines' per-tile tickets after it.
            if (c.dtype == DataType::FP32) {
                seq.steps.push_back(memset_step(LaunchBuffer::Weight, weight_f32));
            } else {
                seq.workspace_bytes = weight_f32 + split_ticket_bytes(c, p);
                seq.steps.push_back(memset_step(LaunchBuffer::Workspace, seq.workspace_bytes));
                zeroes_sums = true;
            }
        } else if (c.split_k_mode == SplitKMode::TwoStage) {
            // Every slice element is stored by its split (empty splits store zeros).
            seq.workspace_bytes = weight_f32 * static_cast<std::size_t>(c.split_k);
        }
    }
    // A kernel that runs bwd_data as the forward kernel of its view reads the view's filter,
    // which the first kernel writes into the workspace (forward_view.h); direct_mma reads the
    // stored filter rotated while it stages it.
    const bool view = runs_forward_view(c);
    const bool stored_filter = view && is_direct_mma(c);
    if (view && !stored_filter) {
        const int64_t elems = p.weight_elements();
        seq.workspace_bytes = static_cast<std::size_t>(elems) * element_bytes(c.dtype);
        seq.steps.push_back(kernel_step(
            rotate_filter_entry_name(),
            grid_stride_blocks(elems, k_rotate_filter_threads, k_rotate_filter_max_blocks), 1, 1,
            k_rotate_filter_threads, 0, true));
    }
    // The channel-padded copy of input and filter, which the main step reads in the workspace.
    if (c.channel_pad) {
        seq.params.stored_c_per_group = static_cast<int>(given.c_per_group());
        const int64_t elements = padded_copy_elements(p);
        const std::size_t bytes = element_bytes(c.dtype);
        seq.workspace_bytes = static_cast<std::size_t>(elements) * bytes;
        seq.padded_weight_offset = static_cast<std::size_t>(padded_input_span(p)) * bytes;
        seq.steps.push_back(
            kernel_step(pad_channels_entry_name(),
                        grid_stride_blocks(elements, k_pad_threads, k_pad_max_blocks), 1, 1,
                        k_pad_threads, 0, true));
    }
    // Direct forward modules hold entries specialised by filter size; the problem picks one.
    const std::string entry = main_entry_name(c, p);
    const bool split_forward = c.variant == Variant::Forward && c.split_k > 1;
    seq.steps.push_back(kernel_step(entry, plan.grid_x, plan.grid_y, plan.grid_z,
                                    plan.block_threads, plan.shared_bytes,
                                    (backward && !view) || split_forward));
    seq.steps.back().kernel.dout_as_input = view;
    seq.steps.back().kernel.padded_operands = c.channel_pad;
    seq.steps.back().kernel.stored_filter = stored_filter;
    if (uses_wgmma(c)) {
        seq.steps.back().kernel.wgmma_maps = true;
        // Only cshuffle stages C in the ring; the other epilogues leave it to the next tile.
        seq.steps.back().kernel.persistent = c.epilogue != Epilogue::CShuffle;
        seq.steps.back().kernel.cluster = static_cast<unsigned>(c.cluster_n);
        seq.tma = plan_wgmma_tma(c, p);
    }
    // One block per multiprocessor walks the items (gconv_direct_wgmma.h).
    if (is_direct_wgmma(c)) seq.steps.back().kernel.persistent = true;
    if (has_finish_kernel(c)) {
        const int64_t finished =
            c.variant == Variant::Forward ? p.output_elements() : p.weight_elements();
        seq.steps.push_back(
            kernel_step(finish_entry_name(),
                        grid_stride_blocks(finished, k_finish_threads, k_finish_max_blocks), 1, 1,
                        k_finish_threads, 0, true));
    }
    // A workspace kept zero: its converters leave the sums and tickets zero, so the executor
    // zeroes it once before a problem's first run and no run starts with a memset.
    if (zeroes_sums && !view && !c.channel_pad && workspace_kept_zero_requested()) {
        seq.steps.erase(seq.steps.begin());
        seq.workspace_kept_zero = true;
        seq.params.keep_workspace_zero = 1;
    }
    return seq;
}

bool workspace_kept_zero_requested() {
    return env_switch_on("GCONV_WORKSPACE_KEPT_ZERO");
}

std::string main_entry_name(const KernelConfig& c, const Problem& given) {
    const Problem p = kernel_problem(c, given);
    if (is_direct(c)) return direct_entry_name(c, p);
    if (direct_mma_runs_phases(c, p)) return std::string(direct_mma_phases_entry_name());
    return std::string(kernel_entry_name());
}

void note_entries(const KernelConfig& c, const Problem& given, ModuleEntries& entries) {
    const Problem p = kernel_problem(c, given);
    const std::string entry = main_entry_name(c, p);
    entries.names.insert(entry);
    // The direct generic entry's widths (and bwd_weight's row-tap counts) only where it runs:
    // a K x K entry's problem needs none of them.
    if (is_direct(c) && entry == kernel_entry_name()) {
        const int cpg = static_cast<int>(p.c_per_group());
        entries.cpgs.insert(cpg);
        if (c.variant == Variant::BwdWeight)
            entries.row_taps.insert({cpg, static_cast<int>(direct_row_taps(c, p))});
    }
}

ConvParams step_params(const LaunchSequence& sequence, const KernelStep& step,
                       const StepTensors& tensors) {
    ConvParams params = sequence.params;
    if (step.dout_as_input) {
        params.in = tensors.out;
        params.wei = step.stored_filter ? tensors.wei : tensors.workspace;
        params.out = const_cast<void*>(tensors.in);
    } else if (step.padded_operands) {
        params.in = tensors.workspace;
        params.wei = static_cast<const char*>(tensors.workspace) + sequence.padded_weight_offset;
        params.out = tensors.out;
    } else {
        params.in = tensors.in;
        params.wei = tensors.wei;
        params.out = tensors.out;
    }
    return params;
}

StepGrid step_grid(const KernelStep& step, unsigned multiprocessors) {
    if (!step.persistent) return {step.grid_x, step.grid_y, step.grid_z};
    const unsigned long long c = std::max(step.cluster, 1u);
    const unsigned long long groups =
        static_cast<unsigned long long>(step.grid_x) * ((step.grid_y + c - 1) / c) * step.grid_z;
    const unsigned long long slots = std::max<unsigned long long>(multiprocessors / c, 1);
    return {static_cast<unsigned>(c * std::min(groups, slots)), 1, 1};
}

} // namespace gconv
