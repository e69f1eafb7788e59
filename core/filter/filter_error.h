#pragma once
// Every problem with a filter (syntax, unknown field, type mismatch, evaluation) is a
// FilterError. what() is ready to print: the reason, the expression and a caret under the
// offending column, e.g.
//   filter: unknown field 'c.tile_q' (known: tile_m, tile_n, ...)
//     c.tile_q > 3
//     ^
#include <stdexcept>
#include <string>
#include <string_view>

namespace gconv {

// Where an expression came from, for messages: a --filter-file path and 1-based line.
// Empty for an expression given directly (e.g. on the command line).
struct FilterOrigin {
    std::string file;
    int line = 0;
};

struct FilterError : std::runtime_error {
    FilterError(std::string why, std::string text, int at, FilterOrigin from = {});

    std::string reason;     // one line, without the "filter: " prefix
    std::string expression; // the whole expression (one line of a filter file)
    int column = -1;        // 0-based byte offset into expression; -1 when no caret applies
    FilterOrigin origin;
};

// The expression a stage (lexer, parser, binder, evaluator) works on, to raise errors from.
struct FilterErrorSite {
    std::string_view expression;
    const FilterOrigin& origin;

    [[noreturn]] void fail(int column, std::string reason) const;
    // The source text of [begin, end), for messages that quote an operand.
    std::string_view snippet(int begin, int end) const;
};

// The multi-line message of a FilterError (exposed for callers that re-wrap errors).
std::string format_filter_error(const std::string& reason, const std::string& expression,
                                int column, const FilterOrigin& origin);

} // namespace gconv
