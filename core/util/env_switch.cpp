#include "util/env_switch.h"

#include <cstdlib>
#include <string_view>

namespace gconv {

bool env_switch_on(const char* name) {
    const char* value = std::getenv(name);
    return value && std::string_view(value) == "1";
}

} // namespace gconv
