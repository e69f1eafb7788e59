#include "csv/csv_writer.h"

#include "util/error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gconv {
namespace {

std::string system_error(const std::string& what) {
    return what + ": " + std::strerror(errno);
}

// The first line of an existing file, without its line break.
std::string read_first_line(int fd, const std::filesystem::path& path) {
    std::string line;
    char buffer[4096];
    off_t offset = 0;
    for (;;) {
        const ssize_t n = ::pread(fd, buffer, sizeof buffer, offset);
        if (n < 0) throw Error(system_error(path.string() + ": cannot read the header"));
        if (n == 0) break;
        const char* newline = static_cast<const char*>(std::memchr(buffer, '\n', n));
        if (newline) {
            line.append(buffer, static_cast<size_t>(newline - buffer));
            break;
        }
        line.append(buffer, n);
        offset += n;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
}

} // namespace

void append_csv_field(std::string& out, std::string_view field) {
    if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += field;
        return;
    }
    out += '"';
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

CsvWriter::CsvWriter(const std::filesystem::path& path, const CsvWriterOptions& options)
    : path_(path), options_(options), columns_(columns_for(options.form, options.three_d)) {
    const int flags = O_CREAT | O_CLOEXEC | (options.append ? O_RDWR : O_WRONLY | O_TRUNC);
    fd_ = ::open(path.c_str(), flags, 0644);
    if (fd_ < 0) throw Error(system_error(path.string() + ": cannot open the output CSV"));

    struct stat info {};
    if (::fstat(fd_, &info) != 0) throw Error(system_error(path.string() + ": cannot stat"));
    uint64_t size = static_cast<uint64_t>(info.st_size);
    if (options.append && size > 0) {
        const std::string existing = read_first_line(fd_, path);
        if (existing != header()) {
            ::close(fd_);
            fd_ = -1;
            throw Error(path.string() + ": cannot append: its header is not the " +
                        std::string(to_string(options.form)) + " form's header (expected \"" +
                        header() + "\", found \"" + existing + "\")");
        }
        if (options.keep_bytes < size) {
            if (::ftruncate(fd_, static_cast<off_t>(options.keep_bytes)) != 0)
                throw Error(system_error(path.string() + ": cannot cut the partial last line"));
            size = options.keep_bytes;
        }
    }
    if (::lseek(fd_, 0, SEEK_END) < 0) throw Error(system_error(path.string() + ": cannot seek"));
    if (size == 0) write_all(header() + "\n");
}

CsvWriter::~CsvWriter() {
    if (fd_ >= 0) ::close(fd_);
}

std::string CsvWriter::header() const {
    std::string text;
    for (const ResultColumn* column : columns_) {
        if (!text.empty()) text += ',';
        text += column->name;
    }
    return text;
}

void CsvWriter::write(const ResultRow& row) {
    if (fd_ < 0) throw Error(path_.string() + ": write after close");
    line_.clear();
    std::string field;
    for (size_t i = 0; i < columns_.size(); ++i) {
        if (i) line_ += ',';
        field.clear();
        columns_[i]->format(row, field);
        append_csv_field(line_, field);
    }
    line_ += '\n';
    write_all(line_);
    if (options_.fsync_each_row) ::fsync(fd_);
    ++rows_written_;
}

void CsvWriter::write_all(const std::string& text) {
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(system_error(path_.string() + ": cannot write"));
        }
        done += static_cast<size_t>(n);
    }
}

void CsvWriter::close() {
    if (fd_ < 0) return;
    ::fsync(fd_);
    ::close(fd_);
    fd_ = -1;
}

} // namespace gconv
