#pragma once
// Evaluates a bound filter over one record. Walks the tree with trivially copyable values:
// no allocation unless an error is raised.
#include "filter/ast.h"
#include "filter/field_schema.h"
#include "filter/filter_error.h"

namespace gconv {

// ast.root must be a node (not the empty filter). Throws FilterError on division or modulo
// by zero, on ordering a string against a number, on arithmetic with a string and on a
// non-bool condition (the last three only arise from fields of kind Any).
bool evaluate_filter(const Ast& ast, const FieldSource& source, const FilterErrorSite& site);

} // namespace gconv
