#include "worker_query.h"

#include "util/error.h"

#include <array>
#include <cstdio>

namespace gconv {
namespace {

// One word for sh -c, whatever it holds.
std::string quoted(const std::string& word) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

nlohmann::json ask_worker(const std::string& worker, const std::vector<std::string>& args,
                          const std::vector<std::string>& environment) {
    std::string command, what;
    for (const std::string& entry : environment) {
        const auto eq = entry.find('=');
        command += entry.substr(0, eq) + "=" + quoted(entry.substr(eq + 1)) + " ";
    }
    command += quoted(worker);
    for (const std::string& a : args) {
        command += " " + quoted(a);
        what += (what.empty() ? "" : " ") + a;
    }
    command += " </dev/null 2>&1";
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) throw Error("cannot start " + worker + " " + what);
    std::string text;
    std::array<char, 4096> buffer{};
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
        text.append(buffer.data(), n);
    const int status = ::pclose(pipe);
    if (status != 0)
        throw Error("asking the GPU through " + worker + " " + what + " failed:\n" + text);
    try {
        return nlohmann::json::parse(text);
    } catch (const std::exception&) {
        throw Error(worker + " " + what + " answered garbage:\n" + text);
    }
}

} // namespace gconv
