#pragma once
// KernelConfig <-> JSON through the field table: every field, nothing dropped.
#include "config/kernel_config.h"

#include <nlohmann/json.hpp>

#include <string>

namespace gconv {

nlohmann::json config_to_json(const KernelConfig& config);
// Unknown keys and bad values throw gconv::Error naming `origin` and the key.
KernelConfig config_from_json(const nlohmann::json& json, const std::string& origin);

} // namespace gconv
