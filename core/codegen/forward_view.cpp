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
    if (!runs_forward_view(c)) return p;
    return is_direct_mma(c) ? bwd_data_phases(p).front().view : forward_view(p);
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

namespace {

// One dimension of a phase: stride s, taps f, pad, phase r, dIn extent n; the view's taps, its
// pad before the first row, its output extent and the first stored tap (bwd_data_view on the
// device computes the same).
struct PhaseDim {
    int64_t taps, pad, out, q;
};
PhaseDim phase_dim(int64_t s, int64_t f, int64_t pad, int64_t r, int64_t n) {
    PhaseDim d;
    d.q = (r + pad) % s;
    d.taps = (f - d.q + s - 1) / s;
    d.pad = d.taps - 1 - (r + pad - d.q) / s;
    d.out = n > r ? (n - r + s - 1) / s : 0;
    return d;
}

// Applies a phase dimension to the view: taps, pad, stride 1, dilation 1, and an input extent
// whose convolution has d.out outputs.
void apply(const PhaseDim& d, int64_t& taps, int64_t& pad, int64_t& stride, int64_t& dilation,
           int64_t& input) {
    taps = d.taps, pad = d.pad, stride = 1, dilation = 1;
    input = d.out - 2 * d.pad + d.taps - 1;
}

} // namespace

std::vector<ViewPhase> bwd_data_phases(const Problem& p) {
    std::vector<ViewPhase> phases;
    for (int64_t rh = 0; rh < p.stride_h; ++rh)
        for (int64_t rw = 0; rw < p.stride_w; ++rw) {
            ViewPhase ph;
            ph.view = forward_view(p);
            ph.rh = rh, ph.rw = rw;
            if (p.stride_h > 1) {
                const PhaseDim d = phase_dim(p.stride_h, p.Y, p.pad_h, rh, p.Hi);
                apply(d, ph.view.Y, ph.view.pad_h, ph.view.stride_h, ph.view.dilation_h,
                      ph.view.Hi);
                ph.qh = d.q;
            }
            if (p.stride_w > 1) {
                const PhaseDim d = phase_dim(p.stride_w, p.X, p.pad_w, rw, p.Wi);
                apply(d, ph.view.X, ph.view.pad_w, ph.view.stride_w, ph.view.dilation_w,
                      ph.view.Wi);
                ph.qw = d.q;
            }
            phases.push_back(ph);
        }
    return phases;
}

std::string bwd_data_phases_refusal(const Problem& p) {
    std::ostringstream why;
    if (p.stride_d != 1) {
        why << "stride_d: bwd_data phases run along H and W only (got stride_d " << p.stride_d
            << ")";
        return why.str();
    }
    struct Dim {
        const char* name;
        int64_t stride, taps, dilation, pad, extent;
    };
    const Dim dims[] = {{"h", p.stride_h, p.Y, p.dilation_h, p.pad_h, p.Hi},
                        {"w", p.stride_w, p.X, p.dilation_w, p.pad_w, p.Wi}};
    for (const Dim& d : dims) {
        if (d.stride == 1) continue;
        if (d.dilation != 1)
            why << "dilation_" << d.name << ": bwd_data phases need dilation 1 with stride "
                << d.stride << " (got " << d.dilation << ")";
        else if (d.stride > d.taps)
            why << "stride_" << d.name << ": " << d.stride << " is over the filter's " << d.taps
                << " taps, so some dIn pixels get no tap (bwd_data phases need stride <= filter)";
        else if (d.extent < d.stride)
            why << "input: " << d.extent << " pixels along " << d.name
                << " leave a bwd_data phase of stride " << d.stride << " empty";
        if (!why.str().empty()) return why.str();
    }
    for (const ViewPhase& ph : bwd_data_phases(p)) {
        const Problem& v = ph.view;
        if (v.pad_h < 0 || v.pad_w < 0 || v.pad_d < 0) {
            why << "pad: " << p.pad_h << "x" << p.pad_w
                << " is too large for bwd_data as forward convolutions of dOut (phase " << ph.rh
                << "," << ph.rw << " would start past its first row)";
            return why.str();
        }
        if (const std::vector<std::string> e = validate(v); !e.empty()) {
            why << "input: too small for bwd_data phase " << ph.rh << "," << ph.rw << " ("
                << e.front() << ")";
            return why.str();
        }
    }
    return {};
}

std::string_view rotate_filter_entry_name() {
    return "gconv_rotate_filter";
}

} // namespace gconv
