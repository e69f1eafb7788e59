#include "filter/parser.h"

#include "filter/lexer.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace gconv {
namespace {

std::optional<CompareOp> compare_op(TokenKind kind) {
    switch (kind) {
    case TokenKind::Equal:
        return CompareOp::Equal;
    case TokenKind::NotEqual:
        return CompareOp::NotEqual;
    case TokenKind::Less:
        return CompareOp::Less;
    case TokenKind::LessEqual:
        return CompareOp::LessEqual;
    case TokenKind::Greater:
        return CompareOp::Greater;
    case TokenKind::GreaterEqual:
        return CompareOp::GreaterEqual;
    default:
        return std::nullopt;
    }
}

std::optional<ArithmeticOp> additive_op(TokenKind kind) {
    if (kind == TokenKind::Plus) return ArithmeticOp::Add;
    if (kind == TokenKind::Minus) return ArithmeticOp::Subtract;
    return std::nullopt;
}

std::optional<ArithmeticOp> multiplicative_op(TokenKind kind) {
    if (kind == TokenKind::Star) return ArithmeticOp::Multiply;
    if (kind == TokenKind::Slash) return ArithmeticOp::Divide;
    if (kind == TokenKind::Percent) return ArithmeticOp::Modulo;
    return std::nullopt;
}

class Parser {
public:
    Parser(std::string_view text, const FilterOrigin& origin)
        : site_{text, origin}, tokens_(tokenize(text, origin)) {}

    Ast run() {
        if (current().kind != TokenKind::End) {
            ast_.root = or_expression();
            if (current().kind != TokenKind::End) trailing_garbage();
        }
        return std::move(ast_);
    }

private:
    // Counts one level of nesting for as long as it lives.
    class Nested {
    public:
        Nested(Parser& parser, const Token& at) : parser_(parser) {
            if (++parser_.nesting_ > kMaxFilterNesting)
                parser_.site_.fail(at.column, "expression is nested too deeply (more than " +
                                                  std::to_string(kMaxFilterNesting) + " levels)");
        }
        ~Nested() { --parser_.nesting_; }
        Nested(const Nested&) = delete;
        Nested& operator=(const Nested&) = delete;

    private:
        Parser& parser_;
    };

    const Token& current() const { return tokens_[pos_]; }
    const Token& ahead(std::size_t n) const {
        return tokens_[std::min(pos_ + n, tokens_.size() - 1)];
    }
    const Token& advance() {
        const Token& token = tokens_[pos_];
        if (pos_ + 1 < tokens_.size()) ++pos_;
        return token;
    }
    // End of the last consumed token.
    int consumed_end() const { return pos_ == 0 ? 0 : tokens_[pos_ - 1].end; }

    int add(Node node) {
        for (const int operand : node.operands)
            node.depth = std::max(node.depth, ast_.at(operand).depth + 1);
        if (node.depth > kMaxFilterDepth)
            site_.fail(node.column, "expression is too large to evaluate safely (more than " +
                                        std::to_string(kMaxFilterDepth) + " levels of operators)");
        ast_.nodes.push_back(std::move(node));
        return static_cast<int>(ast_.nodes.size() - 1);
    }

    Node make(NodeKind kind, int column, int begin) const {
        Node node;
        node.kind = kind;
        node.column = column;
        node.begin = begin;
        return node;
    }

    int begin_of(int index) const { return ast_.at(index).begin; }

    // or_expr = and_expr { "or" and_expr }   (and the same shape one level down)
    int or_expression() { return junction(TokenKind::Or, NodeKind::Or); }
    int and_expression() { return junction(TokenKind::And, NodeKind::And); }

    int junction(TokenKind keyword, NodeKind kind) {
        const auto term = [&] {
            return kind == NodeKind::Or ? and_expression() : not_expression();
        };
        const int first = term();
        if (current().kind != keyword) return first;
        Node node = make(kind, current().column, begin_of(first));
        node.operands.push_back(first);
        while (current().kind == keyword) {
            node.op_columns.push_back(advance().column);
            node.operands.push_back(term());
        }
        node.end = consumed_end();
        return add(std::move(node));
    }

