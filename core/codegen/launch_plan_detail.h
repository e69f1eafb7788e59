#pragma once
// Pieces launch_plan.cpp shares with the per-direction files (launch_plan_bwd.cpp); not an
// interface for other modules.
#include "codegen/launch_plan.h"

#include <sstream>

namespace gconv::detail {

inline int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// Collects the first violated rule of an is_supported check.
struct Reasons {
    std::ostringstream text;
    bool failed = false;
    template <typename... Parts> void fail(const Parts&... parts) {
        if (failed) return; // the first violated rule is the reason
        failed = true;
        (text << ... << parts);
    }
};

// Problem-dependent checks of the backward directions (the config-only rules ran already).
SupportCheck check_bwd_data(const KernelConfig& config, const Problem& problem, int warp_size);
SupportCheck check_bwd_weight(const KernelConfig& config, const Problem& problem, int warp_size);
LaunchPlan plan_backward(const KernelConfig& config, const Problem& problem, int warp_size);
// bwd_data: M tiles per stride phase (sized for the phase with the most input pixels).
int64_t bwd_data_tiles_per_phase(const KernelConfig& config, const Problem& problem);

} // namespace gconv::detail
