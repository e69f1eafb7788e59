#pragma once
// The platform's JIT compiler: hipRTC, which on NVIDIA is HIP's mapping onto NVRTC.
//
// On NVIDIA the code object is a cubin for sm_<NN> targets, read with nvrtcGetCUBIN: HIP 5.2's
// hiprtcGetCode maps to nvrtcGetPTX, and loading PTX would make the driver JIT-compile it again
// at every module load. compute_<NN> targets give PTX.
#include "jit/arch_options.h"
#include "jit/compile_types.h"

#include <string>
#include <vector>

namespace gconv::jit {

Platform native_platform();

// "nvrtc 13.0" / "hiprtc 5.2"; part of every cache key.
std::string compiler_version();

// The arch the platform's own compiler targets when none is given.
std::string default_arch();

// The request's options after the platform's (see platform_options).
std::vector<std::string> effective_options(const CompileRequest& request);

// Compiles with the native compiler. A source that does not compile gives ok = false and the
// log; only a bad arch string throws (gconv::Error).
CompileResult compile(const CompileRequest& request);

// The device templates embedded at build time (core/kernels/*.h) as named headers.
std::vector<NamedHeader> embedded_headers();

} // namespace gconv::jit
