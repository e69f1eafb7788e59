#include "gpu/shared_library.h"

#include <dlfcn.h>

namespace gconv {

void* open_first_library(const std::vector<std::string>& candidates, std::string& tried,
                         std::string* opened) {
    for (const auto& candidate : candidates) {
        if (void* library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            if (opened) *opened = candidate;
            return library;
        }
        const char* why = dlerror();
        tried += (tried.empty() ? "" : "; ") + candidate + ": " + (why ? why : "not loadable");
    }
    return nullptr;
}

void* library_symbol(void* library, const char* name) {
    return dlsym(library, name);
}

} // namespace gconv
