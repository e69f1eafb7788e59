#include "codegen/kernel_entry.h"

#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "config/kernel_name.h"
#include "util/error.h"

#include <string>

namespace gconv {
namespace {

std::string_view call_for(const KernelConfig& c, const EntryCalls& calls) {
    const std::string_view call = c.variant == Variant::Forward   ? calls.forward
                                  : c.variant == Variant::BwdData ? calls.bwd_data
                                                                  : calls.bwd_weight;
    if (call.empty())
        throw Error("kernel " + kernel_name(c) + ": the " + std::string(to_string(c.pipeline)) +
                    " pipeline has no " + std::string(to_string(c.variant)) + " kernel");
    return call;
}

} // namespace

void write_entry_points(std::ostream& s, const KernelConfig& c, int warps,
                        const EntryCalls& calls) {
    const std::string_view call = call_for(c, calls);
    s << "extern \"C\" __global__ void GCONV_LAUNCH_BOUNDS(GCONV_WARP_SIZE * " << warps << ", "
      << c.block_per_cu << ")";
    if (c.cluster_n > 1 || c.cluster_k > 1)
        s << " GCONV_CLUSTER_DIMS(" << c.cluster_n * c.cluster_k << ")";
    s << "\n";
    switch (c.variant) {
    case Variant::Forward: {
        // Split-K adds into a workspace: the kernel takes it after the params.
        const bool ws = c.split_k > 1;
        const char* ws_param = ws ? ", void* workspace" : "";
        const char* ws_arg = ws ? ", workspace" : "";
        if (uses_wgmma(c))
            s << kernel_entry_name() << "(gconv::ConvParams p" << ws_param
              << ", const __grid_constant__ gconv::WgmmaMaps maps) {\n"
              << "    " << call << "<GconvConfig>(p" << ws_arg << ", maps);\n}\n";
        else
            s << kernel_entry_name() << "(gconv::ConvParams p" << ws_param << ") {\n"
              << "    " << call << "<GconvConfig>(p" << ws_arg << ");\n}\n";
        if (has_finish_kernel(c)) write_finish_entry(s, "gconv::fwd::finish");
        break;
    }
    case Variant::BwdData:
        s << kernel_entry_name() << "(gconv::ConvParams p, void* workspace) {\n"
          << "    (void)workspace;\n    " << call << "<GconvConfig>(p);\n}\n";
        break;
    case Variant::BwdWeight:
        if (uses_wgmma(c))
            s << kernel_entry_name()
              << "(gconv::ConvParams p, void* workspace, const __grid_constant__ gconv::WgmmaMaps "
                 "maps) {\n"
              << "    " << call << "<GconvConfig>(p, workspace, maps);\n}\n";
        else
            s << kernel_entry_name() << "(gconv::ConvParams p, void* workspace) {\n"
              << "    " << call << "<GconvConfig>(p, workspace);\n}\n";
        if (has_finish_kernel(c)) write_finish_entry(s, "gconv::bwd_weight::finish");
        break;
    }
}

void write_finish_entry(std::ostream& s, std::string_view call) {
    s << "extern \"C\" __global__ void " << finish_entry_name()
      << "(gconv::ConvParams p, void* workspace) {\n"
      << "    " << call << "<GconvConfig>(p, workspace);\n}\n";
}

} // namespace gconv
