#pragma once
// The order in which a worker takes the cells of a batch (docs/worker-protocol.md, "Order of
// work inside a batch"). The host-only preparation of the next cell (code object load, kernel
// lookup, launch plan) overlaps the GPU's work on the current one, while the announcement and
// the GPU work of every cell stay strictly in turn:
//
//   prepare(0)
//   announce(0) start(0) prepare(1) finish(0)
//   announce(1) start(1) prepare(2) finish(1)  ...
//
// so cell i+1 is announced only after cell i's result, and touches the GPU only after its
// announcement. Kept free of any GPU type so that the order can be tested without a device.
#include <cstddef>

namespace gconv {

class CellPipelineSteps {
public:
    virtual ~CellPipelineSteps() = default;
    // Host work only, nothing queued on the GPU. Runs while the cell before is in flight, so a
    // failure must not be thrown: it is kept and becomes the cell's result after its announcement.
    virtual void prepare(std::size_t cell) = 0;
    // Writes the cell's "begin" and flushes it (with any result still buffered before it).
    virtual void announce(std::size_t cell) = 0;
    // Queues the cell's GPU work without waiting for it; failures are kept for finish().
    virtual void start(std::size_t cell) = 0;
    // Waits for the cell's GPU work and writes its result. False stops the batch (the GPU is
    // unusable); the cell prepared after it is then never announced.
    virtual bool finish(std::size_t cell) = 0;
};

// Runs cells 0 .. count-1 in the order above. Returns false when finish() stopped the batch.
bool run_cell_pipeline(std::size_t count, CellPipelineSteps& steps);

} // namespace gconv
