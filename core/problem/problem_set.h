#pragma once
// A problem-set file, problems/<key>.json:
//   {"key": "forward_2d", "direction": "forward|bwd_data|bwd_weight", "description": "...",
//    "generator": "scripts/gen_problems.py", "problems": [{...}, ...]}
// Only "direction" and "problems" are required; "key" defaults to the file stem.
#include "config/enums.h"
#include "problem/problem.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

struct ProblemSet {
    std::string key;
    Variant direction = Variant::Forward;
    std::string description;
    std::string generator;
    std::vector<Problem> problems;
    std::filesystem::path source; // the file it was read from (empty for in-memory text)
};

// Reads and checks a problem-set file: the JSON shape, every problem's validate() and that no
// shape (Problem::key()) appears twice. Throws gconv::Error naming the file, the JSON path
// (e.g. "problems[12].stride_h") and the field.
ProblemSet load_problem_set(const std::filesystem::path& path);

// The same from text; `source_name` stands for the file in messages and gives the default key.
ProblemSet parse_problem_set(std::string_view text, const std::string& source_name);

// Top-level keys a problem-set file may hold.
const std::vector<std::string>& problem_set_json_keys();

} // namespace gconv
