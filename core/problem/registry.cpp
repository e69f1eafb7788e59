#include "problem/registry.h"

#include "util/error.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace gconv {
namespace {

namespace fs = std::filesystem;

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

// key -> file, earlier directories first.
std::map<std::string, fs::path> scan(const std::vector<fs::path>& dirs) {
    std::map<std::string, fs::path> found;
    for (const auto& dir : dirs) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) continue;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            const fs::path& path = it->path();
            if (path.extension() != ".json") continue;
            const std::string key = path.stem().string();
            if (key.empty() || key.front() == '.') continue;
            std::error_code type_ec;
            if (!fs::is_regular_file(path, type_ec)) continue;
            found.emplace(key, path); // keeps the first directory's file
        }
    }
    return found;
}

} // namespace

std::vector<fs::path> ProblemRegistry::default_search_dirs() {
    std::vector<fs::path> dirs;
    if (const char* env = std::getenv("GCONV_PROBLEMS_DIR"); env && *env) {
        std::string_view list(env);
        while (!list.empty()) {
            const auto colon = list.find(':');
            const auto item = trim(list.substr(0, colon));
            if (!item.empty()) dirs.emplace_back(std::string(item));
            if (colon == std::string_view::npos) break;
            list.remove_prefix(colon + 1);
        }
    }
    dirs.emplace_back(fs::path(GCONV_DATA_DIR_SOURCE) / "problems");
    dirs.emplace_back(fs::path(GCONV_DATA_DIR_INSTALL) / "problems");
    if (auto user = user_problems_dir(); !user.empty()) dirs.push_back(std::move(user));
    return dirs;
}

fs::path ProblemRegistry::user_problems_dir() {
    // XDG base directories: a relative XDG_DATA_HOME is invalid and must be ignored.
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/')
        return fs::path(xdg) / "gconv" / "problems";
    if (const char* home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".local" / "share" / "gconv" / "problems";
    return {};
}

ProblemRegistry::ProblemRegistry() : ProblemRegistry(default_search_dirs()) {}

ProblemRegistry::ProblemRegistry(std::vector<fs::path> search_dirs)
    : search_dirs_(std::move(search_dirs)) {}

std::vector<std::string> ProblemRegistry::keys() const {
    std::vector<std::string> out;
    for (const auto& entry : scan(search_dirs_)) out.push_back(entry.first);
    return out;
}

bool ProblemRegistry::contains(const std::string& key) const {
    return scan(search_dirs_).count(key) != 0;
}

fs::path ProblemRegistry::path_of(const std::string& key) const {
    const auto found = scan(search_dirs_);
    auto it = found.find(key);
    if (it != found.end()) return it->second;
    std::vector<std::string> dirs;
    for (const auto& dir : search_dirs_) dirs.push_back(dir.string());
    std::vector<std::string> known;
    for (const auto& entry : found) known.push_back(entry.first);
    throw Error("unknown problem set \"" + key +
                "\"; known keys: " + (known.empty() ? std::string("(none)") : join(known)) +
                " (searched: " + join(dirs) + ")");
}

ProblemSet ProblemRegistry::load(const std::string& key) const {
    const fs::path path = path_of(key);
    ProblemSet set = load_problem_set(path);
    if (set.key != key)
        throw Error(path.string() + ": key: \"" + set.key +
                    "\" does not match the file name; expected \"" + key + "\"");
    return set;
}

ProblemSet ProblemRegistry::load_file(const fs::path& path) {
    return load_problem_set(path);
}

std::vector<std::string> parse_key_list(std::string_view list) {
    std::vector<std::string> keys;
    std::string_view text = list;
    size_t index = 0;
    while (true) {
        const auto comma = text.find(',');
        const auto item = trim(text.substr(0, comma));
        if (item.empty())
            throw Error("key list \"" + std::string(list) + "\": item " +
                        std::to_string(index + 1) + " is empty");
        if (std::find(keys.begin(), keys.end(), item) == keys.end()) keys.emplace_back(item);
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
        ++index;
    }
    return keys;
}

} // namespace gconv
