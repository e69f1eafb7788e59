#include "filter/field_schema.h"

#include <algorithm>
#include <numeric>

namespace gconv {
namespace {

bool is_identifier_start(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
bool is_identifier_char(char ch) {
    return is_identifier_start(ch) || (ch >= '0' && ch <= '9');
}

char lower(char ch) {
    return (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
}

// Case-insensitive, so that 'TFLOPS' suggests 'tflops'.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min(
                {row[j] + 1, row[j - 1] + 1, diagonal + (lower(a[i - 1]) != lower(b[j - 1]))});
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace

std::string_view to_string(FieldKind kind) {
    switch (kind) {
    case FieldKind::Number:
        return "number";
    case FieldKind::String:
        return "string";
    case FieldKind::Bool:
        return "bool";
    case FieldKind::Any:
        return "any";
    }
    return "?";
}

bool is_filter_identifier(std::string_view name) {
    return !name.empty() && is_identifier_start(name.front()) &&
           std::all_of(name.begin(), name.end(), is_identifier_char);
}

FieldSchema::FieldSchema(std::vector<FieldInfo> fields) : fields_(std::move(fields)) {}

FieldSchema& FieldSchema::allow_root(std::string root) {
    if (!has_root(root)) roots_.push_back(std::move(root));
    return *this;
}

FieldSchema& FieldSchema::allow_bare_names(bool allowed) {
    bare_names_ = allowed;
    return *this;
}

bool FieldSchema::has_root(std::string_view root) const {
    return std::find(roots_.begin(), roots_.end(), root) != roots_.end();
}

std::optional<std::size_t> FieldSchema::slot_of(std::string_view name) const {
    for (std::size_t slot = 0; slot < fields_.size(); ++slot)
        if (fields_[slot].name == name) return slot;
    return std::nullopt;
}

std::string FieldSchema::known_names() const {
    std::string names;
    for (const auto& field : fields_) {
        if (!is_filter_identifier(field.name)) continue;
        if (!names.empty()) names += ", ";
        names += field.name;
    }
    return names.empty() ? "none" : names;
}

std::optional<std::string> FieldSchema::closest_name(std::string_view name) const {
    std::optional<std::string> best;
    std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
    for (const auto& field : fields_) {
        if (!is_filter_identifier(field.name)) continue;
        const auto distance = edit_distance(name, field.name);
        if (distance < best_distance) {
            best_distance = distance;
            best = field.name;
        }
    }
    return best;
}

FieldSchema make_field_schema(const std::vector<std::pair<std::string, FieldKind>>& fields) {
    std::vector<FieldInfo> infos;
    infos.reserve(fields.size());
    for (const auto& [name, kind] : fields) infos.push_back({name, kind});
    return FieldSchema(std::move(infos));
}

} // namespace gconv