    // not_expr = "not" not_expr | comparison
    int not_expression() {
        if (current().kind != TokenKind::Not) return comparison();
        const Token& keyword = advance();
        const Nested nested(*this, keyword);
        Node node = make(NodeKind::Not, keyword.column, keyword.column);
        node.operands.push_back(not_expression());
        node.end = consumed_end();
        return add(std::move(node));
    }

    bool at_membership() const {
        return current().kind == TokenKind::In ||
               (current().kind == TokenKind::Not && ahead(1).kind == TokenKind::In);
    }

    // comparison = sum [ comp_op sum { comp_op sum } | [ "not" ] "in" list ]
    int comparison() {
        const int left = sum();
        if (at_membership()) return membership(left);
        if (!compare_op(current().kind)) return left;

        Node node = make(NodeKind::Compare, current().column, begin_of(left));
        node.operands.push_back(left);
        while (const auto op = compare_op(current().kind)) {
            node.compare_ops.push_back(*op);
            node.op_columns.push_back(advance().column);
            node.operands.push_back(sum());
        }
        if (at_membership())
            site_.fail(current().column,
                       "'in' cannot be chained with comparisons; add parentheses");
        node.end = consumed_end();
        return add(std::move(node));
    }

    int membership(int needle) {
        Node node = make(NodeKind::Member, current().column, begin_of(needle));
        node.negated = current().kind == TokenKind::Not;
        if (node.negated) advance();
        advance(); // "in"
        node.operands.push_back(needle);
        list_elements(node.operands);
        if (compare_op(current().kind) || at_membership())
            site_.fail(current().column, "a membership test cannot be chained; add parentheses");
        node.end = consumed_end();
        return add(std::move(node));
    }

    // list = "[" [ or_expr { "," or_expr } [ "," ] ] "]"
    void list_elements(std::vector<int>& into) {
        if (current().kind != TokenKind::LeftBracket)
            site_.fail(current().column, "expected '[' after 'in', found " + describe(current()) +
                                             " (the right side of 'in' is a list like [1, 2])");
        const Token& open = advance();
        const Nested nested(*this, open);
        while (current().kind != TokenKind::RightBracket) {
            if (current().kind == TokenKind::End) site_.fail(open.column, "'[' was never closed");
            into.push_back(or_expression());
            if (current().kind == TokenKind::Comma) {
                advance();
                continue;
            }
            if (current().kind == TokenKind::End) site_.fail(open.column, "'[' was never closed");
            if (current().kind != TokenKind::RightBracket)
                site_.fail(current().column,
                           "expected ',' or ']' in the list, found " + describe(current()));
        }
        advance();
    }

    // sum = term { ("+" | "-") term };  term = unary { ("*" | "/" | "%") unary }
    int sum() { return arithmetic_chain(additive_op, &Parser::term); }
    int term() { return arithmetic_chain(multiplicative_op, &Parser::unary); }

    int arithmetic_chain(std::optional<ArithmeticOp> (*op_of)(TokenKind), int (Parser::*next)()) {
        int left = (this->*next)();
        while (const auto op = op_of(current().kind)) {
            Node node = make(NodeKind::Arithmetic, advance().column, begin_of(left));
            node.arithmetic = *op;
            node.operands = {left, (this->*next)()};
            node.end = consumed_end();
            left = add(std::move(node));
        }
        return left;
    }

    // unary = "-" unary | primary
    int unary() {
        if (current().kind != TokenKind::Minus) return primary();
        const Token& minus = advance();
        const Nested nested(*this, minus);
        Node node = make(NodeKind::Negate, minus.column, minus.column);
        node.operands.push_back(unary());
        node.end = consumed_end();
        return add(std::move(node));
    }

    // primary = number | string | bool | field | "(" or_expr ")"
    int primary() {
        const int index = atom();
        reject_postfix();
        return index;
    }

