#include "csv/csv_reader.h"

#include "util/error.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace gconv {

std::string_view ResultTable::Column::text(size_t row) const {
    if (interned) return dictionary[codes[row]];
    const uint64_t begin = row == 0 ? 0 : ends[row - 1];
    return std::string_view(chars).substr(begin, ends[row] - begin);
}

const ResultTable::Column* ResultTable::column(std::string_view name) const {
    for (const auto& c : columns_)
        if (c.name == name) return &c;
    return nullptr;
}

ResultRow ResultTable::row(size_t i) const {
    ResultRow out;
    bool has_status = false;
    for (const auto& c : columns_) {
        if (!c.schema) continue;
        if (c.is_text()) {
            // A ck or seed row appended to a table with a status column has it empty.
            if (c.name == "status" && c.text(i).empty()) continue;
            c.schema->set_text(out, c.text(i));
            has_status |= c.name == "status";
        } else {
            c.schema->set_number(out, c.numbers[i]);
        }
    }
    if (!has_status) {
        out.status = has_value(out.latency_ms) ? CellStatus::Ok : CellStatus::Error;
        if (!column("ndim")) {
            const Problem& p = out.problem;
            const bool three_d = p.Di != 1 || p.Z != 1 || p.stride_d != 1 || p.pad_d != 0 ||
                                 p.dilation_d != 1 || (column("Di") && !column("dilation_d"));
            out.problem.ndim_spatial = three_d ? 3 : 2;
        }
    }
    return out;
}

// Fills a ResultTable from parsed records (fields already unquoted).
class CsvTableBuilder {
public:
    CsvTableBuilder(ResultTable& table, const std::string& path) : table_(table), path_(path) {}

    void set_header(const std::vector<std::string_view>& fields, uint64_t line) {
        for (size_t i = 0; i < fields.size(); ++i) {
            std::string_view name = fields[i];
            for (size_t j = 0; j < i; ++j)
                if (fields[j] == name)
                    throw Error(location(line) + "column \"" + std::string(name) +
                                "\" appears twice in the header");
            ResultTable::Column column;
            column.name = std::string(name);
            column.schema = find_result_column(name);
            column.type = column.schema ? column.schema->type : ColumnType::Text;
            column.interned = column.schema && column.schema->repetitive;
            table_.columns_.push_back(std::move(column));
        }
        for (const char* required : {"kernel", "latency_ms"})
            if (!table_.column(required))
                throw Error(location(line) + "the header has no \"" + required +
                            "\" column; is this a gconv results CSV? (header: \"" + join(fields) +
                            "\")");
        interners_.resize(table_.columns_.size());
        last_code_.assign(table_.columns_.size(), UINT32_MAX);
        status_column_ = -1;
        for (size_t i = 0; i < table_.columns_.size(); ++i)
            if (table_.columns_[i].name == "status") status_column_ = static_cast<int>(i);
    }

    size_t width() const { return table_.columns_.size(); }
    size_t rows() const { return table_.rows_; }

    void reserve(uint64_t rows) {
        rows = std::min<uint64_t>(rows + 16, uint64_t{1} << 28);
        for (auto& column : table_.columns_) {
            if (!column.is_text())
                column.numbers.reserve(rows);
            else if (column.interned)
                column.codes.reserve(rows);
            else
                column.ends.reserve(rows);
        }
    }

    void add_row(const std::vector<std::string_view>& fields, uint64_t line) {
        if (fields.size() != width())
            throw Error(location(line) + "expected " + std::to_string(width()) +
                        " fields (as in the header), found " + std::to_string(fields.size()));
        for (size_t i = 0; i < fields.size(); ++i) {
            ResultTable::Column& column = table_.columns_[i];
            const std::string_view field = fields[i];
            switch (column.type) {
            case ColumnType::Text:
                add_text(i, column, field, line);
                break;
            case ColumnType::Bool:
                column.numbers.push_back(parse_bool(column, field, line));
                break;
            default:
                column.numbers.push_back(parse_number(column, field, line));
                break;
            }
        }
        ++table_.rows_;
    }

    std::string location(uint64_t line) const { return path_ + ":" + std::to_string(line) + ": "; }

private:
    static std::string join(const std::vector<std::string_view>& fields) {
        std::string text;
        for (auto f : fields) text += (text.empty() ? "" : ",") + std::string(f);
        return text;
    }

    std::string column_location(const ResultTable::Column& column, uint64_t line) const {
        return location(line) + "column \"" + column.name + "\": ";
    }

