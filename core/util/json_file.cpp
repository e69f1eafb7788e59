#include "util/json_file.h"

#include "util/error.h"

#include <fstream>
#include <sstream>

namespace gconv {

std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // Turn nlohmann's byte offset into line:column, which an editor can jump to.
        std::size_t line = 1, column = 1;
        const std::size_t limit = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
        for (std::size_t i = 0; i < limit; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string what = e.what();
        if (auto pos = what.find("syntax error"); pos != std::string::npos) what = what.substr(pos);
        throw Error(origin + ":" + std::to_string(line) + ":" + std::to_string(column) +
                    ": invalid JSON: " + what);
    }
}

nlohmann::json read_json_file(const std::string& path) {
    return parse_json_text(read_text_file(path), path);
}

std::string json_path_index(const std::string& base, std::size_t index) {
    return base + "[" + std::to_string(index) + "]";
}

std::string json_path_key(const std::string& base, const std::string& key) {
    return base.empty() ? key : base + "." + key;
}

std::string json_type_name(const nlohmann::json& value) {
    if (value.is_number_integer()) return "integer";
    if (value.is_number()) return "number";
    return value.type_name();
}

} // namespace gconv
