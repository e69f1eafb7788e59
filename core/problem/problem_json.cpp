#include "problem/problem_json.h"

#include "util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace gconv {
namespace {

using nlohmann::json;

struct SizeField {
    const char* name;
    int64_t Problem::*member;
    enum Need { Optional, Always, In3D } need;
    bool depth; // one of the 3D-only fields
};

const SizeField k_fields[] = {
    {"N", &Problem::N, SizeField::Always, false},
    {"C", &Problem::C, SizeField::Always, false},
    {"K", &Problem::K, SizeField::Always, false},
    {"G", &Problem::G, SizeField::Always, false},
    {"Di", &Problem::Di, SizeField::In3D, true},
    {"Hi", &Problem::Hi, SizeField::Always, false},
    {"Wi", &Problem::Wi, SizeField::Always, false},
    {"Z", &Problem::Z, SizeField::In3D, true},
    {"Y", &Problem::Y, SizeField::Always, false},
    {"X", &Problem::X, SizeField::Always, false},
    {"stride_d", &Problem::stride_d, SizeField::Optional, true},
    {"stride_h", &Problem::stride_h, SizeField::Optional, false},
    {"stride_w", &Problem::stride_w, SizeField::Optional, false},
    {"pad_d", &Problem::pad_d, SizeField::Optional, true},
    {"pad_h", &Problem::pad_h, SizeField::Optional, false},
    {"pad_w", &Problem::pad_w, SizeField::Optional, false},
    {"dilation_d", &Problem::dilation_d, SizeField::Optional, true},
    {"dilation_h", &Problem::dilation_h, SizeField::Optional, false},
    {"dilation_w", &Problem::dilation_w, SizeField::Optional, false},
};

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

// A short, always-valid rendering of a JSON value for messages.
std::string describe(const json& value) {
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return std::string(value.type_name()) + " " + text;
}

int64_t read_integer(const json& value, const std::string& where) {
    if (value.is_number_integer()) {
        if (value.is_number_unsigned() &&
            value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            throw Error(where + ": " + value.dump() + " is out of range");
        return value.get<int64_t>();
    }
    throw Error(where + ": expected an integer, got " + describe(value));
}

} // namespace

const std::vector<std::string>& problem_json_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> out;
        for (const auto& f : k_fields) out.emplace_back(f.name);
        out.emplace_back("layer");
        out.emplace_back("ndim");
        return out;
    }();
    return keys;
}

Problem problem_from_json(const json& object, const std::string& where) {
    if (!object.is_object())
        throw Error(where + ": expected a problem object, got " + describe(object));
    const auto& allowed = problem_json_keys();
    for (const auto& [key, value] : object.items())
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
            throw Error(where + "." + key + ": unknown key; allowed keys: " + join(allowed));

    Problem problem;
    bool any_depth = false;
    for (const auto& f : k_fields) {
        auto it = object.find(f.name);
        if (it == object.end()) continue;
        problem.*f.member = read_integer(*it, where + "." + f.name);
        any_depth = any_depth || f.depth;
    }
    if (auto it = object.find("ndim"); it != object.end()) {
        const int64_t ndim = read_integer(*it, where + ".ndim");
        if (ndim != 2 && ndim != 3)
            throw Error(where + ".ndim: " + std::to_string(ndim) + " must be 2 or 3");
        problem.ndim_spatial = static_cast<int>(ndim);
    } else {
        problem.ndim_spatial = any_depth ? 3 : 2;
    }
    for (const auto& f : k_fields) {
        const bool required =
            f.need == SizeField::Always || (f.need == SizeField::In3D && problem.ndim_spatial == 3);
        if (required && !object.contains(f.name))
            throw Error(where + ": missing required key \"" + f.name + "\" (a " +
                        std::to_string(problem.ndim_spatial) + "D problem needs " +
                        (problem.ndim_spatial == 3 ? "N, C, K, G, Di, Hi, Wi, Z, Y, X"
                                                   : "N, C, K, G, Hi, Wi, Y, X") +
                        ")");
    }
    if (auto it = object.find("layer"); it != object.end()) {
        if (!it->is_string())
            throw Error(where + ".layer: expected a string, got " + describe(*it));
        problem.layer = it->get<std::string>();
    }
    return problem;
}

json problem_to_json(const Problem& problem) {
    json out = json::object();
    const Problem defaults;
    bool depth_written = false;
    for (const auto& f : k_fields) {
        // 2D problems carry no D fields unless one is (invalidly) set: keep what was given.
        if (f.depth && problem.ndim_spatial == 2 && problem.*f.member == defaults.*f.member)
            continue;
        out[f.name] = problem.*f.member;
        depth_written = depth_written || f.depth;
    }
    if (problem.ndim_spatial != (depth_written ? 3 : 2)) out["ndim"] = problem.ndim_spatial;
    if (!problem.layer.empty()) out["layer"] = problem.layer;
    return out;
}

} // namespace gconv