    void add_text(size_t index, ResultTable::Column& column, std::string_view field,
                  uint64_t line) {
        if (!column.interned) {
            column.chars += field;
            column.ends.push_back(column.chars.size());
            return;
        }
        // Sweeps write the same kernel (or status) many rows in a row: try the last one first.
        uint32_t& last = last_code_[index];
        if (last != UINT32_MAX && column.dictionary[last] == field) {
            column.codes.push_back(last);
            return;
        }
        auto& interner = interners_[index];
        auto found = interner.find(field);
        if (found == interner.end()) {
            if (static_cast<int>(index) == status_column_ && !cell_status_from_string(field)) {
                std::string allowed;
                for (const auto& name : cell_status_names())
                    allowed += (allowed.empty() ? "" : ", ") + name;
                throw Error(column_location(column, line) + "unknown status \"" +
                            std::string(field) + "\" (allowed: " + allowed + ")");
            }
            column.dictionary.emplace_back(field);
            const auto code = static_cast<uint32_t>(column.dictionary.size() - 1);
            found = interner.emplace(std::string_view(column.dictionary.back()), code).first;
        }
        last = found->second;
        column.codes.push_back(last);
    }

    double parse_number(const ResultTable::Column& column, std::string_view field,
                        uint64_t line) const {
        if (field.empty() || field == "N/A" || field == "nan" || field == "NaN") return k_no_value;
        const char* begin = field.data();
        const char* end = begin + field.size();
        int64_t integer = 0;
        auto as_int = std::from_chars(begin, end, integer);
        if (as_int.ec == std::errc() && as_int.ptr == end) return static_cast<double>(integer);
        double real = 0;
        auto as_real = std::from_chars(begin, end, real);
        if (as_real.ec == std::errc() && as_real.ptr == end && column.type == ColumnType::Real)
            return real;
        throw Error(column_location(column, line) + "expected " +
                    (column.type == ColumnType::Integer ? "an integer" : "a number") + ", got \"" +
                    std::string(field) + "\"");
    }

    double parse_bool(const ResultTable::Column& column, std::string_view field,
                      uint64_t line) const {
        if (field.empty()) return k_no_value;
        if (field == "true" || field == "True" || field == "TRUE" || field == "1") return 1.0;
        if (field == "false" || field == "False" || field == "FALSE" || field == "0") return 0.0;
        throw Error(column_location(column, line) + "expected true or false, got \"" +
                    std::string(field) + "\"");
    }

    ResultTable& table_;
    std::string path_;
    std::vector<std::unordered_map<std::string_view, uint32_t>> interners_;
    std::vector<uint32_t> last_code_;
    int status_column_ = -1;
};

namespace {

enum class RecordState { Complete, Incomplete };

// Splits one record starting at `p` into fields. Quoted fields are unescaped into `scratch`.
// Sets `next` past the record's line break and counts the line breaks inside quotes.
class RecordSplitter {
public:
    RecordState split(const char* p, const char* end, const char*& next,
                      std::vector<std::string_view>& fields, uint64_t& extra_lines,
                      const std::string& path, uint64_t line) {
        fields.clear();
        used_scratch_ = 0;
        extra_lines = 0;
        for (;;) {
            if (p < end && *p == '"') {
                std::string& out = scratch();
                ++p;
                for (;;) {
                    if (p >= end) return RecordState::Incomplete;
                    if (*p == '"') {
                        if (p + 1 >= end) return RecordState::Incomplete;
                        if (p[1] == '"') {
                            out += '"';
                            p += 2;
                            continue;
                        }
                        ++p;
                        break;
                    }
                    if (*p == '\n') ++extra_lines;
                    out += *p++;
                }
                fields.emplace_back(out);
                if (p >= end) return RecordState::Incomplete;
                if (*p == '\r' && p + 1 < end && p[1] == '\n') ++p;
                if (*p == ',') {
                    ++p;
                    continue;
                }
                if (*p == '\n') {
                    next = p + 1;
                    return RecordState::Complete;
                }
                if (*p == '\r' && p + 1 >= end) return RecordState::Incomplete;
                throw Error(path + ":" + std::to_string(line + extra_lines) + ": field " +
                            std::to_string(fields.size()) +
                            ": unexpected character after a closing quote");
            }
            const char* start = p;
            while (p < end && *p != ',' && *p != '\n') ++p;
            if (p >= end) return RecordState::Incomplete;
            const char* stop = p;
            if (*p == '\n' && stop > start && stop[-1] == '\r') --stop;
            fields.emplace_back(start, static_cast<size_t>(stop - start));
            if (*p == '\n') {
                next = p + 1;
                return RecordState::Complete;
            }
            ++p;
        }
    }

private:
    std::string& scratch() {
        if (used_scratch_ == pool_.size()) pool_.emplace_back();
        std::string& s = pool_[used_scratch_++];
        s.clear();
        return s;
    }
    std::deque<std::string> pool_;
    size_t used_scratch_ = 0;
};

} // namespace

