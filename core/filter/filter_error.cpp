#include "filter/filter_error.h"

#include <algorithm>

namespace gconv {
namespace {

bool is_utf8_continuation(char ch) {
    return (static_cast<unsigned char>(ch) & 0xC0) == 0x80;
}

// The caret must sit under the column even when the line holds tabs or multi-byte
// characters, so the padding copies tabs and counts one space per code point.
std::string caret_padding(std::string_view before) {
    std::string padding;
    for (const char ch : before) {
        if (ch == '\t')
            padding += '\t';
        else if (!is_utf8_continuation(ch))
            padding += ' ';
    }
    return padding;
}

// Control bytes would garble a terminal; they are shown as '?' (one column each, so the
// caret stays aligned).
std::string printable(std::string_view text) {
    std::string shown(text);
    for (char& ch : shown) {
        const auto byte = static_cast<unsigned char>(ch);
        if ((byte < 0x20 && ch != '\t') || byte == 0x7F) ch = '?';
    }
    return shown;
}

} // namespace

std::string format_filter_error(const std::string& reason, const std::string& expression,
                                int column, const FilterOrigin& origin) {
    std::string message = "filter";
    if (!origin.file.empty()) {
        message += " (" + origin.file;
        if (origin.line > 0) message += ", line " + std::to_string(origin.line);
        message += ")";
    }
    message += ": " + printable(reason);
    if (column < 0) return message;

    // An expression may span several lines (the GUI's editor): show the one with the column.
    const auto at = std::min<std::size_t>(static_cast<std::size_t>(column), expression.size());
    const auto line_begin = expression.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t begin =
        (line_begin == std::string::npos || line_begin >= at) ? 0 : line_begin + 1;
    const auto line_end = expression.find('\n', begin);
    const std::string_view whole(expression);
    const auto line =
        whole.substr(begin, line_end == std::string::npos ? std::string::npos : line_end - begin);
    message += "\n  " + printable(line);
    message += "\n  " + caret_padding(whole.substr(begin, at - begin)) + "^";
    return message;
}

FilterError::FilterError(std::string why, std::string text, int at, FilterOrigin from)
    : std::runtime_error(format_filter_error(why, text, at, from)), reason(std::move(why)),
      expression(std::move(text)), column(at), origin(std::move(from)) {}

void FilterErrorSite::fail(int column, std::string reason) const {
    throw FilterError(std::move(reason), std::string(expression), column, origin);
}

std::string_view FilterErrorSite::snippet(int begin, int end) const {
    const auto size = static_cast<int>(expression.size());
    begin = std::clamp(begin, 0, size);
    end = std::clamp(end, begin, size);
    return expression.substr(static_cast<std::size_t>(begin),
                             static_cast<std::size_t>(end - begin));
}

} // namespace gconv
