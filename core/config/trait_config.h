#pragma once
// A trait config: CK's {"variant": ..., "trait_config": {"<field>": {"values": [...]}}} allow-list
// schema. Each key becomes one axis of the cartesian product; a value of an axis assigns one or
// more fields (a tile record sets tile_m/n/k and optionally its wave layout and warp tile).
//
// Keys (synonyms in parentheses): data_type (dtype), ndim_spatial, pipeline, scheduler
// (wave_mode), epilogue, layout, tile (records {"m","n","k"[,"wave"][,"warp_tile"]} or
// [m, n, k]) or tile_m/tile_n/tile_k, wave_layout ([m, n, k]) or wave_m/wave_n/wave_k,
// warp_tile ([m, n, k]) or warp_tile_m/n/k, vector_size_a/b/c, block_per_cu, cluster_n,
// cluster_k, pixels_on_n, num_wave_groups, num_groups_to_merge, double_smem_buffer, split_image,
// runtime_filter, channel_pad, pad_m/n/k, split_k, split_k_mode, two_stage (true = split_k_mode
// 2stage, false = atomic). Missing keys take the defaults of docs/trait-config.md (default_axes()
// below). Beside trait_config, "where" holds a filter expression that every configuration of the
// pool must pass.
#include "config/config_fields.h"
#include "config/kernel_config.h"
#include "filter/filter_expression.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gconv {

// One choice along an axis: the fields it sets.
using Assignment = std::vector<std::pair<const ConfigField*, FieldValue>>;

struct Axis {
    std::string key; // the trait_config key it came from ("tile", "pipeline", ...)
    std::vector<Assignment> values;
    bool is_default = false;
};

struct TraitConfig {
    Variant variant = Variant::Forward;
    std::string description;
    std::string source; // file path or "<text>"
    std::vector<Axis> axes;
    // Fields no axis sets whose value follows from the others (see derive_defaults()).
    std::vector<std::string> derived;
    // The top-level "where": a filter over the configurations (docs/filter-language.md, the
    // fields of --filter), bound to config_filter_schema(); empty keeps every configuration.
    // It lets one file hold a pool that is not a whole cartesian product.
    FilterExpression where;

    // Number of candidate configurations (product of the axes' sizes).
    std::size_t candidate_count() const;
};

// Throws gconv::Error "<source>: <json path>: <what is wrong> (allowed: ...)".
TraitConfig parse_trait_config(const std::string& json_text, const std::string& source,
                               std::optional<Variant> expected_variant = std::nullopt);
TraitConfig load_trait_config(const std::string& path,
                              std::optional<Variant> expected_variant = std::nullopt);

// Fills the fields listed in `derived`: vector widths = 16 bytes of the dtype, warp tile by
// dtype (32x32x16 for bf16/fp16, 32x32x4 for fp32), vector_size_b/c = vector_size_a for the
// direct pipeline, num_wave_groups = 2 for compv5 else 1,
// double_smem_buffer for the pipelines that ping-pong (compv4, compv5), split_k_mode
// atomic when split_k > 1.
void derive_defaults(KernelConfig& config, const std::vector<std::string>& derived);

// The shipped config for a variant: configs/<forward_bf16|bwd_data|bwd_weight>.json.
std::string default_config_path(Variant variant);

// Keys a trait_config may hold, canonical names first then synonyms.
std::vector<std::string> trait_keys();

} // namespace gconv