ResultTable make_result_table(const std::vector<ResultRow>& rows) {
    ResultTable table;
    CsvTableBuilder builder(table, "(rows)");
    const auto& schema = result_columns();
    std::vector<std::string_view> fields;
    for (const auto& c : schema) fields.push_back(c.name);
    builder.set_header(fields, 1);
    builder.reserve(rows.size());
    std::vector<std::string> texts(schema.size());
    uint64_t line = 2;
    for (const auto& row : rows) {
        fields.clear();
        for (size_t i = 0; i < schema.size(); ++i) {
            texts[i].clear();
            schema[i].format(row, texts[i]);
            fields.push_back(texts[i]);
        }
        builder.add_row(fields, line++);
    }
    return table;
}

namespace {

// The file's bytes: mapped where possible (a regular file), else read whole.
class FileBytes {
public:
    FileBytes(const std::string& name, int fd) {
        struct stat info {};
        if (::fstat(fd, &info) != 0) throw Error(name + ": cannot stat: " + std::strerror(errno));
        if (S_ISREG(info.st_mode) && info.st_size > 0) {
            size_ = static_cast<uint64_t>(info.st_size);
            void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            if (p != MAP_FAILED) {
                mapped_ = static_cast<const char*>(p);
                ::madvise(p, size_, MADV_SEQUENTIAL | MADV_WILLNEED);
                return;
            }
        }
        char chunk[1 << 16];
        for (;;) {
            const ssize_t n = ::read(fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw Error(name + ": cannot read: " + std::strerror(errno));
            if (n == 0) break;
            copy_.append(chunk, static_cast<size_t>(n));
        }
        size_ = copy_.size();
    }
    ~FileBytes() {
        if (mapped_) ::munmap(const_cast<char*>(mapped_), size_);
    }
    FileBytes(const FileBytes&) = delete;
    FileBytes& operator=(const FileBytes&) = delete;

    const char* data() const { return mapped_ ? mapped_ : copy_.data(); }
    uint64_t size() const { return size_; }

private:
    const char* mapped_ = nullptr;
    std::string copy_;
    uint64_t size_ = 0;
};

struct RangeOutcome {
    uint64_t consumed_end = 0; // offset after the last complete record of the range
    bool truncated = false;    // the range (the file's last) ends inside a record
    uint64_t truncated_line = 0;
    bool stopped = false;
};

// Parses the records in [begin, end) into `builder`; `line` is the line number at `begin`.
// `chunk` is called every `chunk_bytes` consumed; it returns false to stop.
RangeOutcome parse_range(const char* data, uint64_t begin, uint64_t end, uint64_t line,
                         CsvTableBuilder& builder, const std::string& name, size_t chunk_bytes,
                         const std::function<bool(uint64_t consumed)>& chunk) {
    RangeOutcome outcome;
    RecordSplitter splitter;
    std::vector<std::string_view> fields;
    const char* const stop = data + end;
    uint64_t at = begin, reported = begin;
    while (at < end) {
        const char* p = data + at;
        if (*p == '\n' || (*p == '\r' && p + 1 < stop && p[1] == '\n')) { // blank line
            at += *p == '\n' ? 1 : 2;
            ++line;
            continue;
        }
        const char* next = nullptr;
        uint64_t extra_lines = 0;
        if (splitter.split(p, stop, next, fields, extra_lines, name, line) ==
            RecordState::Incomplete) {
            outcome.truncated = true;
            outcome.truncated_line = line;
            break;
        }
        if (builder.rows() == 0) // size the columns once from the first row's length
            builder.reserve((end - at) / std::max<uint64_t>(static_cast<uint64_t>(next - p), 1));
        builder.add_row(fields, line);
        at = static_cast<uint64_t>(next - data);
        line += 1 + extra_lines;
        if (at - reported >= chunk_bytes) {
            reported = at;
            if (!chunk(at)) {
                outcome.stopped = true;
                break;
            }
        }
    }
    outcome.consumed_end = at;
    return outcome;
}

// Start of the first record at or after `from`: the byte after a line break that is not
// inside a quoted field (quotes toggle; an escaped "" toggles twice).
uint64_t record_start_after(const char* data, uint64_t size, uint64_t from) {
    bool quoted = std::count(data, data + from, '"') % 2 != 0;
    for (uint64_t i = from; i < size; ++i) {
        if (data[i] == '"')
            quoted = !quoted;
        else if (data[i] == '\n' && !quoted)
            return i + 1;
    }
    return size;
}

} // namespace

CsvReadResult read_results_csv(const std::filesystem::path& path, const CsvReadOptions& options) {
    CsvReadResult result;
    const std::string name = path.string();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(name + ": cannot open: " + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    const FileBytes bytes(name, fd);
    const char* const data = bytes.data();
    const uint64_t total = bytes.size();
    const size_t chunk_bytes = std::max<size_t>(options.chunk_bytes, 4096);

    // The header: the first non-blank record.
    uint64_t at = 0, line = 1;
    while (at < total &&
           (data[at] == '\n' || (data[at] == '\r' && at + 1 < total && data[at + 1] == '\n'))) {
        at += data[at] == '\n' ? 1 : 2;
        ++line;
    }
    std::vector<std::string> header;
    {
        RecordSplitter splitter;
        std::vector<std::string_view> fields;
        const char* next = nullptr;
        uint64_t extra_lines = 0;
        if (at >= total) throw Error(name + ": the file is empty (no header line)");
        if (splitter.split(data + at, data + total, next, fields, extra_lines, name, line) ==
            RecordState::Incomplete)
            throw Error(name + ": no complete header line");
        for (auto f : fields) header.emplace_back(f);
        at = static_cast<uint64_t>(next - data);
        line += 1 + extra_lines;
    }
    const std::vector<std::string_view> header_fields(header.begin(), header.end());
    CsvTableBuilder first(result.table, name);
    first.set_header(header_fields, 1);

    // Large files are parsed in pieces on several cores, each into its own table, then
    // joined in file order (a viewer opening a million-row sweep waits half as long).
    const uint64_t min_piece = std::max<uint64_t>(options.piece_bytes, 1);
    const unsigned cores = options.max_threads
                               ? options.max_threads
                               : std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    const unsigned pieces = static_cast<unsigned>(
        std::min<uint64_t>(cores, std::max<uint64_t>(1, (total - at) / min_piece)));
    std::vector<uint64_t> starts{at};
    for (unsigned k = 1; k < pieces; ++k) {
        const uint64_t s = record_start_after(data, total, at + (total - at) * k / pieces);
        if (s > starts.back() && s < total) starts.push_back(s);
    }
    starts.push_back(total);
    const size_t n = starts.size() - 1;

    RangeOutcome last;
    if (n == 1) {
        last = parse_range(data, at, total, line, first, name, chunk_bytes, [&](uint64_t done) {
            return !options.progress || options.progress(done, total);
        });
        result.cancelled = last.stopped;
    } else {
        std::vector<uint64_t> lines(n, line);
        for (size_t k = 1; k < n; ++k)
            lines[k] =
                lines[k - 1] + uint64_t(std::count(data + starts[k - 1], data + starts[k], '\n'));
        std::vector<ResultTable> tables(n);
        std::vector<RangeOutcome> outcomes(n);
        std::vector<std::exception_ptr> errors(n);
        std::atomic<uint64_t> done{at};
        std::atomic<bool> cancel{false};
        std::atomic<size_t> running{n};
        auto work = [&](size_t k) {
            try {
                // Piece 0 fills the result's own table through the header's builder.
                std::optional<CsvTableBuilder> own_builder;
                if (k > 0) {
                    own_builder.emplace(tables[k], name);
                    own_builder->set_header(header_fields, 1);
                }
                CsvTableBuilder& builder = k == 0 ? first : *own_builder;
                uint64_t counted = starts[k];
                outcomes[k] = parse_range(data, starts[k], starts[k + 1], lines[k], builder, name,
                                          chunk_bytes, [&](uint64_t now) {
                                              done += now - counted;
                                              counted = now;
                                              return !cancel.load();
                                          });
                done += outcomes[k].consumed_end - counted;
            } catch (...) {
                errors[k] = std::current_exception();
                cancel = true;
            }
            --running;
        };
        std::vector<std::thread> threads;
        for (size_t k = 1; k < n; ++k) threads.emplace_back(work, k);
        std::thread own(work, 0);
        // The caller's thread reports progress (and takes a cancel) while the pieces parse.
        while (running.load() > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            if (options.progress && !cancel.load() && !options.progress(done.load(), total)) {
                cancel = true;
                result.cancelled = true;
            }
        }
        own.join();
        for (auto& t : threads) t.join();
        for (const auto& e : errors) // the first error in file order, as a serial read gives
            if (e) std::rethrow_exception(e);
        if (!result.cancelled)
            for (size_t k = 1; k < n; ++k) result.table.append(tables[k]);
        last = outcomes[result.cancelled ? 0 : n - 1];
        if (result.cancelled) last.truncated = false;
    }
    if (last.truncated)
        result.warnings.push_back(
            name + ":" + std::to_string(last.truncated_line) +
            ": the last line is truncated (no line break at the end of the file; a writer was "
            "killed?): dropped " +
            std::to_string(total - last.consumed_end) + " bytes");
    if (!result.cancelled && options.progress) options.progress(total, total);
    result.valid_bytes = last.consumed_end;
    if (result.table.column("status"))
        result.form = CsvForm::Full;
    else if (result.table.column("dilation_h"))
        result.form = CsvForm::Ck;
    else
        result.form = CsvForm::Seed;
    return result;
}

} // namespace gconv
