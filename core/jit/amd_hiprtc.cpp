#include "jit/amd_hiprtc.h"

#include "gpu/shared_library.h"
#include "jit/arch_options.h"
#include "util/error.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <vector>

namespace gconv::jit {
namespace {

// ROCm's hipRTC C interface, declared here because its header cannot be included beside
// HIP's NVIDIA one. hiprtcResult is an int-sized enum with 0 for success.
using Program = void*;
using Result = int;
constexpr Result k_success = 0;

std::vector<std::string> candidates(const std::string& library) {
    std::vector<std::string> out;
    if (!library.empty()) out.push_back(library);
    if (const char* env = std::getenv("GCONV_AMD_HIPRTC"); env && *env) out.push_back(env);
#ifdef GCONV_AMD_HIPRTC_LIBRARY_PATH
    out.push_back(GCONV_AMD_HIPRTC_LIBRARY_PATH);
#endif
    // No search by soname: a libhiprtc.so that happens to be on the loader path of a CUDA
    // machine can bring a second LLVM into the process (seen on the H200 image: "Option
    // 'disassemble' registered more than once", an abort). Only a library configure found
    // next to ROCm's hiprtc-builtins, or one named explicitly, is loaded.
    return out;
}

} // namespace

struct AmdHiprtc::Api {
    void* handle = nullptr;
    Result (*create)(Program*, const char*, const char*, int, const char**, const char**) = nullptr;
    Result (*compile)(Program, int, const char**) = nullptr;
    Result (*destroy)(Program*) = nullptr;
    Result (*log_size)(Program, std::size_t*) = nullptr;
    Result (*log)(Program, char*) = nullptr;
    Result (*code_size)(Program, std::size_t*) = nullptr;
    Result (*code)(Program, char*) = nullptr;
    Result (*version)(int*, int*) = nullptr;
    const char* (*error_string)(Result) = nullptr;

    ~Api() {
        if (handle) dlclose(handle);
    }
};

AmdHiprtc::AmdHiprtc(const std::string& library) : api_(std::make_unique<Api>()) {
    std::string tried;
    api_->handle = open_first_library(candidates(library), tried, &path_);
    if (!api_->handle)
        throw Error("cannot load ROCm's hipRTC; tried: " + (tried.empty() ? "nothing" : tried));

    std::string missing;
    bind_symbol(api_->handle, "hiprtcCreateProgram", api_->create, missing);
    bind_symbol(api_->handle, "hiprtcCompileProgram", api_->compile, missing);
    bind_symbol(api_->handle, "hiprtcDestroyProgram", api_->destroy, missing);
    bind_symbol(api_->handle, "hiprtcGetProgramLogSize", api_->log_size, missing);
    bind_symbol(api_->handle, "hiprtcGetProgramLog", api_->log, missing);
    bind_symbol(api_->handle, "hiprtcGetCodeSize", api_->code_size, missing);
    bind_symbol(api_->handle, "hiprtcGetCode", api_->code, missing);
    bind_symbol(api_->handle, "hiprtcVersion", api_->version, missing);
    bind_symbol(api_->handle, "hiprtcGetErrorString", api_->error_string, missing);
    if (!missing.empty())
        throw Error(path_ + " has no symbol " + missing + ": not a hipRTC library");
}

AmdHiprtc::~AmdHiprtc() = default;

bool AmdHiprtc::available(const std::string& library) {
    try {
        AmdHiprtc probe(library);
        return true;
    } catch (const Error&) {
        return false;
    }
}

std::string AmdHiprtc::version() const {
    int major = 0, minor = 0;
    api_->version(&major, &minor);
    return "hiprtc " + std::to_string(major) + "." + std::to_string(minor);
}

CompileResult AmdHiprtc::compile(const CompileRequest& request) const {
    std::vector<std::string> options = platform_options(Platform::amd, request.arch);
    options.insert(options.end(), request.options.begin(), request.options.end());
    const auto start = std::chrono::steady_clock::now();
    CompileResult out;

    std::vector<const char*> texts, names, option_ptrs;
    for (const NamedHeader& header : request.headers) {
        texts.push_back(header.contents.c_str());
        names.push_back(header.name.c_str());
    }
    for (const std::string& option : options) option_ptrs.push_back(option.c_str());

    Program program = nullptr;
    Result status = api_->create(&program, request.source.c_str(), request.name.c_str(),
                                 int(texts.size()), texts.data(), names.data());
    if (status != k_success) {
        out.log = std::string("hiprtcCreateProgram failed: ") + api_->error_string(status);
    } else {
        status = api_->compile(program, int(option_ptrs.size()), option_ptrs.data());
        std::size_t size = 0;
        if (api_->log_size(program, &size) == k_success && size > 1) {
            out.log.assign(size, '\0');
            api_->log(program, out.log.data());
            while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n'))
                out.log.pop_back();
        }
        if (status == k_success && api_->code_size(program, &size) == k_success && size > 0) {
            out.code.resize(size);
            out.ok = api_->code(program, out.code.data()) == k_success;
            out.kind = out.ok ? CodeKind::hsaco : CodeKind::none;
            if (!out.ok) out.code.clear();
        }
        if (!out.ok && out.log.empty())
            out.log = std::string("hiprtcCompileProgram failed: ") + api_->error_string(status);
        api_->destroy(&program);
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

Toolchain AmdHiprtc::toolchain() const {
    return {std::string("amd ") + version() + " " + k_options_revision,
            [this](const CompileRequest& request) { return compile(request); }};
}

} // namespace gconv::jit
