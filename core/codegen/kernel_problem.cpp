#include "codegen/kernel_problem.h"

#include "codegen/channel_pad.h"
#include "codegen/fold_to_2d.h"

namespace gconv {

Problem kernel_problem(const KernelConfig& c, const Problem& p) {
    Problem k = p;
    if (c.ndim_spatial == 2) {
        if (has_batch_depth(k))
            k = fold_depth(k);
        else if (has_pointwise_plane(k))
            k = fold_plane(k);
    }
    if (c.channel_pad && channel_pad_refusal(c, k).empty()) k = pad_channels(c, k);
    return k;
}

} // namespace gconv
