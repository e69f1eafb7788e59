#include "codegen/forward_view.h"

#include "codegen/direct_mma_plan.h"
#include "codegen/launch_plan.h"

#include <sstream>

namespace gconv {

bool runs_forward_view(const KernelConfig& c) {
    return c.variant == Variant::BwdData && (is_direct_mma(c) || uses_wgmma(c));
}

KernelConfig forward_twin(const KernelConfig& c) {
    KernelConfig f = c;
    f.variant = Variant::Forward;
    return f;
}

Problem forward_view(const Problem& p) {
    Problem v = p;
    v.C = p.K, v.K = p.C;
    v.Di = p.Do(), v.Hi = p.Ho(), v.Wi = p.Wo();
    v.pad_d = (p.Z - 1) * p.dilation_d - p.pad_d;
    v.pad_h = (p.Y - 1) * p.dilation_h - p.pad_h;
    v.pad_w = (p.X - 1) * p.dilation_w - p.pad_w;
    return v;
}

Problem launched_problem(const KernelConfig& c, const Problem& p) {
    return runs_forward_view(c) ? forward_view(p) : p;
}

std::string forward_view_refusal(const Problem& p) {
    std::ostringstream why;
    if (p.stride_d != 1 || p.stride_h != 1 || p.stride_w != 1) {
        why << "stride: bwd_data as the forward convolution of dOut needs stride 1 (got ";
        if (p.ndim_spatial == 3) why << p.stride_d << "x";
        why << p.stride_h << "x" << p.stride_w << ")";
    } else if (p.pad_d > (p.Z - 1) * p.dilation_d || p.pad_h > (p.Y - 1) * p.dilation_h ||
               p.pad_w > (p.X - 1) * p.dilation_w) {
        why << "pad: bwd_data as the forward convolution of dOut needs pad <= (filter - 1) x "
               "dilation (got ";
        if (p.ndim_spatial == 3) why << p.pad_d << "x";
        why << p.pad_h << "x" << p.pad_w << ")";
    }
    return why.str();
}

std::string_view rotate_filter_entry_name() {
    return "gconv_rotate_filter";
}

} // namespace gconv
