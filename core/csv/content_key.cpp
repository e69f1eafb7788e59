#include "csv/content_key.h"

#include <cstdint>
#include <cstdio>

namespace gconv {
namespace {

struct Fnv1a64 {
    uint64_t state = 0xcbf29ce484222325ull;
    void add(std::string_view bytes) {
        for (unsigned char c : bytes) {
            state ^= c;
            state *= 0x100000001b3ull;
        }
    }
    void add_field(std::string_view field) {
        add(std::to_string(field.size()));
        add(":");
        add(field);
    }
};

} // namespace

std::string content_key(std::string_view kernel, std::string_view problem_key,
                        std::string_view arch, std::string_view toolchain) {
    Fnv1a64 hash;
    hash.add_field(kernel);
    hash.add_field(problem_key);
    hash.add_field(arch);
    hash.add_field(toolchain);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash.state));
    return hex;
}

} // namespace gconv
