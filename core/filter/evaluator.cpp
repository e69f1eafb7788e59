#include "filter/evaluator.h"

#include <cmath>

namespace gconv {
namespace {

bool equal(const FilterValue& a, const FilterValue& b) {
    const bool a_string = a.kind == ValueKind::String;
    const bool b_string = b.kind == ValueKind::String;
    if (a_string && b_string) return a.text == b.text;
    if (a_string || b_string) return false;
    return a.number == b.number;
}

template <typename T> bool ordered(const T& a, const T& b, CompareOp op) {
    switch (op) {
    case CompareOp::Less:
        return a < b;
    case CompareOp::LessEqual:
        return a <= b;
    case CompareOp::Greater:
        return a > b;
    case CompareOp::GreaterEqual:
        return a >= b;
    default:
        return false;
    }
}

// Python's %: the result takes the sign of the divisor (-7 % 3 == 2), exact for integers.
double python_modulo(double a, double b) {
    double remainder = std::fmod(a, b);
    if (remainder != 0.0 && ((remainder < 0.0) != (b < 0.0))) remainder += b;
    return remainder;
}

class Evaluator {
public:
    Evaluator(const Ast& ast, const FieldSource& source, const FilterErrorSite& site)
        : ast_(ast), source_(source), site_(site) {}

    bool condition(int index, std::string_view who) const {
        const FilterValue value = evaluate(index);
        if (value.kind != ValueKind::Bool) not_a_condition(index, value, who);
        return value.truth();
    }

private:
    FilterValue evaluate(int index) const {
        const Node& node = ast_.at(index);
        switch (node.kind) {
        case NodeKind::Literal:
            if (node.literal_kind == ValueKind::String) return FilterValue::from_string(node.text);
            return {node.literal_kind, node.number, {}};
        case NodeKind::Field:
            return source_.value(node.slot);
        case NodeKind::Negate: {
            const FilterValue operand = evaluate(node.operands[0]);
            if (!operand.is_numeric()) needs_number(node, "-", operand);
            return FilterValue::from_number(-operand.number);
        }
        case NodeKind::Not:
            return FilterValue::from_bool(!condition(node.operands[0], "'not'"));
        case NodeKind::And:
            for (const int operand : node.operands)
                if (!condition(operand, "'and'")) return FilterValue::from_bool(false);
            return FilterValue::from_bool(true);
        case NodeKind::Or:
            for (const int operand : node.operands)
                if (condition(operand, "'or'")) return FilterValue::from_bool(true);
            return FilterValue::from_bool(false);
        case NodeKind::Arithmetic:
            return arithmetic(node);
        case NodeKind::Compare:
            return FilterValue::from_bool(compare_chain(node));
        case NodeKind::Member: {
            const FilterValue needle = evaluate(node.operands[0]);
            for (std::size_t i = 1; i < node.operands.size(); ++i)
                if (equal(needle, evaluate(node.operands[i])))
                    return FilterValue::from_bool(!node.negated);
            return FilterValue::from_bool(node.negated);
        }
        }
        return FilterValue::from_bool(false);
    }

    FilterValue arithmetic(const Node& node) const {
        const FilterValue left = evaluate(node.operands[0]);
        const FilterValue right = evaluate(node.operands[1]);
        const auto op = to_string(node.arithmetic);
        if (!left.is_numeric()) needs_number(node, op, left);
        if (!right.is_numeric()) needs_number(node, op, right);
        const double a = left.number;
        const double b = right.number;
        switch (node.arithmetic) {
        case ArithmeticOp::Add:
            return FilterValue::from_number(a + b);
        case ArithmeticOp::Subtract:
            return FilterValue::from_number(a - b);
        case ArithmeticOp::Multiply:
            return FilterValue::from_number(a * b);
        case ArithmeticOp::Divide:
            if (b == 0.0) by_zero(node, "division by zero");
            return FilterValue::from_number(a / b);
        case ArithmeticOp::Modulo:
            if (b == 0.0) by_zero(node, "modulo by zero");
            return FilterValue::from_number(python_modulo(a, b));
        }
        return FilterValue::from_number(0.0);
    }

    bool compare_chain(const Node& node) const {
        FilterValue left = evaluate(node.operands[0]);
        for (std::size_t i = 0; i < node.compare_ops.size(); ++i) {
            const FilterValue right = evaluate(node.operands[i + 1]);
            if (!compare(left, right, node.compare_ops[i], node.op_columns[i])) return false;
            left = right;
        }
        return true;
    }

    bool compare(const FilterValue& a, const FilterValue& b, CompareOp op, int column) const {
        if (op == CompareOp::Equal) return equal(a, b);
        if (op == CompareOp::NotEqual) return !equal(a, b);
        const bool a_string = a.kind == ValueKind::String;
        const bool b_string = b.kind == ValueKind::String;
        if (a_string && b_string) return ordered(a.text, b.text, op);
        if (a_string || b_string)
            site_.fail(column, "cannot order " + described(a) + " against " + described(b) +
                                   " with '" + std::string(to_string(op)) +
                                   "' (strings order only against strings)");
        return ordered(a.number, b.number, op);
    }

    static std::string described(const FilterValue& value) {
        return std::string(to_string(value.kind)) + " " + format_value(value);
    }

    std::string quoted(const Node& node) const {
        return "'" + std::string(site_.snippet(node.begin, node.end)) + "'";
    }

    [[noreturn]] void needs_number(const Node& node, std::string_view op,
                                   const FilterValue& got) const {
        site_.fail(node.column, "'" + std::string(op) + "' needs numbers, got " + described(got) +
                                    " in " + quoted(node));
    }

    [[noreturn]] void by_zero(const Node& node, std::string_view what) const {
        site_.fail(node.column,
                   std::string(what) + ": " + quoted(ast_.at(node.operands[1])) + " is 0");
    }

    [[noreturn]] void not_a_condition(int index, const FilterValue& got,
                                      std::string_view who) const {
        const Node& node = ast_.at(index);
        site_.fail(node.begin, std::string(who) + " needs a condition, got " + described(got) +
                                   " from " + quoted(node));
    }

    const Ast& ast_;
    const FieldSource& source_;
    const FilterErrorSite& site_;
};

} // namespace

bool evaluate_filter(const Ast& ast, const FieldSource& source, const FilterErrorSite& site) {
    return Evaluator(ast, source, site).condition(ast.root, "filter");
}

} // namespace gconv
