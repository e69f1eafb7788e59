#include "filter/filter_set.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace gconv {
namespace {

bool is_blank(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

bool ignored_line(std::string_view line) {
    const auto first = std::find_if_not(line.begin(), line.end(), is_blank);
    return first == line.end() || *first == '#';
}

} // namespace

void FilterSet::add(FilterExpression expression) {
    if (!expression.empty()) expressions_.push_back(std::move(expression));
}

void FilterSet::add(std::string_view text, FilterOrigin origin) {
    add(FilterExpression::parse(text, std::move(origin)));
}

void FilterSet::add_lines(std::string_view text, const std::string& file_name) {
    int line_number = 0;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        auto end = text.find('\n', begin);
        if (end == std::string_view::npos) end = text.size();
        auto line = text.substr(begin, end - begin);
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1); // CRLF files
        if (!ignored_line(line)) add(line, FilterOrigin{file_name, line_number});
        begin = end + 1;
    }
}

void FilterSet::add_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FilterError("cannot read filter file", "", -1, FilterOrigin{path.string(), 0});
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad())
        throw FilterError("error while reading filter file", "", -1,
                          FilterOrigin{path.string(), 0});
    add_lines(content.str(), path.string());
}

void FilterSet::bind(const FieldSchema& schema) {
    for (auto& expression : expressions_) expression.bind(schema);
}

bool FilterSet::matches(const FieldSource& source) const {
    return std::all_of(expressions_.begin(), expressions_.end(),
                       [&](const FilterExpression& e) { return e.matches(source); });
}

std::vector<std::string> FilterSet::fields_used() const {
    std::vector<std::string> names;
    for (const auto& expression : expressions_)
        for (auto& name : expression.fields_used())
            if (std::find(names.begin(), names.end(), name) == names.end())
                names.push_back(std::move(name));
    return names;
}

} // namespace gconv
