#pragma once
// The extern "C" entry points that end every generated kernel TU: the main kernel, which calls
// the pipeline's device function for the config's variant, and the bwd_weight finish kernel
// where the split-K reduction needs one (has_finish_kernel).
#include "config/kernel_config.h"

#include <ostream>
#include <string_view>

namespace gconv {

// The pipeline's device function per variant, each a template on GconvConfig (e.g.
// "gconv::fwd::run"); empty for a variant the pipeline does not implement.
struct EntryCalls {
    std::string_view forward;
    std::string_view bwd_data;
    std::string_view bwd_weight;
};

// Writes the entry points of a block of `warps` warps. A wgmma kernel (forward, bwd_weight) also
// takes the tensor maps (a __grid_constant__ WgmmaMaps, last). A variant without a call throws
// gconv::Error.
void write_entry_points(std::ostream& s, const KernelConfig& c, int warps, const EntryCalls& calls);
// The finish entry of split-K (finish_entry_name(): the fp32 workspace converted into dW or
// the output), calling `call`<GconvConfig>(p, workspace).
void write_finish_entry(std::ostream& s, std::string_view call);

} // namespace gconv
