#include "worker/cuda_driver.h"

#include <dlfcn.h>

namespace gconv::worker {

void* cuda_driver_symbol(const char* name, std::string* why) {
#if defined(GCONV_HIP_PLATFORM_NVIDIA)
    static std::string open_error;
    static void* const lib = [] {
        void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle) open_error = std::string("libcuda.so.1 not loaded: ") + dlerror();
        return handle;
    }();
    if (!lib) {
        if (why) *why = open_error;
        return nullptr;
    }
    void* symbol = dlsym(lib, name);
    if (!symbol && why) *why = std::string("libcuda.so.1 lacks ") + name;
    return symbol;
#else
    (void)name;
    if (why) *why = "the CUDA driver exists on NVIDIA only";
    return nullptr;
#endif
}

} // namespace gconv::worker
