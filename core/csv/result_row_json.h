#pragma once
// A result row as a JSON object of CSV texts, {"kernel": "...", "latency_ms": "N/A", ...}: every
// column of the full form, each formatted exactly as the CSV writer writes it. gconv-bench's
// `cell` progress events carry rows this way, and the explorer reads them back through the same
// column table as the CSV reader, so a live row equals the row later read from the file.
#include "csv/result_row.h"

#include <nlohmann/json.hpp>

namespace gconv {

nlohmann::json result_row_to_json(const ResultRow& row);

// Columns the object lacks keep ResultRow's defaults; names no column has are ignored (a newer
// writer may add columns). Values are the CSV texts; JSON numbers, booleans and null are taken
// too. Throws gconv::Error naming the field, e.g. `row.latency_ms: expected a number, got
// "fast"`, or `row: expected an object`.
ResultRow result_row_from_json(const nlohmann::json& object);

} // namespace gconv
