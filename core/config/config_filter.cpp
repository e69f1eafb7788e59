#include "config/config_filter.h"

#include "config/config_fields.h"
#include "config/kernel_name.h"

#include <deque>

namespace gconv {
namespace {

FieldKind filter_kind(ConfigFieldKind kind) {
    switch (kind) {
    case ConfigFieldKind::Integer:
        return FieldKind::Number;
    case ConfigFieldKind::Boolean:
        return FieldKind::Bool;
    case ConfigFieldKind::Text:
        return FieldKind::String;
    }
    return FieldKind::Any;
}

// Slot i < fields.size() is config_fields()[i]; the last slot is the name.
class ConfigSource final : public FieldSource {
public:
    explicit ConfigSource(const KernelConfig& c) : name_(kernel_name(c)) {
        for (const auto& f : config_fields()) values_.push_back(f.get(c));
    }
    FilterValue value(std::size_t slot) const override {
        if (slot >= values_.size()) return FilterValue::from_string(name_);
        const auto& v = values_[slot];
        if (const auto* n = std::get_if<long long>(&v)) return FilterValue::from_number(double(*n));
        if (const auto* b = std::get_if<bool>(&v)) return FilterValue::from_bool(*b);
        return FilterValue::from_string(std::get<std::string>(v));
    }

private:
    std::string name_;
    std::vector<FieldValue> values_;
};

} // namespace

const FieldSchema& config_filter_schema() {
    static const FieldSchema schema = [] {
        std::vector<FieldInfo> fields;
        for (const auto& f : config_fields())
            fields.push_back({std::string(f.name), filter_kind(f.kind)});
        fields.push_back({"name", FieldKind::String});
        FieldSchema s(std::move(fields));
        s.allow_root("c");
        return s;
    }();
    return schema;
}

bool config_matches(const FilterExpression& filter, const KernelConfig& config) {
    return filter.matches(ConfigSource(config));
}

std::vector<KernelConfig> apply_config_filter(const std::vector<KernelConfig>& configs,
                                              FilterSet& filters) {
    if (filters.empty()) return configs;
    filters.bind(config_filter_schema());
    std::vector<KernelConfig> kept;
    for (const auto& c : configs)
        if (filters.matches(ConfigSource(c))) kept.push_back(c);
    return kept;
}

} // namespace gconv
