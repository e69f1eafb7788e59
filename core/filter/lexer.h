#pragma once
// Splits a filter expression into tokens. Characters that belong to no token, and
// operators of other languages (=, &&, ||, !, **, //), are reported with a hint.
#include "filter/filter_error.h"
#include "filter/token.h"

#include <string_view>
#include <vector>

namespace gconv {

// The last token is always TokenKind::End, at column text.size(). Throws FilterError.
// The tokens' spellings view `text`, which must outlive them.
std::vector<Token> tokenize(std::string_view text, const FilterOrigin& origin = {});

} // namespace gconv
