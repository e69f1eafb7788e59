#pragma once
// The value of one filter operand. Trivially copyable so that evaluation never allocates:
// strings are views into the expression's literals or into the record being filtered.
#include <cstdint>
#include <string>
#include <string_view>

namespace gconv {

enum class ValueKind : std::uint8_t { Number, String, Bool };

struct FilterValue {
    ValueKind kind = ValueKind::Number;
    // Number: the value; Bool: 0 or 1 (bools take part in arithmetic and ordering as 0/1).
    double number = 0.0;
    // String only. Must stay valid until the matches() call that received it returns.
    std::string_view text;

    static constexpr FilterValue from_number(double value) {
        return {ValueKind::Number, value, {}};
    }
    static constexpr FilterValue from_bool(bool value) {
        return {ValueKind::Bool, value ? 1.0 : 0.0, {}};
    }
    static constexpr FilterValue from_string(std::string_view value) {
        return {ValueKind::String, 0.0, value};
    }

    constexpr bool is_numeric() const { return kind != ValueKind::String; }
    constexpr bool truth() const { return number != 0.0; }
};

std::string_view to_string(ValueKind kind);

// Shortest text that reads back to the same double; integral values print without a
// fraction ("128", not "128.000000"), so messages show numbers as the user wrote them.
std::string format_number(double value);

// A string as a filter literal: single-quoted, with \\ \' \n \t \r escapes.
std::string quote_string(std::string_view text);

// "128", "'compv5'" or "True": a value as a filter literal, for messages.
std::string format_value(const FilterValue& value);

} // namespace gconv
