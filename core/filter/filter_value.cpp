#include "filter/filter_value.h"

#include <charconv>
#include <cstdio>

namespace gconv {

std::string_view to_string(ValueKind kind) {
    switch (kind) {
    case ValueKind::Number:
        return "number";
    case ValueKind::String:
        return "string";
    case ValueKind::Bool:
        return "bool";
    }
    return "?";
}

std::string format_number(double value) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string quote_string(std::string_view text) {
    std::string quoted = "'";
    for (const char ch : text) {
        switch (ch) {
        case '\\':
            quoted += "\\\\";
            break;
        case '\'':
            quoted += "\\'";
            break;
        case '\n':
            quoted += "\\n";
            break;
        case '\t':
            quoted += "\\t";
            break;
        case '\r':
            quoted += "\\r";
            break;
        default:
            quoted += ch;
        }
    }
    quoted += '\'';
    return quoted;
}

std::string format_value(const FilterValue& value) {
    switch (value.kind) {
    case ValueKind::Number:
        return format_number(value.number);
    case ValueKind::String:
        return quote_string(value.text);
    case ValueKind::Bool:
        return value.truth() ? "True" : "False";
    }
    return "?";
}

} // namespace gconv
