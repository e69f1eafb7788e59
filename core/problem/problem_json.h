#pragma once
// JSON form of one Problem: {"N":..,"C":..,"K":..,"G":..,"Hi":..,"Wi":..,"Y":..,"X":.., ...}.
// Strides and dilations default to 1, pads to 0. "ndim" is optional: without it a problem is
// 3D when any of Di, Z, stride_d, pad_d, dilation_d is given, else 2D.
#include "problem/problem.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace gconv {

// Every key a problem object may hold, in the order they are written.
const std::vector<std::string>& problem_json_keys();

// Parses one problem object. `where` prefixes every message and names the file and JSON path,
// e.g. "problems/forward_2d.json: problems[12]"; a bad field reads
// "<where>.stride_h: expected an integer, got string \"2\"". Throws gconv::Error.
// Sizes are not validated here (see validate()).
Problem problem_from_json(const nlohmann::json& object, const std::string& where);

// Writes the keys that matter for the problem's ndim (no D fields in 2D) plus "layer" if set.
nlohmann::json problem_to_json(const Problem& problem);

} // namespace gconv
