#pragma once
// Pieces launch_plan.cpp shares with the per-direction and per-pipeline files
// (launch_plan_bwd.cpp, launch_plan_direct*.cpp); not an interface for other modules.
#include "codegen/launch_plan.h"

#include <cstdint>
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

// The problem's input, output and weight tensors all fit the 32-bit element offsets of the
// kernels that address whole tensors (direct, direct_mma).
inline bool fits_int_offsets(const Problem& p) {
    return p.input_elements() <= INT32_MAX && p.output_elements() <= INT32_MAX &&
           p.weight_elements() <= INT32_MAX;
}

// The last rule of the direct pipelines' checks: their grid (x, y; z is 1) is launchable.
inline SupportCheck check_xy_grid(const LaunchPlan& plan) {
    if (plan.grid_x == 0 || plan.grid_y == 0 || plan.grid_y > 65535) {
        std::ostringstream text;
        text << "grid: " << plan.grid_x << " x " << plan.grid_y << " exceeds the launch limits";
        return {false, text.str()};
    }
    return {true, {}};
}

// Problem-dependent checks of the backward directions (the config-only rules ran already).
SupportCheck check_bwd_data(const KernelConfig& config, const Problem& problem, int warp_size);
SupportCheck check_bwd_weight(const KernelConfig& config, const Problem& problem, int warp_size);
LaunchPlan plan_backward(const KernelConfig& config, const Problem& problem, int warp_size);
// bwd_data: M tiles per stride phase (sized for the phase with the most input pixels).
int64_t bwd_data_tiles_per_phase(const KernelConfig& config, const Problem& problem);

} // namespace gconv::detail
