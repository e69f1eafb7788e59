#include "worker/kernel_launch.h"

#include "gpu/hip_check.h"

namespace gconv::worker {

KernelLaunch::KernelLaunch(const gpu::Module& module, LaunchSequence sequence)
    : sequence_(std::move(sequence)) {
    for (const LaunchStep& step : sequence_.steps) {
        if (step.kind != LaunchStep::Kind::Kernel) continue;
        auto it = kernels_.find(step.kernel.entry);
        if (it == kernels_.end())
            it = kernels_.emplace(step.kernel.entry, module.function(step.kernel.entry)).first;
        it->second.allow_dynamic_shared(step.kernel.shared_bytes);
    }
}

void KernelLaunch::prepare() {
    if (workspace_.bytes() < sequence_.workspace_bytes)
        workspace_ = gpu::DeviceBuffer(sequence_.workspace_bytes);
}

void KernelLaunch::run(const LaunchTensors& tensors, hipStream_t stream) {
    prepare();
    ConvParams params = sequence_.params;
    params.in = tensors.in;
    params.wei = tensors.wei;
    params.out = tensors.out;
    void* workspace = workspace_.data();
    for (const LaunchStep& step : sequence_.steps) {
        if (step.kind == LaunchStep::Kind::Memset) {
            void* base = nullptr;
            switch (step.memset.buffer) {
            case LaunchBuffer::Input:
                base = tensors.in;
                break;
            case LaunchBuffer::Weight:
                base = tensors.wei;
                break;
            case LaunchBuffer::Output:
                base = tensors.out;
                break;
            case LaunchBuffer::Workspace:
                base = workspace;
                break;
            }
            GCONV_HIP_CHECK(hipMemsetAsync(base, 0, step.memset.bytes, stream));
            continue;
        }
        const KernelStep& k = step.kernel;
        gpu::KernelArgs args;
        args.add(params);
        if (k.workspace_arg) args.add(workspace);
        gpu::LaunchConfig config;
        config.grid = {k.grid_x, k.grid_y, k.grid_z};
        config.block = {k.block_threads, 1, 1};
        config.dynamic_shared_bytes = static_cast<unsigned>(k.shared_bytes);
        config.stream = stream;
        gpu::launch(kernels_.at(k.entry), config, args);
    }
}

} // namespace gconv::worker
