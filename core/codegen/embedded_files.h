#pragma once
// The device templates embedded at build time (see cmake/GconvEmbed.cmake).
#include <string_view>
#include <vector>

namespace gconv {

struct EmbeddedFile {
    std::string_view name;     // header name as #included by generated sources
    std::string_view contents; // full text
};

namespace embedded {
const std::vector<EmbeddedFile>& files();
} // namespace embedded

} // namespace gconv
