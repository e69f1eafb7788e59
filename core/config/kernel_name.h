#pragma once
// A kernel's name is its identity: every field that changes the compiled kernel appears in it,
// so two different kernels never share a name, and parsing a name gives the configuration back.
//
//   grouped_conv_{variant}_{dtype}_{nd}d_{tm}x{tn}x{tk}_{pipeline}_{scheduler}
//     _w{wm}x{wn}x{wk}_wt{wtm}x{wtn}x{wtk}_v{va}x{vb}x{vc}
//     [_ep{epilogue}][_bpc{n}][_wg{n}][_nopad{dims}][_l{layout}][_sk{n}]
//     [_gm{n}][_dsb][_si][_2stage]
//
// The prefix and the trailing suffixes keep CK's order; the middle adds what CK's name omits.
// Optional parts appear only when they differ from their defaults.
#include "config/kernel_config.h"

#include <string>
#include <string_view>

namespace gconv {

std::string kernel_name(const KernelConfig& config);
// Throws gconv::Error naming the part of the name that could not be read.
KernelConfig parse_kernel_name(std::string_view name);

} // namespace gconv
