#include "filter/ast.h"

namespace gconv {

std::string_view to_string(ArithmeticOp op) {
    switch (op) {
    case ArithmeticOp::Add:
        return "+";
    case ArithmeticOp::Subtract:
        return "-";
    case ArithmeticOp::Multiply:
        return "*";
    case ArithmeticOp::Divide:
        return "/";
    case ArithmeticOp::Modulo:
        return "%";
    }
    return "?";
}

std::string_view to_string(CompareOp op) {
    switch (op) {
    case CompareOp::Equal:
        return "==";
    case CompareOp::NotEqual:
        return "!=";
    case CompareOp::Less:
        return "<";
    case CompareOp::LessEqual:
        return "<=";
    case CompareOp::Greater:
        return ">";
    case CompareOp::GreaterEqual:
        return ">=";
    }
    return "?";
}

std::string to_canonical_text(const Ast& ast, int index) {
    if (index < 0) return "";
    const Node& node = ast.at(index);
    const auto child = [&](std::size_t i) { return to_canonical_text(ast, node.operands[i]); };
    const auto joined = [&](std::string_view separator, std::size_t from) {
        std::string text;
        for (std::size_t i = from; i < node.operands.size(); ++i) {
            if (i > from) text += separator;
            text += child(i);
        }
        return text;
    };
    switch (node.kind) {
    case NodeKind::Literal:
        if (node.literal_kind == ValueKind::String) return quote_string(node.text);
        if (node.literal_kind == ValueKind::Bool) return node.number != 0.0 ? "True" : "False";
        return format_number(node.number);
    case NodeKind::Field:
        return node.root.empty() ? node.name : node.root + "." + node.name;
    case NodeKind::Negate:
        return "(-" + child(0) + ")";
    case NodeKind::Not:
        return "(not " + child(0) + ")";
    case NodeKind::And:
        return "(" + joined(" and ", 0) + ")";
    case NodeKind::Or:
        return "(" + joined(" or ", 0) + ")";
    case NodeKind::Arithmetic:
        return "(" + child(0) + " " + std::string(to_string(node.arithmetic)) + " " + child(1) +
               ")";
    case NodeKind::Compare: {
        std::string text = "(" + child(0);
        for (std::size_t i = 0; i < node.compare_ops.size(); ++i)
            text += " " + std::string(to_string(node.compare_ops[i])) + " " + child(i + 1);
        return text + ")";
    }
    case NodeKind::Member:
        return "(" + child(0) + (node.negated ? " not in [" : " in [") + joined(", ", 1) + "])";
    }
    return "?";
}

} // namespace gconv
