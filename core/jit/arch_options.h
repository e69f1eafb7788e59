#pragma once
// Compile targets and the compiler options each platform gets, free of HIP headers so that
// the AMD compile check can use the AMD set inside an NVIDIA build.
#include <string>
#include <vector>

namespace gconv::jit {

enum class Platform { nvidia, amd };
const char* to_string(Platform platform);

// Accepts "sm_90", "sm_90a", "sm_100f" (a real target: cubin) and "compute_90" (PTX only).
bool is_nvidia_arch(const std::string& arch);
// Accepts "gfx90a", "gfx942", optionally with target features ("gfx90a:xnack-").
bool is_amd_arch(const std::string& arch);

// Throws gconv::Error naming the arch and the accepted forms when it does not fit `platform`.
void check_arch(Platform platform, const std::string& arch);

// The options gconv always passes, before a request's own: the target, C++17, device code
// by default (NVIDIA), full optimisation, no fast math, and GCONV_DEVICE_PLATFORM_<X>=1 so that
// device templates can tell the platforms apart without vendor headers.
std::vector<std::string> platform_options(Platform platform, const std::string& arch);

// Bumped whenever platform_options changes, so that cached code built with old options is
// not reused.
inline constexpr const char* k_options_revision = "gconv-options-1";

} // namespace gconv::jit
