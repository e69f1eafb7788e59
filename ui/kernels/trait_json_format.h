#pragma once
// The text the Kernels page writes for a trait config: one line per trait, its values inline
// when they fit, one value per line otherwise (tile records), so a config reads like a table
// and diffs line by line. Key order is kept (ordered_json).
#include <nlohmann/json.hpp>

#include <string>

namespace gconv::ui {

std::string formatTraitJson(const nlohmann::ordered_json& document);

// One value on one line with a space after ':' and ',' ({"m": 64, "n": 64, "k": 32}).
std::string compactJson(const nlohmann::ordered_json& value);

} // namespace gconv::ui
