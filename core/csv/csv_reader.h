#pragma once
// The one reader of results CSVs, for every form (full, ck, seed): columns are matched by header
// name, so column order and extra columns do not matter. It parses into a columnar table
// (numbers as doubles, repetitive text interned) so a viewer can open millions of rows.
#include "csv/result_schema.h"

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

class ResultTable {
public:
    struct Column {
        std::string name;
        ColumnType type = ColumnType::Text;
        // nullptr for a column the schema does not know (kept as text).
        const ResultColumn* schema = nullptr;
        // Integer, Real and Bool columns; NaN where the field was empty or N/A.
        std::vector<double> numbers;
        // Text columns: interned (codes into dictionary) or packed (ends into chars).
        bool interned = false;
        std::vector<uint32_t> codes;
        std::deque<std::string> dictionary;
        std::string chars;
        std::vector<uint64_t> ends;

        bool is_text() const { return type == ColumnType::Text; }
        std::string_view text(size_t row) const;
    };

    size_t rows() const { return rows_; }
    const std::vector<Column>& columns() const { return columns_; }
    // nullptr if the file has no such column.
    const Column* column(std::string_view name) const;
    // Row i as a ResultRow. Columns the file lacks keep ResultRow's defaults; files without a
    // status column (ck, seed) read status ok where a latency is present and error elsewhere,
    // and ndim 3 when a D field differs from its 2D value.
    ResultRow row(size_t i) const;

    // Appends the rows of `other`, matching columns by name: columns only one side has are
    // kept, and the rows of the side without them read NaN (numbers) or empty (text).
    void append(const ResultTable& other);

private:
    friend class CsvTableBuilder;
    std::vector<Column> columns_;
    size_t rows_ = 0;
};

struct CsvReadOptions {
    // Called after each chunk; return false to stop (the result then says cancelled and holds
    // the rows read so far).
    std::function<bool(uint64_t bytes_done, uint64_t bytes_total)> progress;
    size_t chunk_bytes = 8u << 20;
    // Files of at least two pieces of this size are parsed on several cores (up to
    // max_threads; 0: the machine's cores, at most 8); the table is the same either way.
    size_t piece_bytes = size_t(32) << 20;
    unsigned max_threads = 0;
};

struct CsvReadResult {
    ResultTable table;
    CsvForm form = CsvForm::Full;
    // Non-fatal findings, e.g. a truncated last line (a killed writer) that was dropped.
    std::vector<std::string> warnings;
    // Bytes up to the end of the last complete line: CsvWriterOptions::keep_bytes for a resume.
    uint64_t valid_bytes = 0;
    bool cancelled = false;
};

// A table of `rows` in the full form's columns (for rows that did not come from a file, such
// as the live results of a running sweep).
ResultTable make_result_table(const std::vector<ResultRow>& rows);

// Throws gconv::Error for an unreadable file, a missing `kernel` or `latency_ms` column, a
// repeated column, or a malformed line; messages read "<path>:<line>: column \"<name>\": ...".
CsvReadResult read_results_csv(const std::filesystem::path& path,
                               const CsvReadOptions& options = {});

} // namespace gconv
