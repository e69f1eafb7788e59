#pragma once
// Several filters that must all pass: --filter and the lines of a --filter-file. A filter
// file holds one expression per line; blank lines and lines whose first non-blank
// character is '#' are ignored. Errors name the file and line.
#include "filter/filter_expression.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

class FilterSet {
public:
    // Adds one expression; a blank one is ignored. Throws FilterError.
    void add(FilterExpression expression);
    void add(std::string_view text, FilterOrigin origin = {});
    // Adds every expression line of `text`, as read from `file_name` (used in messages).
    void add_lines(std::string_view text, const std::string& file_name);
    // Reads and adds a filter file. An unreadable file is a FilterError without a caret.
    void add_file(const std::filesystem::path& path);

    // Binds every expression (FilterExpression::bind); the first error is thrown.
    void bind(const FieldSchema& schema);
    // True when every expression matches (the empty set matches everything).
    bool matches(const FieldSource& source) const;

    // The union of the expressions' fields, in order of first use.
    std::vector<std::string> fields_used() const;
    bool empty() const { return expressions_.empty(); }
    const std::vector<FilterExpression>& expressions() const { return expressions_; }

private:
    std::vector<FilterExpression> expressions_;
};

} // namespace gconv
