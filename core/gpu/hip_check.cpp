#include "gpu/hip_check.h"

#include <filesystem>

namespace gconv::gpu {
namespace {

std::string describe(const std::string& call, hipError_t code, const char* file, int line) {
    const std::string where = std::filesystem::path(file).filename().string();
    return call + " failed with " + error_name(code) + " (" + std::to_string(int(code)) +
           "): " + hipGetErrorString(code) + " [" + where + ":" + std::to_string(line) + "]";
}

} // namespace

GpuError::GpuError(std::string call, hipError_t code, const char* file, int line)
    : std::runtime_error(describe(call, code, file, line)), call_(std::move(call)), code_(code),
      code_text_(hipGetErrorString(code)) {}

bool GpuError::sticky() const {
    return is_sticky_error(code_);
}
bool GpuError::out_of_memory() const {
    return is_out_of_memory_error(code_);
}

bool is_sticky_error(hipError_t code) {
    switch (code) {
    case hipErrorIllegalAddress:
    case hipErrorLaunchFailure:
    case hipErrorLaunchTimeOut:
    case hipErrorAssert:
    case hipErrorContextIsDestroyed:
    case hipErrorPriorLaunchFailure:
        return true;
    default:
        return false;
    }
}

bool is_out_of_memory_error(hipError_t code) {
    return code == hipErrorOutOfMemory;
}

std::string error_name(hipError_t code) {
    const char* name = hipGetErrorName(code);
    return name ? name : "hipError " + std::to_string(int(code));
}

} // namespace gconv::gpu
