#include "filter/binder.h"

namespace gconv {
namespace {

std::string written_name(const Node& field) {
    return field.root.empty() ? field.name : field.root + "." + field.name;
}

std::string joined_roots(const FieldSchema& schema, std::string_view field) {
    std::string text;
    for (std::size_t i = 0; i < schema.roots().size(); ++i) {
        if (i > 0) text += i + 1 == schema.roots().size() ? " or " : ", ";
        text += schema.roots()[i] + "." + std::string(field);
    }
    return text;
}

class Binder {
public:
    Binder(Ast& ast, const FieldSchema* schema, const FilterErrorSite& site)
        : ast_(ast), schema_(schema), site_(site) {}

    void run() {
        // Children always precede their parents in the node vector, so one forward pass
        // sees every operand's kind before the operator that uses it.
        for (auto& node : ast_.nodes) infer(node);
        if (ast_.root >= 0) require_condition(ast_.root, "filter must be a condition");
    }

private:
    const Node& node(int index) const { return ast_.at(index); }

    // "number field 'c.tile_m'", "string 'x'", "True", or "a number: 'c.tile_m + 1'".
    std::string describe(int index) const {
        const Node& n = node(index);
        const std::string kind(to_string(n.static_kind));
        if (n.kind == NodeKind::Field) return kind + " field '" + written_name(n) + "'";
        if (n.kind == NodeKind::Literal) {
            if (n.literal_kind == ValueKind::String) return "string " + quote_string(n.text);
            if (n.literal_kind == ValueKind::Bool) return n.number != 0.0 ? "True" : "False";
            return "number " + format_number(n.number);
        }
        return "a " + kind + ": '" + std::string(site_.snippet(n.begin, n.end)) + "'";
    }

    bool is_string(int index) const { return node(index).static_kind == StaticKind::String; }
    bool is_numeric(int index) const {
        const auto kind = node(index).static_kind;
        return kind == StaticKind::Number || kind == StaticKind::Bool;
    }

    void require_condition(int index, std::string_view who) const {
        const auto kind = node(index).static_kind;
        if (kind == StaticKind::Bool || kind == StaticKind::Any) return;
        site_.fail(node(index).begin, std::string(who) +
                                          " (a comparison, an 'in' test or a bool), got " +
                                          describe(index));
    }

    void require_number(int index, int op_column, std::string_view op) const {
        if (!is_string(index)) return;
        site_.fail(op_column, "'" + std::string(op) + "' needs numbers, got " + describe(index));
    }

    void infer(Node& n) {
        switch (n.kind) {
        case NodeKind::Literal:
            n.static_kind = n.literal_kind == ValueKind::String ? StaticKind::String
                            : n.literal_kind == ValueKind::Bool ? StaticKind::Bool
                                                                : StaticKind::Number;
            return;
        case NodeKind::Field:
            resolve(n);
            return;
        case NodeKind::Negate:
            require_number(n.operands[0], n.column, "-");
            n.static_kind = StaticKind::Number;
            return;
        case NodeKind::Arithmetic:
            for (const int operand : n.operands)
                require_number(operand, n.column, to_string(n.arithmetic));
            n.static_kind = StaticKind::Number;
            return;
        case NodeKind::Not:
        case NodeKind::And:
        case NodeKind::Or: {
            const std::string who = n.kind == NodeKind::Not   ? "'not' needs a condition"
                                    : n.kind == NodeKind::And ? "'and' needs conditions"
                                                              : "'or' needs conditions";
            for (const int operand : n.operands) require_condition(operand, who);
            n.static_kind = StaticKind::Bool;
            return;
        }
        case NodeKind::Compare:
            for (std::size_t i = 0; i < n.compare_ops.size(); ++i) check_order(n, i);
            n.static_kind = StaticKind::Bool;
            return;
        case NodeKind::Member:
            n.static_kind = StaticKind::Bool;
            return;
        }
    }

    // Strings order only against strings; == and != accept any mix (and are then false/true).
    void check_order(const Node& n, std::size_t i) const {
        const auto op = n.compare_ops[i];
        if (op == CompareOp::Equal || op == CompareOp::NotEqual) return;
        const int left = n.operands[i];
        const int right = n.operands[i + 1];
        if ((is_string(left) && is_numeric(right)) || (is_numeric(left) && is_string(right)))
            site_.fail(n.op_columns[i], "cannot order " + describe(left) + " against " +
                                            describe(right) + " with '" +
                                            std::string(to_string(op)) +
                                            "' (strings order only against strings)");
    }

    void resolve(Node& field) const {
        if (schema_ == nullptr) {
            field.static_kind = StaticKind::Any;
            return;
        }
        check_root(field);
        const auto slot = schema_->slot_of(field.name);
        if (!slot) {
            std::string reason = "unknown field '" + written_name(field) + "'";
            if (const auto close = schema_->closest_name(field.name))
                reason += "; did you mean '" +
                          (field.root.empty() ? *close : field.root + "." + *close) + "'?";
            reason += " (known: " + schema_->known_names() + ")";
            site_.fail(field.begin, reason);
        }
        field.slot = *slot;
        field.static_kind = schema_->fields()[*slot].kind;
    }

    void check_root(const Node& field) const {
        const FieldSchema& schema = *schema_;
        if (field.root.empty()) {
            if (schema.bare_names_allowed()) return;
            if (schema.has_root(field.name))
                site_.fail(field.begin, "'" + field.name + "' alone is not a field; write " +
                                            field.name + ".<field>");
            site_.fail(field.begin, "a bare name is not accepted here: write " +
                                        joined_roots(schema, field.name));
        }
        if (schema.has_root(field.root)) return;
        if (schema.roots().empty())
            site_.fail(field.begin, "'" + written_name(field) +
                                        "': fields are written without a prefix here; write " +
                                        field.name);
        site_.fail(field.begin, "unknown name '" + field.root + "' in '" + written_name(field) +
                                    "': write " + joined_roots(schema, field.name));
    }

    Ast& ast_;
    const FieldSchema* schema_;
    const FilterErrorSite& site_;
};

} // namespace

void bind_filter(Ast& ast, const FieldSchema* schema, const FilterErrorSite& site) {
    Binder(ast, schema, site).run();
}

} // namespace gconv
