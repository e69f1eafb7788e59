#pragma once
// Reading JSON files with messages that name the file, line and column of a syntax error.
#include <nlohmann/json.hpp>

#include <string>

namespace gconv {

// Throws gconv::Error: "<path>:<line>:<column>: <what nlohmann said>" or "cannot read <path>".
nlohmann::json read_json_file(const std::string& path);
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);
std::string read_text_file(const std::string& path);

// "tiles[3].m" style paths for messages.
std::string json_path_index(const std::string& base, std::size_t index);
std::string json_path_key(const std::string& base, const std::string& key);
std::string json_type_name(const nlohmann::json& value);

} // namespace gconv
