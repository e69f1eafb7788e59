#include "config/config_json.h"

#include "config/config_fields.h"
#include "util/error.h"
#include "util/json_file.h"

namespace gconv {

nlohmann::json config_to_json(const KernelConfig& config) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& f : config_fields()) {
        std::visit([&](const auto& v) { j[std::string(f.name)] = v; }, f.get(config));
    }
    return j;
}

KernelConfig config_from_json(const nlohmann::json& j, const std::string& origin) {
    if (!j.is_object()) throw Error(origin + ": expected a kernel configuration object");
    KernelConfig c;
    for (const auto& [key, value] : j.items()) {
        if (key == "name") continue;
        const ConfigField* f = find_config_field(key);
        if (!f) throw Error(origin + ": unknown configuration field '" + key + "'");
        FieldValue v;
        if (value.is_boolean())
            v = value.get<bool>();
        else if (value.is_number_integer())
            v = value.get<long long>();
        else if (value.is_string())
            v = value.get<std::string>();
        else
            throw Error(origin + ": " + key + ": unexpected " + json_type_name(value));
        if (auto why = f->set(c, v); !why.empty()) throw Error(origin + ": " + key + ": " + why);
    }
    return c;
}

} // namespace gconv