    int atom() {
        const Token& token = current();
        switch (token.kind) {
        case TokenKind::Number:
        case TokenKind::String:
        case TokenKind::True:
        case TokenKind::False:
            return literal(advance());
        case TokenKind::Identifier:
            return field();
        case TokenKind::LeftParen:
            return parenthesised();
        case TokenKind::End:
            site_.fail(token.column, "unexpected end of filter: expected a value, a field or '('");
        default:
            site_.fail(token.column,
                       "expected a value, a field or '(', found " + describe(token) + hint(token));
        }
    }

    static std::string hint(const Token& token) {
        if (token.kind == TokenKind::LeftBracket) return " (lists are only allowed after 'in')";
        if (token.kind == TokenKind::Plus) return " (unary '+' is not supported)";
        return "";
    }

    int literal(const Token& token) {
        Node node = make(NodeKind::Literal, token.column, token.column);
        node.end = token.end;
        switch (token.kind) {
        case TokenKind::Number:
            node.literal_kind = ValueKind::Number;
            node.number = token.number;
            break;
        case TokenKind::String:
            node.literal_kind = ValueKind::String;
            node.text = token.text;
            break;
        default:
            node.literal_kind = ValueKind::Bool;
            node.number = token.kind == TokenKind::True ? 1.0 : 0.0;
            break;
        }
        return add(std::move(node));
    }

    // field = identifier [ "." identifier ]
    int field() {
        const Token& first = advance();
        Node node = make(NodeKind::Field, first.column, first.column);
        node.name = std::string(first.spelling);
        if (current().kind == TokenKind::Dot) {
            advance();
            if (current().kind != TokenKind::Identifier)
                site_.fail(current().column, "expected a field name after '" + node.name +
                                                 ".', found " + describe(current()));
            node.root = std::move(node.name);
            node.name = std::string(advance().spelling);
            if (current().kind == TokenKind::Dot)
                site_.fail(current().column, "nested attribute access ('" + node.root + "." +
                                                 node.name + "...') is not supported");
        }
        node.end = consumed_end();
        return add(std::move(node));
    }

    int parenthesised() {
        const Token& open = advance();
        const Nested nested(*this, open);
        const int inner = or_expression();
        if (current().kind == TokenKind::End) site_.fail(open.column, "'(' was never closed");
        if (current().kind != TokenKind::RightParen)
            site_.fail(current().column, "expected ')' to close '(', found " + describe(current()));
        advance();
        // The span includes the parentheses, so quoted operands read as written.
        ast_.at(inner).begin = open.column;
        ast_.at(inner).end = consumed_end();
        return inner;
    }

    void reject_postfix() const {
        switch (current().kind) {
        case TokenKind::LeftParen:
            site_.fail(current().column, "function calls are not supported");
        case TokenKind::LeftBracket:
            site_.fail(current().column,
                       "indexing is not supported (a list is only allowed after 'in')");
        case TokenKind::Dot:
            site_.fail(current().column,
                       "'.' is only allowed between a root and a field name (e.g. c.tile_m)");
        default:
            return;
        }
    }

    [[noreturn]] void trailing_garbage() const {
        const Token& token = current();
        std::string reason = "unexpected " + describe(token) + " after a complete expression";
        if (token.kind == TokenKind::Identifier && token.spelling == "is")
            reason += " ('is' is not supported; use '==' or '!=')";
        else if (token.kind == TokenKind::RightParen)
            reason = "unmatched ')'";
        else if (token.kind == TokenKind::RightBracket)
            reason = "unmatched ']'";
        else if (token.kind != TokenKind::Comma)
            reason += " (missing 'and' / 'or' or an operator?)";
        site_.fail(token.column, reason);
    }

    FilterErrorSite site_;
    std::vector<Token> tokens_;
    std::size_t pos_ = 0;
    int nesting_ = 0;
    Ast ast_;
};

} // namespace

Ast parse_filter(std::string_view text, const FilterOrigin& origin) {
    return Parser(text, origin).run();
}

} // namespace gconv
