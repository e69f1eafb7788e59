#pragma once
// The identity of a result for --resume: a cell measured again with the same kernel, problem
// sizes, arch and toolchain would give the same row, so a row with this key is kept, not re-run.
#include <string>
#include <string_view>

namespace gconv {

// 16 lowercase hex digits (64-bit FNV-1a over the four fields, each length-prefixed so that
// no two different tuples hash the same text).
std::string content_key(std::string_view kernel, std::string_view problem_key,
                        std::string_view arch, std::string_view toolchain);

} // namespace gconv
