#pragma once
// Executes a launch sequence (codegen/launch_sequence.h) on a stream: memsets of the named
// buffers, then each kernel with (params), (params, workspace) or, for a wgmma kernel,
// (params, tensor maps). The caller owns the workspace
// (a worker keeps one, grown when a cell needs more, so cells do not allocate or free device
// memory). Every HIP call is checked (gpu/hip_check.h).
#include "codegen/launch_sequence.h"
#include "gpu/module.h"
#include "worker/tma_maps.h"

#include <map>
#include <string>

namespace gconv::worker {

// The device tensors of one problem, in their ConvParams slots.
struct LaunchTensors {
    void* in = nullptr;
    void* wei = nullptr;
    void* out = nullptr;
};

class KernelLaunch {
public:
    // Looks up every entry the sequence names in `module` (GpuError if one is missing) and
    // raises their dynamic shared memory limits.
    KernelLaunch(const gpu::Module& module, LaunchSequence sequence);

    // Queues one complete run (zeroing included) on `stream`; only queues work. `workspace`
    // holds at least workspace_bytes() (may be null when that is 0).
    void run(const LaunchTensors& tensors, void* workspace, hipStream_t stream);

    const LaunchSequence& sequence() const { return sequence_; }
    std::size_t workspace_bytes() const { return sequence_.workspace_bytes; }

private:
    // The wgmma tensor maps, encoded for the input and weight of the step's arguments
    // (re-encoded when they change).
    const WgmmaMaps& maps_for(const ConvParams& params);
    // Multiprocessors of the current device: the block count of a persistent grid.
    unsigned multiprocessors();
    unsigned multiprocessors_ = 0;

    LaunchSequence sequence_;
    std::map<std::string, gpu::Kernel> kernels_;
    EncodedMaps maps_;
    const void* maps_in_ = nullptr;
    const void* maps_wei_ = nullptr;
    bool maps_ready_ = false;
};

} // namespace gconv::worker
