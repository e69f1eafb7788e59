#include "util/data_paths.h"

#include "util/error.h"

#include <cstdlib>
#include <filesystem>

namespace gconv {
namespace fs = std::filesystem;

std::vector<std::string> data_search_dirs() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("GCONV_DATA_DIR"); env && *env) dirs.emplace_back(env);
    std::error_code ec;
    auto exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share" / "gconv").string());
    dirs.emplace_back(GCONV_DATA_DIR_INSTALL);
    dirs.emplace_back(GCONV_DATA_DIR_SOURCE);
    return dirs;
}

std::string find_data_file(const std::string& relative) {
    std::string looked;
    for (const auto& dir : data_search_dirs()) {
        fs::path candidate = fs::path(dir) / relative;
        std::error_code ec;
        if (fs::exists(candidate, ec)) return candidate.string();
        looked += "\n  " + candidate.string();
    }
    throw Error("cannot find " + relative + "; looked in:" + looked +
                "\n(set GCONV_DATA_DIR to gconv's data directory)");
}

} // namespace gconv
