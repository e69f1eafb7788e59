#include "jit/compiler.h"

#include "codegen/embedded_files.h"

#include <hip/hiprtc.h>

#include <chrono>

namespace gconv::jit {
namespace {

std::string program_log(hiprtcProgram program) {
    std::size_t size = 0;
    if (hiprtcGetProgramLogSize(program, &size) != HIPRTC_SUCCESS || size <= 1) return {};
    std::string log(size, '\0');
    if (hiprtcGetProgramLog(program, log.data()) != HIPRTC_SUCCESS) return {};
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
}

// Reads the code object of a compiled program; returns an error text or "".
std::string read_code(hiprtcProgram program, const std::string& arch, CompileResult& out) {
    std::size_t size = 0;
#if defined(GCONV_HIP_PLATFORM_NVIDIA)
    if (arch.rfind("sm_", 0) == 0) {
        if (nvrtcGetCUBINSize(program, &size) != NVRTC_SUCCESS || size == 0)
            return "nvrtcGetCUBINSize gave no cubin";
        out.code.resize(size);
        if (nvrtcGetCUBIN(program, out.code.data()) != NVRTC_SUCCESS) return "nvrtcGetCUBIN failed";
        out.kind = CodeKind::cubin;
        return {};
    }
    out.kind = CodeKind::ptx;
#else
    (void)arch;
    out.kind = CodeKind::hsaco;
#endif
    if (hiprtcGetCodeSize(program, &size) != HIPRTC_SUCCESS || size == 0)
        return "hiprtcGetCodeSize gave no code";
    out.code.resize(size);
    if (hiprtcGetCode(program, out.code.data()) != HIPRTC_SUCCESS) return "hiprtcGetCode failed";
    return {};
}

} // namespace

Platform native_platform() {
#if defined(GCONV_HIP_PLATFORM_NVIDIA)
    return Platform::nvidia;
#else
    return Platform::amd;
#endif
}

std::string compiler_version() {
    int major = 0, minor = 0;
    hiprtcVersion(&major, &minor);
    const char* name = native_platform() == Platform::nvidia ? "nvrtc " : "hiprtc ";
    return name + std::to_string(major) + "." + std::to_string(minor);
}

std::string default_arch() {
    return native_platform() == Platform::nvidia ? "sm_90" : "gfx90a";
}

std::vector<std::string> effective_options(const CompileRequest& request) {
    std::vector<std::string> options = platform_options(native_platform(), request.arch);
    options.insert(options.end(), request.options.begin(), request.options.end());
    return options;
}

CompileResult compile(const CompileRequest& request) {
    const std::vector<std::string> options = effective_options(request);
    const auto start = std::chrono::steady_clock::now();
    CompileResult out;

    std::vector<const char*> header_texts, header_names, option_ptrs;
    for (const NamedHeader& header : request.headers) {
        header_texts.push_back(header.contents.c_str());
        header_names.push_back(header.name.c_str());
    }
    for (const std::string& option : options) option_ptrs.push_back(option.c_str());

    hiprtcProgram program = nullptr;
    hiprtcResult status =
        hiprtcCreateProgram(&program, request.source.c_str(), request.name.c_str(),
                            int(header_texts.size()), header_texts.data(), header_names.data());
    if (status != HIPRTC_SUCCESS) {
        out.log = std::string("hiprtcCreateProgram failed: ") + hiprtcGetErrorString(status);
    } else {
        status = hiprtcCompileProgram(program, int(option_ptrs.size()), option_ptrs.data());
        out.log = program_log(program);
        if (status == HIPRTC_SUCCESS) {
            const std::string error = read_code(program, request.arch, out);
            out.ok = error.empty();
            if (!out.ok) {
                out.code.clear();
                out.log += (out.log.empty() ? "" : "\n") + error;
            }
        } else if (out.log.empty()) {
            out.log = std::string("hiprtcCompileProgram failed: ") + hiprtcGetErrorString(status);
        }
        hiprtcDestroyProgram(&program);
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

std::vector<NamedHeader> embedded_headers() {
    std::vector<NamedHeader> headers;
    for (const EmbeddedFile& file : embedded::files()) {
        headers.push_back({std::string(file.name), std::string(file.contents)});
    }
    return headers;
}

} // namespace gconv::jit
