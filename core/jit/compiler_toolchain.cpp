#include "jit/cache.h"
#include "jit/compiler.h"

namespace gconv::jit {

Toolchain native_toolchain() {
    return {std::string(to_string(native_platform())) + " " + compiler_version() + " " +
                k_options_revision,
            [](const CompileRequest& request) { return compile(request); }};
}

} // namespace gconv::jit
