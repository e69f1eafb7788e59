#pragma once
// Selecting and ordering the rows of a ResultTable without leaving its columns: the filter
// language over rows, a free-text search, a status set, the best row per problem and the
// order by one column. Each works over the whole table in one pass (a viewer of 1,000,000
// rows asks per row only "is it in?", a byte lookup), and none of them copies rows.
#include "csv/csv_reader.h"
#include "filter/filter_expression.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

// One byte per row: 1 = selected. A byte (not a bit) so that the hot loops stay branch-free
// and readers index it directly.
using RowMask = std::vector<uint8_t>;

// The status of each row as ResultTable::row() reads it: the status column where the file has
// one; in files without it (ck, seed) and in their rows appended to a table that has one (an
// empty field), ok where a latency is present and error elsewhere.
class RowStatuses {
public:
    explicit RowStatuses(const ResultTable& table);
    CellStatus at(size_t row) const;

private:
    const ResultTable::Column* status_ = nullptr;
    const ResultTable::Column* latency_ = nullptr;
    // Interned status column: the status of each dictionary code; -1 for an empty field.
    std::vector<int8_t> by_code_;
};

// The filter language's view of a table: one field per column, in table order (slot i is
// column i), with bare names (`tflops > 100 and G == 32`). Integer and real columns are
// numbers, an empty or N/A field reads NaN (every comparison with it is false except `!=`),
// bool columns are bools (an empty field reads false), text columns are strings. A table
// without a status column gets a `status` field (slot columns().size()) as RowStatuses reads it.
FieldSchema result_filter_schema(const ResultTable& table);

// Sets mask[row] for rows [first, last) to whether `filter` (bound to
// result_filter_schema(table)) holds; grows `mask` to at least `last`. An empty filter selects
// every row. Throws FilterError on the first evaluation error (e.g. a division by zero).
void evaluate_filter(const ResultTable& table, const FilterExpression& filter, size_t first,
                     size_t last, RowMask& mask);

// The text columns a free-text search looks at: kernel, problem_key, layer, set, error.
const std::vector<std::string_view>& text_search_columns();
// Clears mask[row] for rows [first, last) whose text_search_columns() all lack `needle`
// (ASCII case-insensitive). An empty needle changes nothing. `mask` must hold `last` bytes.
void apply_text_search(const ResultTable& table, std::string_view needle, size_t first, size_t last,
                       RowMask& mask);

// A set of CellStatus as bits (1u << int(status)).
using StatusSet = uint32_t;
inline constexpr StatusSet k_all_statuses = 0xffu;
inline constexpr StatusSet status_bit(CellStatus s) {
    return 1u << static_cast<unsigned>(s);
}
// Clears mask[row] for rows [first, last) whose status is not in `allowed`.
void apply_status_set(const ResultTable& table, StatusSet allowed, size_t first, size_t last,
                      RowMask& mask);

// The columns that make up "one problem" for the best-kernel view: the problem sizes (a
// column the file lacks reads its 2D default) and variant, dtype, arch.
const std::vector<std::string_view>& problem_identity_columns();
// Keeps, among the rows selected by `mask`, only the best row of each problem: status ok and
// the lowest latency_ms (ties: the first row). Rows that are not ok, or lack a latency, go.
void keep_best_per_problem(const ResultTable& table, RowMask& mask);

// The rows in the order of one column: numbers ascending (or descending), text by bytes;
// empty and N/A fields last in both directions; ties keep table order.
std::vector<uint32_t> sorted_rows(const ResultTable& table, size_t column, bool descending);

} // namespace gconv
