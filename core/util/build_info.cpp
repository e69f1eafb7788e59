#include "util/build_info.h"

#include "git_commit.h" // generated at every build (cmake/GconvGitCommitRun.cmake)

namespace gconv {

std::string git_commit() {
    return GCONV_GIT_COMMIT;
}

} // namespace gconv
