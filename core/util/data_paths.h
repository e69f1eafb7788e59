#pragma once
// Where the bundled data (configs/, problems/) lives: $GCONV_DATA_DIR, next to the executable
// (../share/gconv), the install prefix, then the source tree of a developer build.
#include <string>
#include <vector>

namespace gconv {

std::vector<std::string> data_search_dirs();
// The first existing "<dir>/<relative>" among data_search_dirs(); throws gconv::Error listing
// the places looked in when none exists.
std::string find_data_file(const std::string& relative);

} // namespace gconv
