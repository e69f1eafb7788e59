#include "sweep/cell_pipeline.h"

namespace gconv {

bool run_cell_pipeline(std::size_t count, CellPipelineSteps& steps) {
    if (count == 0) return true;
    steps.prepare(0);
    for (std::size_t i = 0; i < count; ++i) {
        steps.announce(i);
        steps.start(i);
        // The GPU is busy with cell i now: the host gets cell i+1 ready meanwhile.
        if (i + 1 < count) steps.prepare(i + 1);
        if (!steps.finish(i)) return false;
    }
    return true;
}

} // namespace gconv
