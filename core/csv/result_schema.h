#pragma once
// The results CSV schema: ONE table of columns. Each column says its name, its type, which
// forms of the file carry it, and how it moves between a ResultRow and a field.
//   full: the tile engine's current 24 columns in their order, then gconv's own.
//   ck:   the tile engine's current 24 columns only.
//   seed: the seed README's columns (D columns only for 3D, no dilation).
#include "csv/result_row.h"

#include <string>
#include <string_view>
#include <vector>

namespace gconv {

enum class CsvForm { Full, Ck, Seed };
std::string_view to_string(CsvForm form);
std::optional<CsvForm> csv_form_from_string(std::string_view text);

// Bool columns are written "true"/"false" and read from true/false/True/False/1/0.
enum class ColumnType { Text, Integer, Real, Bool };

enum ColumnForms : unsigned {
    in_full = 1u << 0,
    in_ck = 1u << 1,
    in_seed = 1u << 2,
    in_seed_3d_only = 1u << 3, // in the seed form only when the file is 3D
};

struct ResultColumn {
    std::string_view name;
    ColumnType type;
    unsigned forms;
    // Text columns whose values repeat a lot (kernel names, statuses) are interned by the reader.
    bool repetitive;
    // Appends the field's unquoted text.
    void (*format)(const ResultRow& row, std::string& out);
    // Text columns: sets the row's field from text; throws gconv::Error (without location) on
    // a bad value, e.g. an unknown status.
    void (*set_text)(ResultRow& row, std::string_view text);
    // Numeric and bool columns: sets the row's field; NaN = empty / N/A.
    void (*set_number)(ResultRow& row, double value);
};

// Every column, in the order of the full form.
const std::vector<ResultColumn>& result_columns();
// nullptr if no column has that name.
const ResultColumn* find_result_column(std::string_view name);
// The columns of one form, in file order. `three_d` matters only for the seed form.
std::vector<const ResultColumn*> columns_for(CsvForm form, bool three_d);

} // namespace gconv
