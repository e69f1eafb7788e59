#pragma once
// The parsed form of a filter: nodes in one vector, children referred to by index, so the
// tree is cheap to copy and walk. Every node remembers its source span for messages.
#include "filter/field_schema.h"
#include "filter/filter_value.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

enum class NodeKind : std::uint8_t {
    Literal,    // number, string or bool
    Field,      // `name` or `root.name`
    Negate,     // -x
    Not,        // not x
    And,        // x and y and ...   (n-ary, short-circuit)
    Or,         // x or y or ...     (n-ary, short-circuit)
    Arithmetic, // x + y, x - y, x * y, x / y, x % y
    Compare,    // x op y [op z ...]  (Python chaining: each operand evaluated once)
    Member,     // x in [a, b, ...], x not in [...]
};

enum class ArithmeticOp : std::uint8_t { Add, Subtract, Multiply, Divide, Modulo };
enum class CompareOp : std::uint8_t { Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual };

std::string_view to_string(ArithmeticOp op);
std::string_view to_string(CompareOp op);

// The kind an expression has for every record, when it can be known before evaluation.
using StaticKind = FieldKind;

struct Node {
    NodeKind kind = NodeKind::Literal;
    int begin = 0; // source span, 0-based byte offsets [begin, end)
    int end = 0;
    int column = 0; // where messages about this node point: the operator or the literal
    int depth = 1;  // height of the subtree; bounded so that evaluation cannot overflow
    StaticKind static_kind = StaticKind::Any;

    // Literal. A string literal's value lives in `text` (a view would dangle on move).
    ValueKind literal_kind = ValueKind::Number;
    double number = 0.0;
    std::string text;

    // Field: as written ("c.tile_m"), split into root ("c" or empty) and name.
    std::string root;
    std::string name;
    std::size_t slot = 0; // set by binding

    ArithmeticOp arithmetic = ArithmeticOp::Add;
    bool negated = false; // Member: `not in`

    // Negate/Not: [operand]; And/Or: the terms; Arithmetic: [left, right];
    // Compare: the chain's operands; Member: [needle, element...].
    std::vector<int> operands;
    // Compare: compare_ops[i] sits between operands[i] and operands[i + 1], at op_columns[i].
    std::vector<CompareOp> compare_ops;
    std::vector<int> op_columns;
};

struct Ast {
    std::vector<Node> nodes;
    int root = -1; // -1: the empty filter

    const Node& at(int index) const { return nodes[static_cast<std::size_t>(index)]; }
    Node& at(int index) { return nodes[static_cast<std::size_t>(index)]; }
};

// Fully parenthesised text of a subtree, e.g. "((not (a == 1)) or (b == 2))". It parses
// back to the same tree; tests use it to check precedence.
std::string to_canonical_text(const Ast& ast, int index);

} // namespace gconv
