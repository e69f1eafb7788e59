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
    // The wgmma tensor maps, encoded for the tensors of the step's arguments they describe
    // (re-encoded when those change); throws gconv::Error for a plan that requires maps which
    // could not be encoded.
    const WgmmaMaps& maps_for(const ConvParams& params);
    // Multiprocessors of the current device: the block count of a persistent grid.
    unsigned multiprocessors();
    unsigned multiprocessors_ = 0;
    // The blocks a persistent step may launch: the multiprocessors, or for a cluster kernel the
    // blocks of the clusters that fit at once (worker/cluster_occupancy.h), per entry.
    unsigned persistent_blocks(const KernelStep& step);
    std::map<std::string, unsigned> persistent_blocks_;

    LaunchSequence sequence_;
    std::map<std::string, gpu::Kernel> kernels_;
    EncodedMaps maps_;
    const void* maps_im2col_ = nullptr;
    const void* maps_tiled_ = nullptr;
    bool maps_ready_ = false;
};

} // namespace gconv::worker
