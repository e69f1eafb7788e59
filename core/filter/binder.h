#pragma once
// Binding: resolves every field of a parsed filter to a slot of a schema and infers the
// kind of every node, rejecting what is known to be wrong before any record is seen
// (`c.pipeline > 3`, `c.tile_m + 1` as the whole filter, `'a' * 2`).
#include "filter/ast.h"
#include "filter/field_schema.h"
#include "filter/filter_error.h"

namespace gconv {

// With a schema: resolves names (unknown field, wrong root, bare name where a root is
// required are errors) and checks kinds. Without one (right after parsing): fields are of
// kind Any and only what literals and operators imply is checked. Throws FilterError.
void bind_filter(Ast& ast, const FieldSchema* schema, const FilterErrorSite& site);

} // namespace gconv
