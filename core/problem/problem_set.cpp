#include "problem/problem_set.h"

#include "problem/problem_json.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace gconv {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

std::string read_string(const json& document, const char* key, const std::string& file) {
    auto it = document.find(key);
    if (it == document.end()) return {};
    if (!it->is_string())
        throw Error(file + ": " + key + ": expected a string, got " + it->type_name());
    return it->get<std::string>();
}

std::string default_key(const std::string& source_name) {
    return std::filesystem::path(source_name).stem().string();
}

} // namespace

const std::vector<std::string>& problem_set_json_keys() {
    static const std::vector<std::string> keys{"key", "direction", "description", "generator",
                                               "problems"};
    return keys;
}

ProblemSet parse_problem_set(std::string_view text, const std::string& source_name) {
    const std::string& file = source_name;
    json document;
    try {
        document = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        throw Error(file + ": not valid JSON: " + e.what());
    }
    if (!document.is_object())
        throw Error(file + ": expected a JSON object with keys " + join(problem_set_json_keys()) +
                    ", got " + document.type_name());
    const auto& allowed = problem_set_json_keys();
    for (const auto& [key, value] : document.items())
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
            throw Error(file + ": " + key + ": unknown key; allowed keys: " + join(allowed));

    ProblemSet set;
    set.key = read_string(document, "key", file);
    if (set.key.empty()) set.key = default_key(source_name);
    set.description = read_string(document, "description", file);
    set.generator = read_string(document, "generator", file);

    if (!document.contains("direction"))
        throw Error(file + ": missing required key \"direction\" (one of " +
                    join(enum_names<Variant>()) + ")");
    const std::string direction = read_string(document, "direction", file);
    const auto variant = enum_from_string<Variant>(direction);
    if (!variant)
        throw Error(file + ": direction: unknown value \"" + direction +
                    "\"; allowed: " + join(enum_names<Variant>()));
    set.direction = *variant;

    auto problems = document.find("problems");
    if (problems == document.end()) throw Error(file + ": missing required key \"problems\"");
    if (!problems->is_array())
        throw Error(file + ": problems: expected an array, got " +
                    std::string(problems->type_name()));
    if (problems->empty()) throw Error(file + ": problems: the set is empty");

    std::unordered_map<std::string, size_t> first_index;
    set.problems.reserve(problems->size());
    for (size_t i = 0; i < problems->size(); ++i) {
        const std::string where = file + ": problems[" + std::to_string(i) + "]";
        Problem problem = problem_from_json((*problems)[i], where);
        const auto errors = validate(problem);
        if (!errors.empty()) {
            // validate() starts each message with its field: make it a JSON path.
            std::string message;
            for (const auto& error : errors)
                message += (message.empty() ? "" : "\n") + where + "." + error;
            throw Error(message);
        }
        auto [it, inserted] = first_index.emplace(problem.key(), i);
        if (!inserted)
            throw Error(where + ": duplicates problems[" + std::to_string(it->second) +
                        "] (shape " + problem.key() + ")");
        set.problems.push_back(std::move(problem));
    }
    return set;
}

ProblemSet load_problem_set(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error(path.string() + ": no such problem-set file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path.string() + ": cannot open the problem-set file");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw Error(path.string() + ": cannot read the problem-set file");
    ProblemSet set = parse_problem_set(text.str(), path.string());
    set.source = path;
    return set;
}

} // namespace gconv
