#include "jit/compile_types.h"

namespace gconv::jit {

const char* to_string(CodeKind kind) {
    switch (kind) {
    case CodeKind::cubin:
        return "cubin";
    case CodeKind::ptx:
        return "ptx";
    case CodeKind::hsaco:
        return "hsaco";
    case CodeKind::none:
        break;
    }
    return "none";
}

CodeKind code_kind_from_string(const std::string& text) {
    for (CodeKind kind : {CodeKind::cubin, CodeKind::ptx, CodeKind::hsaco}) {
        if (text == to_string(kind)) return kind;
    }
    return CodeKind::none;
}

} // namespace gconv::jit
