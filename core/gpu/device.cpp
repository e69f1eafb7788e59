#include "gpu/device.h"

#include "gpu/hip_check.h"

#include <hip/hip_runtime_api.h>

#include <fstream>
#include <sstream>

namespace gconv::gpu {
namespace {

int attribute(hipDeviceAttribute_t attr, int device, const char* what) {
    int value = 0;
    const hipError_t status = hipDeviceGetAttribute(&value, attr, device);
    if (status != hipSuccess)
        throw GpuError(std::string("hipDeviceGetAttribute(") + what + ")", status, __FILE__,
                       __LINE__);
    return value;
}

} // namespace

std::string nvidia_arch_name(int major, int minor) {
    // Hopper's wgmma / setmaxnreg exist only for the arch-specific target sm_90a; a 9.0 device
    // runs sm_90a code, so `--arch auto` builds the wgmma kernels there.
    const std::string suffix = major == 9 && minor == 0 ? "a" : "";
    return "sm_" + std::to_string(major) + std::to_string(minor) + suffix;
}

std::string amd_arch_name(const std::string& gcn_arch_name) {
    return gcn_arch_name.substr(0, gcn_arch_name.find(':'));
}

const char* platform_name() {
#if defined(GCONV_HIP_PLATFORM_AMD)
    return "amd";
#else
    return "nvidia";
#endif
}

const char* visibility_variable() {
#if defined(GCONV_HIP_PLATFORM_AMD)
    return "HIP_VISIBLE_DEVICES";
#else
    return "CUDA_VISIBLE_DEVICES";
#endif
}

std::string kernel_driver_version() {
#if defined(GCONV_HIP_PLATFORM_AMD)
    std::ifstream in("/sys/module/amdgpu/version");
    std::string version;
    std::getline(in, version);
    return version;
#else
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 30 ..." or
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ...":
    // the first word after "Kernel Module" made of digits and dots.
    std::ifstream in("/proc/driver/nvidia/version");
    std::string line;
    std::getline(in, line);
    const auto at = line.find("Kernel Module");
    if (at == std::string::npos) return "";
    std::istringstream words(line.substr(at));
    for (std::string word; words >> word;)
        if (word.find('.') != std::string::npos &&
            word.find_first_not_of("0123456789.") == std::string::npos)
            return word;
    return "";
#endif
}

int device_count() {
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess) return 0;
    return count;
}

DeviceInfo query(int index) {
    const int count = device_count();
    if (index < 0 || index >= count) {
        throw GpuError("query(device " + std::to_string(index) + " of " + std::to_string(count) +
                           ")",
                       hipErrorInvalidDevice, __FILE__, __LINE__);
    }
    hipDeviceProp_t props{};
    GCONV_HIP_CHECK(hipGetDeviceProperties(&props, index));

    DeviceInfo info;
    info.index = index;
    info.name = props.name;
#if defined(GCONV_HIP_PLATFORM_AMD)
    info.arch = amd_arch_name(props.gcnArchName);
#else
    info.arch = nvidia_arch_name(props.major, props.minor);
#endif
    info.sm_count = props.multiProcessorCount;
    info.shared_per_block = props.sharedMemPerBlock;
    info.memory_bytes = props.totalGlobalMem;
    info.warp_size = props.warpSize;
    info.max_threads_per_block = props.maxThreadsPerBlock;
    info.registers_per_block = props.regsPerBlock;
    info.l2_bytes = std::size_t(props.l2CacheSize);
    info.shared_per_sm = props.maxSharedMemoryPerMultiProcessor;
#if defined(GCONV_HIP_PLATFORM_AMD)
    // AMD has no opt-in beyond the default LDS limit of a workgroup.
    info.shared_per_block_optin = props.sharedMemPerBlock;
#else
    // HIP 5.2's CUDA backend does not map hipDeviceAttributeSharedMemPerBlockOptin (it answers
    // hipErrorInvalidValue), so ask the CUDA runtime that HIP's headers already bring in.
    int optin = 0;
    const cudaError_t status =
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, index);
    if (status != cudaSuccess) {
        throw GpuError("cudaDeviceGetAttribute(MaxSharedMemoryPerBlockOptin)",
                       hipCUDAErrorTohipError(status), __FILE__, __LINE__);
    }
    info.shared_per_block_optin = std::size_t(optin);
#endif
    // CUDA 13 removed the clock fields from its device properties; the attributes remain.
    info.clock_khz = attribute(hipDeviceAttributeClockRate, index, "ClockRate");
    info.memory_clock_khz = attribute(hipDeviceAttributeMemoryClockRate, index, "MemoryClockRate");
    GCONV_HIP_CHECK(hipDriverGetVersion(&info.driver_version));
    GCONV_HIP_CHECK(hipRuntimeGetVersion(&info.runtime_version));
    char bus_id[64] = {};
    if (hipDeviceGetPCIBusId(bus_id, int(sizeof bus_id), index) == hipSuccess)
        info.pci_bus_id = bus_id;
    return info;
}

} // namespace gconv::gpu
