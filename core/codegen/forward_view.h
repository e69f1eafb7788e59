#pragma once
// bwd_data with stride 1 is a forward convolution: dIn[i] = sum_t dOut[i + pad - t * dil] w[t]
// is the convolution of dOut (the view's input: Do x Ho x Wo pixels of K channels) that gives
// dIn (the view's output: Di x Hi x Wi pixels of C channels), padded by (taps - 1) * dil - pad
// per dimension, with the filter rotated by 180 degrees and its two channel axes swapped.
// Kernels that run bwd_data this way (direct_mma, the wgmma pipeline) are forward kernels on
// that view, launched with dOut in the input slot and dIn in the output slot. The wgmma launch
// sequence first writes the view's filter into the workspace (gconv_rotate_filter,
// core/kernels/gconv_rotate.h) and passes the workspace as the weight; direct_mma takes the
// stored filter and reads it rotated while it stages it (KernelStep::stored_filter): one
// launch, no workspace.
#include "config/kernel_config.h"
#include "problem/problem.h"

#include <string>
#include <vector>

namespace gconv {

// A bwd_data kernel that runs as the forward kernel of the view (direct_mma, wgmma).
bool runs_forward_view(const KernelConfig& config);
// The same kernel as a forward kernel: what the view's launch compiles and plans.
KernelConfig forward_twin(const KernelConfig& config);
// The forward problem of a stride-1 bwd_data problem (2D and 3D).
Problem forward_view(const Problem& problem);
// The problem a kernel's main launch computes: the view for runs_forward_view(config) (direct_mma:
// the first of its phase views, bwd_data_phases), else the problem itself.
Problem launched_problem(const KernelConfig& config, const Problem& problem);
// Why the view cannot compute `problem` (a stride above 1, a pad above (taps - 1) x dilation),
// naming the field; empty when it can.
std::string forward_view_refusal(const Problem& problem);

// bwd_data with stride s > 1 along H or W as s_h x s_w forward convolutions of dOut (direct_mma):
// phase (rh, rw) computes the dIn pixels (rh + s_h i, rw + s_w j), which read the stored taps
// y = qh + s_h t (qh = (rh + pad_h) mod s_h) from dOut rows i + (rh + pad_h - qh) / s_h - t: a
// forward convolution of dOut with those taps rotated, padded by taps - 1 - (rh + pad_h - qh) /
// s_h before its first row. Along a dimension of stride 1 the phase is the view above. `view`
// is that convolution as a problem: its input extent counts the zero rows and columns past dOut's
// end that its last outputs read, so view.Ho() / Wo() are the phase's dIn rows / columns (the
// kernel reads dOut with its real extent; gconv_direct_mma.h bwd_data_view is the device side).
struct ViewPhase {
    Problem view;
    int64_t rh = 0, rw = 0; // the phase: first dIn row and column
    int64_t qh = 0, qw = 0; // its first stored tap row and column (0 along stride 1)
};
// The phases in launch order (rh * stride_w + rw): one for a stride-1 problem.
std::vector<ViewPhase> bwd_data_phases(const Problem& problem);
// Why the phases cannot compute `problem` (stride along depth, dilation with a stride, a stride
// above the filter, a pad or an image too small for a phase), naming the field; empty when they
// can.
std::string bwd_data_phases_refusal(const Problem& problem);

// The view filter's writer: entry name, threads per block and block cap of its grid-stride loop.
std::string_view rotate_filter_entry_name();
inline constexpr unsigned k_rotate_filter_threads = 256;
inline constexpr unsigned k_rotate_filter_max_blocks = 1024;

} // namespace gconv
