#pragma once
// What a filter may refer to: the fields of the records it filters, each with a kind, and
// how names are written (`c.tile_m` on a root object and/or bare `tflops`). Binding an
// expression to a schema turns every name into a slot, the field's index here, so that
// evaluation asks the record for values by index and never looks up strings.
#include "filter/filter_value.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gconv {

// Any: the kind is only known per record (e.g. a CSV column holding numbers and "N/A");
// type checks for it happen at evaluation instead of at bind time.
enum class FieldKind : std::uint8_t { Number, String, Bool, Any };

std::string_view to_string(FieldKind kind);

struct FieldInfo {
    std::string name;
    FieldKind kind = FieldKind::Any;
};

class FieldSchema {
public:
    FieldSchema() = default;
    // Field i gets slot i. Names that are not identifiers ([A-Za-z_][A-Za-z0-9_]*) are kept
    // (slots stay aligned with the caller's columns) but cannot be written in a filter.
    explicit FieldSchema(std::vector<FieldInfo> fields);

    // Accepts `root.<field>` for this root (e.g. "c"). Several roots may be accepted.
    FieldSchema& allow_root(std::string root);
    // Whether a bare `<field>` is accepted; true by default. A schema with no root must
    // keep bare names (otherwise nothing could be referred to).
    FieldSchema& allow_bare_names(bool allowed);

    const std::vector<FieldInfo>& fields() const { return fields_; }
    const std::vector<std::string>& roots() const { return roots_; }
    bool bare_names_allowed() const { return bare_names_ || roots_.empty(); }
    bool has_root(std::string_view root) const;

    // The slot of a field by name; the first one wins when names repeat.
    std::optional<std::size_t> slot_of(std::string_view name) const;
    // Comma-separated field names that can be written in a filter, for messages.
    std::string known_names() const;
    // The writable field name closest to `name` (small edit distance), if any.
    std::optional<std::string> closest_name(std::string_view name) const;

private:
    std::vector<FieldInfo> fields_;
    std::vector<std::string> roots_;
    bool bare_names_ = true;
};

// Builds a schema from (name, kind) pairs, e.g. {{"tile_m", FieldKind::Number}, ...}.
FieldSchema make_field_schema(const std::vector<std::pair<std::string, FieldKind>>& fields);

bool is_filter_identifier(std::string_view name);

// The record being filtered, seen through the schema it was bound with. value(slot) is
// called only with slots of that schema; string values must stay valid until matches()
// returns. Called in the hot loop: implementations should not allocate.
class FieldSource {
public:
    virtual FilterValue value(std::size_t slot) const = 0;

protected:
    ~FieldSource() = default;
};

} // namespace gconv
