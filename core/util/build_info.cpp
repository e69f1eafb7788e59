#include "util/build_info.h"

#ifndef GCONV_GIT_COMMIT
#define GCONV_GIT_COMMIT "unknown"
#endif

namespace gconv {

std::string git_commit() {
    return GCONV_GIT_COMMIT;
}

} // namespace gconv
