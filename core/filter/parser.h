#pragma once
// Recursive-descent parser of the filter grammar (docs/filter-language.md). It builds the
// tree only; names are checked against a schema later, by binding.
#include "filter/ast.h"
#include "filter/filter_error.h"

#include <string_view>

namespace gconv {

// Nesting of parentheses, lists, `not` and unary minus, and the height of the tree, are
// bounded so that no input can exhaust the stack of the parser or of evaluation.
inline constexpr int kMaxFilterNesting = 100;
inline constexpr int kMaxFilterDepth = 200;

// An empty (or all-blank) text gives an Ast with root -1. Throws FilterError.
Ast parse_filter(std::string_view text, const FilterOrigin& origin = {});

} // namespace gconv
