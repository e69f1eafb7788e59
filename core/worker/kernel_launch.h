#pragma once
// Executes a launch sequence (codegen/launch_sequence.h) on a stream: memsets of the named
// buffers, then each kernel with (params) or (params, workspace). The workspace is owned here
// and reused across runs while it is large enough. Every HIP call is checked (gpu/hip_check.h).
#include "codegen/launch_sequence.h"
#include "gpu/buffer.h"
#include "gpu/module.h"

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

    // Queues one complete run (zeroing included) on `stream`; allocates or grows the workspace
    // first when needed (outside of any timing: call prepare() before timed runs).
    void run(const LaunchTensors& tensors, hipStream_t stream);
    // Allocates the workspace now, so that timed runs only queue work.
    void prepare();

    const LaunchSequence& sequence() const { return sequence_; }
    std::size_t workspace_bytes() const { return sequence_.workspace_bytes; }

private:
    LaunchSequence sequence_;
    std::map<std::string, gpu::Kernel> kernels_;
    gpu::DeviceBuffer workspace_;
};

} // namespace gconv::worker
