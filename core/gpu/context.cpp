#include "gpu/context.h"

#include "gpu/hip_check.h"

namespace gconv::gpu {

void make_context_current(int device) {
    // One thread may switch devices, so remember which one it made current.
    thread_local int current_device = -1;
    if (current_device == device) return;
    GCONV_HIP_CHECK(hipSetDevice(device));
    GCONV_HIP_CHECK(hipFree(nullptr));
    current_device = device;
}

ContextScope::ContextScope(int device) : device_(device) {
    make_context_current(device);
}

} // namespace gconv::gpu
