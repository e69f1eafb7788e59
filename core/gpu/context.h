#pragma once
// The device's primary context, made current on the calling thread.
//
// On NVIDIA the HIP module API (hipModuleLoadData, hipModuleLaunchKernel) is the CUDA driver
// API, which needs a current context; the runtime API creates the primary context lazily, so a
// module load as the first GPU call fails with "invalid device context". hipSetDevice plus a
// no-op runtime call (hipFree(nullptr)) creates the primary context and makes it current.

namespace gconv::gpu {

// Makes `device`'s primary context current on this thread; cheap when already done.
// Every thread that loads modules or launches kernels must call it once.
void make_context_current(int device);

// RAII form for a worker's main: selects the device for the object's lifetime.
class ContextScope {
public:
    explicit ContextScope(int device);
    int device() const { return device_; }

private:
    int device_;
};

} // namespace gconv::gpu
