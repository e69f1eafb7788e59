#pragma once
// What build this is, for provenance.
#include <string>

namespace gconv {

// The source commit the binaries were built from ("unknown" outside a git checkout).
std::string git_commit();

} // namespace gconv
