#pragma once
// Writing a problem set in the problems/<key>.json format that load_problem_set() reads: the
// header keys, then one problem object per line (keys in problem_json_keys() order), so that
// a saved set diffs line by line like the shipped ones.
#include "problem/problem_set.h"

#include <filesystem>
#include <string>

namespace gconv {

std::string problem_set_to_json_text(const ProblemSet& set);

// Writes the text to `path` (through a temporary file renamed into place, so a failed write
// never leaves half a set behind). Throws gconv::Error naming the path.
void write_problem_set(const std::filesystem::path& path, const ProblemSet& set);

} // namespace gconv
