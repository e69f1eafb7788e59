#pragma once
// A filter such as `c.tile_n >= 128 and c.pipeline == 'compv5'` or `tflops > 100`:
// parsed once into a tree, bound to a schema (names become slots, kinds are checked),
// then evaluated per record. It is never executed as code. The language is described in
// docs/filter-language.md.
//
//   auto filter = FilterExpression::parse(text);   // syntax errors
//   filter.bind(schema);                            // unknown fields, type errors
//   for (row : rows) if (filter.matches(row)) ...   // evaluation errors (e.g. x / 0)
//
// Every error is a FilterError whose what() shows the expression with a caret.
#include "filter/ast.h"
#include "filter/field_schema.h"
#include "filter/filter_error.h"

#include <string>
#include <string_view>
#include <vector>

namespace gconv {

class FilterExpression {
public:
    // The empty filter: matches every record.
    FilterExpression() = default;

    // Throws FilterError on a syntax error, or when the expression is certainly not a
    // condition (e.g. `1 + 2`) or mixes kinds wrongly in its literals (e.g. `'a' < 3`).
    static FilterExpression parse(std::string_view text, FilterOrigin origin = {});

    // Resolves every field against the schema and checks kinds where the schema knows
    // them. Throws FilterError, leaving the expression as it was. May be called again with
    // another schema; the schema must describe the sources later given to matches().
    void bind(const FieldSchema& schema);

    // Whether the record passes. Needs bind() first unless the expression names no field;
    // otherwise throws std::logic_error. Throws FilterError on evaluation errors.
    // Allocation-free unless it throws.
    bool matches(const FieldSource& source) const;

    // The field names used (without root, in order of first use, each once).
    std::vector<std::string> fields_used() const;

    bool empty() const { return ast_.root < 0; }
    bool is_bound() const { return bound_; }
    const std::string& text() const { return text_; }
    const FilterOrigin& origin() const { return origin_; }
    // Fully parenthesised form, e.g. "((c.tile_m > 1) and (not c.pad_m))"; "" when empty.
    std::string canonical_text() const;

private:
    FilterErrorSite site() const { return {text_, origin_}; }
    bool names_fields() const;

    std::string text_;
    FilterOrigin origin_;
    Ast ast_;
    bool bound_ = false;
};

} // namespace gconv
