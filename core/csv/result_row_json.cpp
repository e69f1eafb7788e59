#include "csv/result_row_json.h"

#include "csv/result_schema.h"
#include "util/error.h"

#include <charconv>
#include <string>

namespace gconv {
namespace {

std::string where(const ResultColumn& column) {
    return "row." + std::string(column.name) + ": ";
}

// The same texts the CSV reader accepts: empty or N/A is no value.
double parse_number(const ResultColumn& column, std::string_view text) {
    if (text.empty() || text == "N/A" || text == "nan" || text == "NaN") return k_no_value;
    const char* begin = text.data();
    const char* end = begin + text.size();
    int64_t integer = 0;
    if (auto r = std::from_chars(begin, end, integer); r.ec == std::errc() && r.ptr == end)
        return static_cast<double>(integer);
    double real = 0;
    if (auto r = std::from_chars(begin, end, real);
        r.ec == std::errc() && r.ptr == end && column.type == ColumnType::Real)
        return real;
    throw Error(where(column) + "expected " +
                (column.type == ColumnType::Integer ? "an integer" : "a number") + ", got \"" +
                std::string(text) + "\"");
}

double parse_bool(const ResultColumn& column, std::string_view text) {
    if (text.empty()) return k_no_value;
    if (text == "true" || text == "True" || text == "1") return 1.0;
    if (text == "false" || text == "False" || text == "0") return 0.0;
    throw Error(where(column) + "expected true or false, got \"" + std::string(text) + "\"");
}

void set_from_text(ResultRow& row, const ResultColumn& column, std::string_view text) {
    if (column.type == ColumnType::Text) {
        try {
            column.set_text(row, text);
        } catch (const Error& e) {
            throw Error(where(column) + e.what());
        }
    } else if (column.type == ColumnType::Bool) {
        column.set_number(row, parse_bool(column, text));
    } else {
        column.set_number(row, parse_number(column, text));
    }
}

} // namespace

nlohmann::json result_row_to_json(const ResultRow& row) {
    nlohmann::json object = nlohmann::json::object();
    std::string text;
    for (const ResultColumn* column : columns_for(CsvForm::Full, true)) {
        text.clear();
        column->format(row, text);
        object[std::string(column->name)] = text;
    }
    return object;
}

ResultRow result_row_from_json(const nlohmann::json& object) {
    if (!object.is_object())
        throw Error(std::string("row: expected an object of column texts, got ") +
                    object.type_name());
    ResultRow row;
    for (const ResultColumn& column : result_columns()) {
        const auto found = object.find(std::string(column.name));
        if (found == object.end()) continue;
        const nlohmann::json& value = *found;
        if (value.is_string()) {
            set_from_text(row, column, value.get_ref<const std::string&>());
        } else if (value.is_null()) {
            set_from_text(row, column, "");
        } else if (value.is_boolean() && column.type == ColumnType::Bool) {
            column.set_number(row, value.get<bool>() ? 1.0 : 0.0);
        } else if (value.is_number() && column.type != ColumnType::Text &&
                   column.type != ColumnType::Bool) {
            // Through the text path so an integer column refuses 2.5 as the CSV reader does.
            set_from_text(row, column, value.dump());
        } else {
            throw Error(where(column) + "expected the column's text (a JSON string), got " +
                        value.type_name());
        }
    }
    return row;
}

} // namespace gconv
