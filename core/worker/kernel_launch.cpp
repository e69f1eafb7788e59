#include "worker/kernel_launch.h"

#include "gpu/hip_check.h"
#include "util/error.h"
#include "worker/cluster_occupancy.h"

#include <algorithm>
#include <iostream>

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

unsigned KernelLaunch::multiprocessors() {
    if (multiprocessors_ == 0) {
        int device = 0, count = 0;
        GCONV_HIP_CHECK(hipGetDevice(&device));
        GCONV_HIP_CHECK(
            hipDeviceGetAttribute(&count, hipDeviceAttributeMultiprocessorCount, device));
        multiprocessors_ = static_cast<unsigned>(std::max(count, 1));
    }
    return multiprocessors_;
}

unsigned KernelLaunch::persistent_blocks(const KernelStep& step) {
    if (step.cluster < 2) return multiprocessors();
    auto it = persistent_blocks_.find(step.entry);
    if (it == persistent_blocks_.end()) {
        const unsigned clusters =
            max_active_clusters(kernels_.at(step.entry).get(), step.cluster, step.block_threads,
                                static_cast<unsigned>(step.shared_bytes));
        const unsigned blocks =
            clusters > 0 ? std::min(multiprocessors(), clusters * step.cluster) : multiprocessors();
        it = persistent_blocks_.emplace(step.entry, blocks).first;
    }
    return it->second;
}

const WgmmaMaps& KernelLaunch::maps_for(const ConvParams& params) {
    const WgmmaTmaPlan& plan = sequence_.tma;
    const void* im2col_src = params.in;
    const void* tiled_src = plan.tiled_over_output ? params.out : params.wei;
    if (!maps_ready_ || maps_im2col_ != im2col_src || maps_tiled_ != tiled_src) {
        maps_ = encode_wgmma_maps(plan, im2col_src, tiled_src);
        maps_im2col_ = im2col_src;
        maps_tiled_ = tiled_src;
        maps_ready_ = true;
        // An eligible problem whose maps failed to encode runs the slower cp.async path;
        // say so once per launch object.
        if (plan.enabled && !plan.required && !maps_.maps.enabled && !maps_.user_off)
            std::cerr << "gconv: wgmma tensor maps not used: " << maps_.why << "\n";
    }
    // A kernel without a cp.async producer cannot run on disabled maps: refuse every launch.
    if (plan.required && !maps_.maps.enabled)
        throw Error("this wgmma kernel loads through tensor maps only, which are not available: " +
                    maps_.why);
    return maps_.maps;
}

void KernelLaunch::run(const LaunchTensors& tensors, void* workspace, hipStream_t stream) {
    const StepTensors slots{tensors.in, tensors.wei, tensors.out, workspace};
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
        const ConvParams params = step_params(sequence_, k, slots);
        gpu::KernelArgs args;
        args.add(params);
        if (k.workspace_arg) args.add(workspace);
        if (k.wgmma_maps) args.add(maps_for(params));
        gpu::LaunchConfig config;
        const StepGrid grid = step_grid(k, k.persistent ? persistent_blocks(k) : 0);
        config.grid = {grid.x, grid.y, grid.z};
        config.block = {k.block_threads, 1, 1};
        config.dynamic_shared_bytes = static_cast<unsigned>(k.shared_bytes);
        config.stream = stream;
        gpu::launch(kernels_.at(k.entry), config, args);
    }
}

} // namespace gconv::worker
