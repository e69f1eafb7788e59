#pragma once
// Run-time loading of the vendor libraries gconv uses only when asked (cuDNN, cuBLAS, ROCm's
// hipRTC for AMD compile checks): the first loadable candidate path wins, and what failed is
// kept for the message.
#include <string>
#include <vector>

namespace gconv {

// dlopen()s the candidates in order (RTLD_NOW | RTLD_LOCAL) and returns the first that loads,
// or null; `tried` gets "path: dlerror" for every one that did not, `; `-separated.
void* open_first_library(const std::vector<std::string>& candidates, std::string& tried,
                         std::string* opened = nullptr);

void* library_symbol(void* library, const char* name);

// Binds `fn` to `name`; a missing symbol is appended to `missing` (comma-separated).
template <typename F>
void bind_symbol(void* library, const char* name, F& fn, std::string& missing) {
    fn = reinterpret_cast<F>(library_symbol(library, name));
    if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
}

} // namespace gconv
