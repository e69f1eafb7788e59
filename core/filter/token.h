#pragma once
// The lexical tokens of the filter language.
#include <string>
#include <string_view>

namespace gconv {

enum class TokenKind {
    End,
    Number,
    String,
    Identifier,
    True,
    False,
    And,
    Or,
    Not,
    In,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    LeftParen,
    RightParen,
    LeftBracket,
    RightBracket,
    Comma,
    Dot,
};

struct Token {
    TokenKind kind = TokenKind::End;
    int column = 0;            // 0-based byte offset of the first character
    int end = 0;               // one past the last character
    std::string_view spelling; // the source text of the token
    double number = 0.0;       // Number
    std::string text;          // String: the decoded value
};

// "name 'foo'", "number '4'", "'and'", "')'", "end of filter": a token for messages.
std::string describe(const Token& token);

} // namespace gconv
