#pragma once
// What a JIT compile takes and gives, free of HIP headers so that the cache, the build pool
// and the AMD compile check share it.
#include <string>
#include <vector>

namespace gconv::jit {

// A header the source #includes by `name`, handed to the compiler in memory.
struct NamedHeader {
    std::string name;
    std::string contents;
};

struct CompileRequest {
    std::string source;
    std::string name = "kernel.hip"; // file name the compiler shows in its log
    std::vector<NamedHeader> headers;
    std::vector<std::string> options; // added after the platform's own options
    std::string arch;                 // "sm_90", "sm_90a", "gfx90a"
};

enum class CodeKind { none, cubin, ptx, hsaco };
const char* to_string(CodeKind kind);
CodeKind code_kind_from_string(const std::string& text);

struct CompileResult {
    bool ok = false;
    std::vector<char> code; // the code object, ready for hipModuleLoadData
    CodeKind kind = CodeKind::none;
    std::string log;
    double seconds = 0.0; // compiler time (of the original compile for a cache hit)
    bool from_cache = false;
};

} // namespace gconv::jit
