#include "jit/arch_options.h"

#include "util/error.h"

#include <regex>

namespace gconv::jit {

const char* to_string(Platform platform) {
    return platform == Platform::nvidia ? "nvidia" : "amd";
}

bool is_nvidia_arch(const std::string& arch) {
    static const std::regex pattern("^(sm_[0-9]{2,3}[af]?|compute_[0-9]{2,3}[af]?)$");
    return std::regex_match(arch, pattern);
}

bool is_amd_arch(const std::string& arch) {
    static const std::regex pattern("^gfx[0-9a-f]{3,4}(:[a-z]+[+-])*$");
    return std::regex_match(arch, pattern);
}

void check_arch(Platform platform, const std::string& arch) {
    if (platform == Platform::nvidia && !is_nvidia_arch(arch)) {
        throw Error("unknown NVIDIA arch '" + arch +
                    "': expected sm_<NN> (cubin, e.g. sm_90), sm_<NN>a / sm_<NN>f (e.g. sm_90a "
                    "for wgmma) or compute_<NN> (PTX)");
    }
    if (platform == Platform::amd && !is_amd_arch(arch)) {
        throw Error("unknown AMD arch '" + arch +
                    "': expected gfx<id> with optional features, e.g. gfx90a, gfx942, "
                    "gfx90a:xnack-");
    }
}

std::vector<std::string> platform_options(Platform platform, const std::string& arch) {
    check_arch(platform, arch);
    if (platform == Platform::nvidia) {
        // NVRTC optimises fully by default (there is no -O3 to pass); fast math stays off.
        return {"--gpu-architecture=" + arch, "-std=c++17", "-default-device",
                "-DGCONV_DEVICE_PLATFORM_NVIDIA=1"};
    }
    return {"--offload-arch=" + arch, "-O3", "-std=c++17", "-DGCONV_DEVICE_PLATFORM_AMD=1"};
}

} // namespace gconv::jit
