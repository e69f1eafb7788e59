#include "filter/lexer.h"

#include <charconv>
#include <cstdio>

namespace gconv {
namespace {

bool is_digit(char ch) {
    return ch >= '0' && ch <= '9';
}
bool is_identifier_start(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
bool is_identifier_char(char ch) {
    return is_identifier_start(ch) || is_digit(ch);
}
bool is_space(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

TokenKind keyword_or_identifier(std::string_view word) {
    if (word == "and") return TokenKind::And;
    if (word == "or") return TokenKind::Or;
    if (word == "not") return TokenKind::Not;
    if (word == "in") return TokenKind::In;
    if (word == "True" || word == "true") return TokenKind::True;
    if (word == "False" || word == "false") return TokenKind::False;
    return TokenKind::Identifier;
}

class Lexer {
public:
    Lexer(std::string_view text, const FilterOrigin& origin) : text_(text), origin_(origin) {}

    std::vector<Token> run() {
        std::vector<Token> tokens;
        while (true) {
            while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
            if (pos_ >= text_.size()) break;
            tokens.push_back(next());
        }
        Token end;
        end.kind = TokenKind::End;
        end.column = end.end = static_cast<int>(text_.size());
        tokens.push_back(std::move(end));
        return tokens;
    }

private:
    [[noreturn]] void fail(std::size_t column, std::string reason) const {
        throw FilterError(std::move(reason), std::string(text_), static_cast<int>(column), origin_);
    }

    char peek(std::size_t ahead = 0) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }

    Token make(TokenKind kind, std::size_t begin) const {
        Token token;
        token.kind = kind;
        token.column = static_cast<int>(begin);
        token.end = static_cast<int>(pos_);
        token.spelling = text_.substr(begin, pos_ - begin);
        return token;
    }

    Token op(TokenKind kind, std::size_t length) {
        const auto begin = pos_;
        pos_ += length;
        return make(kind, begin);
    }

    Token next() {
        const char ch = peek();
        if (is_digit(ch) || (ch == '.' && is_digit(peek(1)))) return number();
        if (is_identifier_start(ch)) return word();
        if (ch == '\'' || ch == '"') return string();
        switch (ch) {
        case '(':
            return op(TokenKind::LeftParen, 1);
        case ')':
            return op(TokenKind::RightParen, 1);
        case '[':
            return op(TokenKind::LeftBracket, 1);
        case ']':
            return op(TokenKind::RightBracket, 1);
        case ',':
            return op(TokenKind::Comma, 1);
        case '.':
            return op(TokenKind::Dot, 1);
        case '+':
            return op(TokenKind::Plus, 1);
        case '-':
            return op(TokenKind::Minus, 1);
        case '%':
            return op(TokenKind::Percent, 1);
        case '*':
            if (peek(1) == '*') fail(pos_, "'**' (power) is not supported");
            return op(TokenKind::Star, 1);
        case '/':
            if (peek(1) == '/') fail(pos_, "'//' (floor division) is not supported; use '/'");
            return op(TokenKind::Slash, 1);
        case '<':
            return peek(1) == '=' ? op(TokenKind::LessEqual, 2) : op(TokenKind::Less, 1);
        case '>':
            return peek(1) == '=' ? op(TokenKind::GreaterEqual, 2) : op(TokenKind::Greater, 1);
        case '=':
            if (peek(1) == '=') return op(TokenKind::Equal, 2);
            fail(pos_, "'=' is not a comparison; use '=='");
        case '!':
            if (peek(1) == '=') return op(TokenKind::NotEqual, 2);
            fail(pos_, "'!' is not supported; use 'not'");
        case '&':
            fail(pos_,
                 std::string(peek(1) == '&' ? "'&&'" : "'&'") + " is not supported; use 'and'");
        case '|':
            fail(pos_,
                 std::string(peek(1) == '|' ? "'||'" : "'|'") + " is not supported; use 'or'");
        case '#':
            fail(pos_, "'#' comments are only allowed on their own line of a filter file");
        default:
            break;
        }
        unexpected_character();
    }

    [[noreturn]] void unexpected_character() const {
        const auto byte = static_cast<unsigned char>(peek());
        if (byte >= 0x20 && byte < 0x7F)
            fail(pos_, std::string("unexpected character '") + peek() + "'");
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", byte);
        fail(pos_, std::string(byte >= 0x80 ? "unexpected non-ASCII byte " : "unexpected byte ") +
                       hex + " (names, operators and literals are ASCII)");
    }

    Token number() {
        const auto begin = pos_;
        while (is_digit(peek())) ++pos_;
        if (peek() == '.') {
            ++pos_;
            while (is_digit(peek())) ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!is_digit(peek()))
                fail(begin, "invalid number '" + std::string(spelled_until_break(begin)) +
                                "': the exponent needs digits (e.g. 1e3)");
            while (is_digit(peek())) ++pos_;
        }
        if (is_identifier_char(peek()) || peek() == '.')
            fail(begin, "invalid number '" + std::string(spelled_until_break(begin)) + "'");

        Token token = make(TokenKind::Number, begin);
        const char* first = text_.data() + begin;
        const char* last = text_.data() + pos_;
        const auto [ptr, error] = std::from_chars(first, last, token.number);
        if (error == std::errc::result_out_of_range)
            fail(begin, "number '" + std::string(token.spelling) + "' is out of range");
        if (error != std::errc() || ptr != last)
            fail(begin, "invalid number '" + std::string(token.spelling) + "'");
        return token;
    }

    // The rest of a malformed literal, for its message.
    std::string_view spelled_until_break(std::size_t begin) const {
        auto end = pos_;
        while (end < text_.size() && (is_identifier_char(text_[end]) || text_[end] == '.')) ++end;
        return text_.substr(begin, end - begin);
    }

    Token word() {
        const auto begin = pos_;
        while (is_identifier_char(peek())) ++pos_;
        return make(keyword_or_identifier(text_.substr(begin, pos_ - begin)), begin);
    }

    Token string() {
        const auto begin = pos_;
        const char quote = peek();
        ++pos_;
        std::string value;
        while (true) {
            if (pos_ >= text_.size() || peek() == '\n')
                fail(begin, std::string("unterminated string: no closing ") + quote);
            const char ch = peek();
            if (ch == quote) break;
            if (ch == '\\') {
                if (pos_ + 1 >= text_.size() || peek(1) == '\n')
                    fail(begin, std::string("unterminated string: no closing ") + quote);
                value += escaped(pos_);
                pos_ += 2;
                continue;
            }
            value += ch;
            ++pos_;
        }
        ++pos_;
        Token token = make(TokenKind::String, begin);
        token.text = std::move(value);
        return token;
    }

    char escaped(std::size_t backslash) const {
        switch (text_[backslash + 1]) {
        case '\\':
            return '\\';
        case '\'':
            return '\'';
        case '"':
            return '"';
        case 'n':
            return '\n';
        case 't':
            return '\t';
        case 'r':
            return '\r';
        default:
            break;
        }
        const auto byte = static_cast<unsigned char>(text_[backslash + 1]);
        const std::string shown =
            (byte >= 0x20 && byte < 0x7F) ? std::string("\\") + text_[backslash + 1] : "\\?";
        fail(backslash,
             "unknown escape '" + shown + "' in string (allowed: \\\\ \\' \\\" \\n \\t \\r)");
    }

    std::string_view text_;
    const FilterOrigin& origin_;
    std::size_t pos_ = 0;
};

} // namespace

std::string describe(const Token& token) {
    switch (token.kind) {
    case TokenKind::End:
        return "end of filter";
    case TokenKind::Number:
        return "number '" + std::string(token.spelling) + "'";
    case TokenKind::String:
        return "string " + std::string(token.spelling);
    case TokenKind::Identifier:
        return "name '" + std::string(token.spelling) + "'";
    default:
        return "'" + std::string(token.spelling) + "'";
    }
}

std::vector<Token> tokenize(std::string_view text, const FilterOrigin& origin) {
    return Lexer(text, origin).run();
}

} // namespace gconv
