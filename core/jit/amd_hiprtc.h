#pragma once
// ROCm's hipRTC loaded at run time with dlopen, so that an NVIDIA build can still compile
// kernels for AMD targets (both hipRTC flavours export the same hiprtc* names, so the two
// cannot be linked into one program). Used by the AMD compile check and its test; nothing is
// run, only compiled.
//
// Debian 12's ROCm 5.2 hipRTC (inside libamdhip64.so.5) compiles for gfx90a and gfx908; it is
// too old for gfx940/gfx942/gfx950/gfx1100 and crashes on them, so callers stick to gfx90a.
#include "jit/cache.h"
#include "jit/compile_types.h"

#include <memory>
#include <string>

namespace gconv::jit {

class AmdHiprtc {
public:
    // Tries, in order: `library` when not empty, $GCONV_AMD_HIPRTC, the path found at build
    // time (GCONV_AMD_HIPRTC_LIBRARY_PATH), then libhiprtc.so and libamdhip64.so.5 by soname.
    // Throws gconv::Error listing what was tried when none loads.
    explicit AmdHiprtc(const std::string& library = {});
    ~AmdHiprtc();
    AmdHiprtc(const AmdHiprtc&) = delete;
    AmdHiprtc& operator=(const AmdHiprtc&) = delete;

    const std::string& library_path() const { return path_; }
    std::string version() const; // "hiprtc 5.2"

    // Same contract as jit::compile: platform options for AMD first, then the request's.
    CompileResult compile(const CompileRequest& request) const;
    Toolchain toolchain() const;

    // True when a library can be loaded (for tests that skip otherwise).
    static bool available(const std::string& library = {});

private:
    struct Api;
    std::unique_ptr<Api> api_;
    std::string path_;
};

} // namespace gconv::jit
