#pragma once
// Content-addressed on-disk cache of compiled kernels. Free of HIP headers: the compiler is
// handed in as a Toolchain.
//
// Layout under the root: <key[0..1]>/<key>.json (metadata, written last: its presence commits
// the entry), <key>.bin (code object, successful compiles only), <key>.log (compiler log, kept
// for failures too). The key is the SHA-256 of the source, every named header, the options,
// the arch and the toolchain identity. Files are written to a temporary name and renamed, so
// parallel processes never see a partial file; an entry whose code does not match the size and
// hash in its metadata is treated as absent, removed and recompiled.
#include "jit/compile_types.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace gconv::jit {

struct Toolchain {
    // Compiler and option set, e.g. "nvidia nvrtc 13.0 gconv-options-1": a new compiler or
    // a change of gconv's options makes new keys.
    std::string identity;
    std::function<CompileResult(const CompileRequest&)> compile;
};

// The platform's hipRTC (jit/compiler.h) as a Toolchain; defined in compiler_toolchain.cpp.
Toolchain native_toolchain();

class KernelCache {
public:
    explicit KernelCache(std::filesystem::path root);

    // $GCONV_CACHE_DIR, else $XDG_CACHE_HOME/gconv/kernels, else ~/.cache/gconv/kernels.
    static std::filesystem::path default_root();

    const std::filesystem::path& root() const { return root_; }

    static std::string key(const CompileRequest& request, const std::string& toolchain_identity);
    std::filesystem::path entry_path(const std::string& key, const char* extension) const;

    // The stored result (from_cache = true), or nullopt when absent or corrupt (then
    // *corrupt is set and the broken files are removed).
    std::optional<CompileResult> load(const std::string& key, bool* corrupt = nullptr) const;
    // Throws gconv::Error when the cache directory cannot be written.
    void store(const std::string& key, const CompileRequest& request,
               const std::string& toolchain_identity, const CompileResult& result) const;

private:
    std::filesystem::path root_;
};

// Looks the request up and compiles on a miss; failures are cached too (with their log), as
// the same inputs fail the same way.
CompileResult compile_cached(const KernelCache& cache, const Toolchain& toolchain,
                             const CompileRequest& request);

} // namespace gconv::jit
