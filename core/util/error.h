#pragma once
// The one exception type of the engine for bad input and failed operations. Messages are
// complete sentences that name the file, JSON path, field or column at fault.
#include <stdexcept>
#include <string>

namespace gconv {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace gconv
