#pragma once
// A GPU suite's own probe kernels (a source string of extern "C" entries), compiled for one
// architecture through the JIT into a throwaway cache.
#include "jit/cache.h"
#include "jit/compiler.h"

#include <QTemporaryDir>

#include <string>

namespace gconv::test {

inline jit::CompileResult compile_probe_source(const std::string& name, const std::string& source,
                                               const std::string& arch) {
    QTemporaryDir dir;
    const jit::KernelCache cache(dir.path().toStdString());
    jit::CompileRequest request;
    request.name = name;
    request.source = source;
    request.arch = arch;
    return jit::compile_cached(cache, jit::native_toolchain(), request);
}

} // namespace gconv::test
