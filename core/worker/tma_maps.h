#pragma once
// Encodes the two tensor maps of a wgmma kernel (kernels/gconv_params.h WgmmaMaps) for a pair
// of device tensors through the driver's cuTensorMapEncodeIm2col / cuTensorMapEncodeTiled,
// looked up at run time in libcuda (gconv links only HIP). Any failure, an AMD build, or
// GCONV_WGMMA_TMA=0 in the environment yields maps with enabled = 0: the kernel then loads
// with cp.async, which computes the same result (a plan with `required` has no such
// fallback; the launch refuses to run it).
#include "codegen/wgmma_tma.h"
#include "kernels/gconv_params.h"

#include <string>

namespace gconv::worker {

struct EncodedMaps {
    WgmmaMaps maps{};
    std::string why;       // empty when maps.enabled
    bool user_off = false; // GCONV_WGMMA_TMA=0: cp.async by request, nothing to report
};

// im2col_src: the input tensor (plan.im2col, or plan.input_tile where plan.input_tiled and
// GCONV_WGMMA_INPUT_TILED=1); tiled_src: the tensor of plan.tiled (the filter, or dOut
// where plan.tiled_over_output).
EncodedMaps encode_wgmma_maps(const WgmmaTmaPlan& plan, const void* im2col_src,
                              const void* tiled_src);

} // namespace gconv::worker
