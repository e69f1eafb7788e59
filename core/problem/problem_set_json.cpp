#include "problem/problem_set_json.h"

#include "problem/problem_json.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <system_error>

namespace gconv {
namespace {

std::string problem_line(const Problem& problem) {
    const nlohmann::json object = problem_to_json(problem);
    std::string line = "{";
    for (const auto& key : problem_json_keys()) {
        auto it = object.find(key);
        if (it == object.end()) continue;
        if (line.size() > 1) line += ", ";
        line += nlohmann::json(key).dump() + ": " + it->dump();
    }
    return line + "}";
}

} // namespace

std::string problem_set_to_json_text(const ProblemSet& set) {
    using nlohmann::json;
    std::string text = "{\n";
    text += "  \"key\": " + json(set.key).dump() + ",\n";
    text += "  \"direction\": " + json(std::string(to_string(set.direction))).dump() + ",\n";
    if (!set.description.empty())
        text += "  \"description\": " + json(set.description).dump() + ",\n";
    if (!set.generator.empty()) text += "  \"generator\": " + json(set.generator).dump() + ",\n";
    text += "  \"problems\": [";
    for (std::size_t i = 0; i < set.problems.size(); ++i)
        text += std::string(i == 0 ? "\n" : ",\n") + "    " + problem_line(set.problems[i]);
    text += set.problems.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return text;
}

void write_problem_set(const std::filesystem::path& path, const ProblemSet& set) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    if (ec)
        throw Error(path.string() + ": cannot create the directory " + path.parent_path().string() +
                    ": " + ec.message());
    fs::path temporary = path;
    temporary += ".part";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) throw Error(path.string() + ": cannot open for writing");
        out << problem_set_to_json_text(set);
        out.flush();
        if (!out) throw Error(path.string() + ": writing the problem set failed");
    }
    fs::rename(temporary, path, ec);
    if (ec) {
        fs::remove(temporary, ec);
        throw Error(path.string() + ": cannot move the written set into place");
    }
}

} // namespace gconv
