#include "csv/csv_reader.h"

#include <unordered_map>

namespace gconv {

namespace {

using Column = ResultTable::Column;

Column empty_like(const Column& model) {
    Column c;
    c.name = model.name;
    c.type = model.type;
    c.schema = model.schema;
    c.interned = model.interned;
    return c;
}

void pad(Column& c, size_t rows) {
    if (!c.is_text()) {
        c.numbers.resize(rows, k_no_value);
    } else if (c.interned) {
        if (c.codes.size() == rows) return;
        uint32_t empty_code = 0;
        bool found = false;
        for (size_t i = 0; i < c.dictionary.size() && !found; ++i)
            if (c.dictionary[i].empty()) empty_code = static_cast<uint32_t>(i), found = true;
        if (!found) {
            c.dictionary.emplace_back();
            empty_code = static_cast<uint32_t>(c.dictionary.size() - 1);
        }
        c.codes.resize(rows, empty_code);
    } else {
        c.ends.resize(rows, c.chars.size());
    }
}

void append_column(Column& to, const Column& from, size_t rows) {
    if (!to.is_text()) {
        to.numbers.insert(to.numbers.end(), from.numbers.begin(), from.numbers.end());
        return;
    }
    if (!to.interned) {
        for (size_t i = 0; i < rows; ++i) {
            const std::string_view text = from.text(i);
            to.chars += text;
            to.ends.push_back(to.chars.size());
        }
        return;
    }
    // Translate the other table's codes through one map per call: O(dictionary + rows).
    std::unordered_map<std::string_view, uint32_t> codes;
    for (size_t i = 0; i < to.dictionary.size(); ++i)
        codes.emplace(to.dictionary[i], static_cast<uint32_t>(i));
    // The dictionary is a deque: its strings stay put, so views into it are stable keys.
    auto code_of = [&](std::string_view text) {
        auto it = codes.find(text);
        if (it != codes.end()) return it->second;
        to.dictionary.emplace_back(text);
        const auto code = static_cast<uint32_t>(to.dictionary.size() - 1);
        codes.emplace(to.dictionary.back(), code);
        return code;
    };
    std::vector<uint32_t> translate;
    if (from.interned) {
        translate.resize(from.dictionary.size());
        for (size_t i = 0; i < from.dictionary.size(); ++i)
            translate[i] = code_of(from.dictionary[i]);
        for (size_t i = 0; i < rows; ++i) to.codes.push_back(translate[from.codes[i]]);
        return;
    }
    for (size_t i = 0; i < rows; ++i) to.codes.push_back(code_of(from.text(i)));
}

} // namespace

void ResultTable::append(const ResultTable& other) {
    for (const Column& theirs : other.columns_)
        if (!column(theirs.name)) {
            columns_.push_back(empty_like(theirs));
            pad(columns_.back(), rows_);
        }
    for (Column& mine : columns_) {
        const Column* theirs = other.column(mine.name);
        if (theirs && theirs->type == mine.type)
            append_column(mine, *theirs, other.rows_);
        else if (theirs && mine.is_text() == theirs->is_text() && !mine.is_text())
            mine.numbers.insert(mine.numbers.end(), theirs->numbers.begin(), theirs->numbers.end());
        pad(mine, rows_ + other.rows_);
    }
    rows_ += other.rows_;
}

} // namespace gconv
