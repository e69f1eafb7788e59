// gconv-amd-compile-check: compiles HIP kernel sources for an AMD target with ROCm's hipRTC,
// loaded at run time, inside an NVIDIA build. Nothing runs; it proves the AMD path compiles.
// Usage: gconv-amd-compile-check [--arch gfx90a] [--library PATH] [--embedded]
//                                [--header NAME=FILE]... [-O OPTION]... FILE... | -
// "-" reads one source from stdin. --embedded passes gconv's device templates as headers.
#include "jit/amd_hiprtc.h"
#include "jit/compiler.h"

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_all(std::istream& in) {
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool read_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out = read_all(in);
    return true;
}

int usage(const char* why) {
    std::fprintf(stderr,
                 "gconv-amd-compile-check: %s\n"
                 "usage: gconv-amd-compile-check [--arch gfx90a] [--library PATH] [--embedded]\n"
                 "       [--header NAME=FILE]... [-O OPTION]... FILE... | -\n",
                 why);
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    std::string arch = "gfx90a", library;
    std::vector<gconv::jit::NamedHeader> headers;
    std::vector<std::string> options, sources;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--arch" && has_value)
            arch = argv[++i];
        else if (arg == "--library" && has_value)
            library = argv[++i];
        else if (arg == "--embedded") {
            for (auto& header : gconv::jit::embedded_headers()) headers.push_back(header);
        } else if (arg == "--header" && has_value) {
            const std::string spec = argv[++i];
            const auto eq = spec.find('=');
            std::string contents;
            if (eq == std::string::npos || !read_file(spec.substr(eq + 1), contents))
                return usage(
                    ("--header " + spec + ": expected NAME=FILE with a readable FILE").c_str());
            headers.push_back({spec.substr(0, eq), contents});
        } else if (arg == "-O" && has_value)
            options.push_back(argv[++i]);
        else if (arg == "-" || arg.rfind("-", 0) != 0)
            sources.push_back(arg);
        else
            return usage(("unknown option " + arg).c_str());
    }
    if (sources.empty()) return usage("no source given (a FILE or - for stdin)");

    try {
        const gconv::jit::AmdHiprtc hiprtc(library);
        std::printf("compiler: %s (%s), arch %s\n", hiprtc.version().c_str(),
                    hiprtc.library_path().c_str(), arch.c_str());
        int failures = 0;
        for (const std::string& source : sources) {
            gconv::jit::CompileRequest request;
            request.arch = arch;
            request.headers = headers;
            request.options = options;
            request.name = source == "-" ? "stdin.hip" : source;
            if (source == "-")
                request.source = read_all(std::cin);
            else if (!read_file(source, request.source)) {
                std::printf("fail %s: cannot read the file\n", source.c_str());
                ++failures;
                continue;
            }
            const gconv::jit::CompileResult result = hiprtc.compile(request);
            if (result.ok) {
                std::printf("ok %s: %zu B code object in %.2f s\n", source.c_str(),
                            result.code.size(), result.seconds);
            } else {
                std::printf("fail %s (%.2f s)\n", source.c_str(), result.seconds);
                ++failures;
            }
            if (!result.log.empty()) std::printf("%s\n", result.log.c_str());
        }
        return failures == 0 ? 0 : 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "gconv-amd-compile-check: %s\n", error.what());
        return 2;
    }
}
