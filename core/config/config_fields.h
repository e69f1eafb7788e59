#pragma once
// The one table of KernelConfig fields: name, kind, getter and setter. JSON export, the
// filter language's schema, the trait-config reader and the GUI all walk this table, so a
// new field is added in one place.
#include "config/kernel_config.h"

#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gconv {

enum class ConfigFieldKind { Integer, Boolean, Text };

using FieldValue = std::variant<long long, bool, std::string>;

struct ConfigField {
    std::string_view name;
    ConfigFieldKind kind;
    std::string_view doc;
    // For Text fields backed by an enum: its canonical names (empty for free text).
    std::vector<std::string> allowed;
    std::function<FieldValue(const KernelConfig&)> get;
    // Returns an empty string on success, else why the value is not acceptable.
    std::function<std::string(KernelConfig&, const FieldValue&)> set;
};

const std::vector<ConfigField>& config_fields();
const ConfigField* find_config_field(std::string_view name);
std::string field_value_to_string(const FieldValue& value);

} // namespace gconv
