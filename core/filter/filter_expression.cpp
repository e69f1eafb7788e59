#include "filter/filter_expression.h"

#include "filter/binder.h"
#include "filter/evaluator.h"
#include "filter/parser.h"

#include <algorithm>
#include <stdexcept>

namespace gconv {

FilterExpression FilterExpression::parse(std::string_view text, FilterOrigin origin) {
    FilterExpression expression;
    expression.text_ = std::string(text);
    expression.origin_ = std::move(origin);
    expression.ast_ = parse_filter(expression.text_, expression.origin_);
    bind_filter(expression.ast_, nullptr, expression.site());
    return expression;
}

void FilterExpression::bind(const FieldSchema& schema) {
    Ast bound = ast_;
    bind_filter(bound, &schema, site());
    ast_ = std::move(bound);
    bound_ = true;
}

bool FilterExpression::matches(const FieldSource& source) const {
    if (empty()) return true;
    if (!bound_ && names_fields())
        throw std::logic_error("FilterExpression::matches() called before bind() for '" + text_ +
                               "'");
    return evaluate_filter(ast_, source, site());
}

bool FilterExpression::names_fields() const {
    return std::any_of(ast_.nodes.begin(), ast_.nodes.end(),
                       [](const Node& node) { return node.kind == NodeKind::Field; });
}

std::vector<std::string> FilterExpression::fields_used() const {
    // Nodes are stored children-first, which is not reading order; sort by position.
    std::vector<const Node*> fields;
    for (const auto& node : ast_.nodes)
        if (node.kind == NodeKind::Field) fields.push_back(&node);
    std::sort(fields.begin(), fields.end(),
              [](const Node* a, const Node* b) { return a->begin < b->begin; });
    std::vector<std::string> names;
    for (const Node* field : fields)
        if (std::find(names.begin(), names.end(), field->name) == names.end())
            names.push_back(field->name);
    return names;
}

std::string FilterExpression::canonical_text() const {
    return to_canonical_text(ast_, ast_.root);
}

} // namespace gconv
