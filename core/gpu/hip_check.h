#pragma once
// Errors of the HIP host API as exceptions. GpuError keeps the failing call's text and the
// hipError_t code so that callers can decide whether the device is still usable.
#include <hip/hip_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gconv::gpu {

class GpuError : public std::runtime_error {
public:
    GpuError(std::string call, hipError_t code, const char* file, int line);

    const std::string& call() const { return call_; }
    hipError_t code() const { return code_; }
    // hipGetErrorString's text for code().
    const std::string& code_text() const { return code_text_; }
    bool sticky() const;
    bool out_of_memory() const;

private:
    std::string call_;
    hipError_t code_;
    std::string code_text_;
};

// A sticky error poisons the context: every later call in this process fails the same way,
// so the process (a worker) must exit and be restarted instead of trying the next kernel.
bool is_sticky_error(hipError_t code);
bool is_out_of_memory_error(hipError_t code);

std::string error_name(hipError_t code);

} // namespace gconv::gpu

#define GCONV_HIP_CHECK(call)                                                                      \
    do {                                                                                           \
        const hipError_t gconv_hip_status_ = (call);                                               \
        if (gconv_hip_status_ != hipSuccess)                                                       \
            throw ::gconv::gpu::GpuError(#call, gconv_hip_status_, __FILE__, __LINE__);            \
    } while (false)
