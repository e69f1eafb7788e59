#pragma once
// Per-architecture facts read from configs/arch_specs.json, the single source of the numbers
// the legality rules use.
#include "config/enums.h"

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gconv {

using Triple = std::array<int, 3>;

struct ArchSpec {
    std::string name;   // "sm_90", "gfx942", ...
    std::string vendor; // "nvidia" | "amd"
    std::string family;
    int warp_size = 32;
    int shared_memory_per_block = 0;
    int shared_memory_per_block_optin = 0;
    int registers_per_block = 0;
    int max_threads_per_block = 0;
    std::set<std::string> features;
    std::vector<Triple> wave_layouts;
    std::map<DataType, std::vector<Triple>> warp_tiles;
    std::map<DataType, std::string> mma;

    bool has_feature(const std::string& feature) const { return features.count(feature) != 0; }
};

struct ArchSpecs {
    std::map<std::string, ArchSpec> architectures;
    std::map<Pipeline, std::vector<std::string>> pipeline_features;
    std::string source; // file it came from

    // Throws gconv::Error listing the known architectures.
    const ArchSpec& get(const std::string& name) const;
    std::vector<std::string> names() const;
};

ArchSpecs load_arch_specs(const std::string& path);
// configs/arch_specs.json found through the data search path.
const ArchSpecs& default_arch_specs();

} // namespace gconv
