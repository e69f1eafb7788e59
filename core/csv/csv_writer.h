#pragma once
// Writes result rows as they come: the header once, then one row per write(), each handed to
// the kernel in a single write(2) so a killed process leaves at most one partial last line
// (which the reader reports and drops, and an append cuts off).
#include "csv/result_schema.h"

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace gconv {

struct CsvWriterOptions {
    CsvForm form = CsvForm::Full;
    // Seed form only: write the D columns (a sweep with any 3D problem).
    bool three_d = false;
    // Append to an existing file (resume) instead of truncating. Its header must be the one
    // this form writes; an empty or missing file gets the header.
    bool append = false;
    // Append only: cut the file to this many bytes first (CsvReadResult::valid_bytes), dropping
    // a partial last line left by a killed writer.
    uint64_t keep_bytes = std::numeric_limits<uint64_t>::max();
    // fsync after every row (survives a power loss, not only a killed process).
    bool fsync_each_row = false;
};

// RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled.
void append_csv_field(std::string& out, std::string_view field);

class CsvWriter {
public:
    // Throws gconv::Error naming the path when it cannot be opened or its header differs.
    CsvWriter(const std::filesystem::path& path, const CsvWriterOptions& options);
    ~CsvWriter();
    CsvWriter(const CsvWriter&) = delete;
    CsvWriter& operator=(const CsvWriter&) = delete;

    void write(const ResultRow& row);
    void close();

    const std::filesystem::path& path() const { return path_; }
    const std::vector<const ResultColumn*>& columns() const { return columns_; }
    uint64_t rows_written() const { return rows_written_; }
    // The header line (without the line break) this writer's form uses.
    std::string header() const;

private:
    void write_all(const std::string& text);

    std::filesystem::path path_;
    CsvWriterOptions options_;
    std::vector<const ResultColumn*> columns_;
    int fd_ = -1;
    uint64_t rows_written_ = 0;
    std::string line_;
};

} // namespace gconv
