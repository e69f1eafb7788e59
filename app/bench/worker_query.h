#pragma once
// gconv-bench's side calls to gconv-worker (--query, --list-devices, --ceilings): a short
// process that prints one JSON line, so gconv-bench itself never initialises a GPU runtime.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gconv {

// Runs `worker` with `args` (and NAME=VALUE `environment` on top of this process's) and parses
// its answer. Throws gconv::Error with the worker's output when it fails or answers no JSON.
nlohmann::json ask_worker(const std::string& worker, const std::vector<std::string>& args,
                          const std::vector<std::string>& environment = {});

} // namespace gconv
