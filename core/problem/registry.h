#pragma once
// Problem sets are discovered at run time: every problems/<key>.json in the search directories
// is a set named <key>, so a new set needs no code change.
#include "problem/problem_set.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

class ProblemRegistry {
public:
    // GCONV_PROBLEMS_DIR (one or more directories separated by ':') first, then the source
    // tree's problems/ (GCONV_DATA_DIR_SOURCE), then the installed one (GCONV_DATA_DIR_INSTALL),
    // then the user's own sets (user_problems_dir(), if known). The user's directory comes last
    // so that a saved set never silently replaces a shipped one of the same key.
    static std::vector<std::filesystem::path> default_search_dirs();
    // Where a user's own sets live: $XDG_DATA_HOME/gconv/problems, else
    // $HOME/.local/share/gconv/problems; empty when neither variable is set. It need not exist.
    static std::filesystem::path user_problems_dir();

    ProblemRegistry();
    // Earlier directories win when two hold the same key; missing directories are skipped.
    explicit ProblemRegistry(std::vector<std::filesystem::path> search_dirs);

    const std::vector<std::filesystem::path>& search_dirs() const { return search_dirs_; }

    // Sorted keys of every set found now (the directories are re-read on each call).
    std::vector<std::string> keys() const;
    bool contains(const std::string& key) const;
    // The file that load(key) reads; throws gconv::Error listing the known keys if unknown.
    std::filesystem::path path_of(const std::string& key) const;
    // Loads and checks a set; its "key" field, if any, must match the file stem.
    ProblemSet load(const std::string& key) const;

    // A user's own file (--problems-file); its key is its "key" field or file stem.
    static ProblemSet load_file(const std::filesystem::path& path);

private:
    std::vector<std::filesystem::path> search_dirs_;
};

// "a, b,c" -> {"a", "b", "c"}: trims blanks, drops repeats; throws gconv::Error on an empty item.
std::vector<std::string> parse_key_list(std::string_view text);

} // namespace gconv
