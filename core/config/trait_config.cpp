#include "config/trait_config.h"

#include "config/config_filter.h"

#include "util/data_paths.h"
#include "util/error.h"
#include "util/json_file.h"

#include <algorithm>
#include <map>
#include <set>

namespace gconv {
namespace {

using nlohmann::json;

constexpr long long k_max_value = 65536;

const std::map<std::string, std::string>& synonyms() {
    static const std::map<std::string, std::string> s = {{"data_type", "dtype"},
                                                         {"wave_mode", "scheduler"}};
    return s;
}

// Composite keys: one value sets several fields.
const std::vector<std::string> k_composite = {"tile", "wave_layout", "warp_tile", "two_stage"};
const std::vector<std::string> k_tile_fields = {"tile_m", "tile_n", "tile_k"};
const std::vector<std::string> k_wave_fields = {"wave_m", "wave_n", "wave_k"};
const std::vector<std::string> k_warp_fields = {"warp_tile_m", "warp_tile_n", "warp_tile_k"};
const std::vector<std::string> k_derivable = {
    "vector_size_a", "vector_size_b",   "vector_size_c",      "warp_tile_m", "warp_tile_n",
    "warp_tile_k",   "num_wave_groups", "double_smem_buffer", "split_k_mode"};

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
}

std::string dump(const json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

class Parser {
public:
    explicit Parser(std::string source) : source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& why) const {
        throw Error(source_ + ": " + path + ": " + why);
    }

    FilterExpression parse_where(const json& value) const {
        if (!value.is_string())
            fail("where", "expected a filter expression string, got " + json_type_name(value));
        try {
            auto where = FilterExpression::parse(value.get<std::string>());
            where.bind(config_filter_schema());
            return where;
        } catch (const FilterError& e) {
            fail("where", e.what());
        }
    }

    TraitConfig parse(const json& doc, std::optional<Variant> expected) {
        if (!doc.is_object())
            fail("(top)", "expected an object with \"variant\" and \"trait_config\"");
        for (const auto& [key, value] : doc.items())
            if (key != "variant" && key != "trait_config" && key != "description" && key != "where")
                fail(key, "unknown key '" + key +
                              "' (allowed: variant, trait_config, description, where)");
        TraitConfig tc;
        tc.source = source_;
        if (!doc.contains("variant"))
            fail("variant", "missing (allowed: " + join(enum_names<Variant>()) + ")");
        const auto& v = doc.at("variant");
        if (!v.is_string()) fail("variant", "expected a string, got " + json_type_name(v));
        auto variant = enum_from_string<Variant>(v.get<std::string>());
        if (!variant)
            fail("variant", "unknown value '" + v.get<std::string>() +
                                "' (allowed: " + join(enum_names<Variant>()) + ")");
        tc.variant = *variant;
        if (expected && *expected != tc.variant)
            fail("variant", "the config is for " + std::string(to_string(tc.variant)) + " but " +
                                std::string(to_string(*expected)) + " was asked for");
        if (doc.contains("description")) {
            if (!doc.at("description").is_string()) fail("description", "expected a string");
            tc.description = doc.at("description").get<std::string>();
        }
        if (doc.contains("where")) tc.where = parse_where(doc.at("where"));
        json traits = doc.contains("trait_config") ? doc.at("trait_config") : json::object();
        if (!traits.is_object()) fail("trait_config", "expected an object keyed by field name");

        std::map<std::string, std::string> owner; // field -> key that sets it
        for (const auto& [raw_key, entry] : traits.items()) {
            const std::string key = canonical(raw_key);
            const std::string path = "trait_config." + raw_key;
            if (!entry.is_object() || !entry.contains("values"))
                fail(path, "expected {\"values\": [...]}, got " + dump(entry));
            for (const auto& [k, unused] : entry.items())
                if (k != "values" && k != "description")
                    fail(path + "." + k, "unknown key '" + k + "' (allowed: values, description)");
            const auto& values = entry.at("values");
            const std::string vpath = path + ".values";
            if (!values.is_array()) fail(vpath, "expected a list, got " + json_type_name(values));
            if (values.empty()) fail(vpath, "empty allow-list: give at least one value");
            Axis axis = parse_axis(key, raw_key, values, vpath);
            for (const auto& assignment : axis.values)
                for (const auto& [field, value] : assignment) {
                    auto [it, inserted] = owner.emplace(std::string(field->name), raw_key);
                    if (!inserted && it->second != raw_key)
                        fail(path, "sets " + std::string(field->name) + ", which '" + it->second +
                                       "' sets too");
                }
            tc.axes.push_back(std::move(axis));
        }
        add_defaults(tc, owner);
        return tc;
    }

private:
    std::string canonical(const std::string& key) const {
        auto it = synonyms().find(key);
        return it == synonyms().end() ? key : it->second;
    }

    Axis parse_axis(const std::string& key, const std::string& raw_key, const json& values,
                    const std::string& vpath) {
        Axis axis;
        axis.key = raw_key;
        std::set<std::string> seen_fields;
        for (std::size_t i = 0; i < values.size(); ++i) {
            const std::string p = json_path_index(vpath, i);
            Assignment a;
            if (key == "tile")
                a = tile_record(values[i], p);
            else if (key == "wave_layout")
                a = triple(values[i], p, k_wave_fields);
            else if (key == "warp_tile")
                a = triple(values[i], p, k_warp_fields);
            else if (key == "two_stage")
                a = two_stage(values[i], p);
            else
                a = {{field_for(key, raw_key), scalar(field_for(key, raw_key), values[i], p)}};
            std::set<std::string> fields;
            for (const auto& [f, v] : a) fields.insert(std::string(f->name));
            if (i > 0 && fields != seen_fields)
                fail(p, "every value must set the same fields as the first (" +
                            join(std::vector<std::string>(seen_fields.begin(), seen_fields.end())) +
                            ")");
            seen_fields = fields;
            axis.values.push_back(std::move(a));
        }
        return axis;
    }

    const ConfigField* field_for(const std::string& key, const std::string& raw_key) const {
        const ConfigField* f = find_config_field(key);
        if (!f || key == "variant")
            fail("trait_config." + raw_key,
                 "unknown key '" + raw_key + "' (allowed: " + join(trait_keys()) + ")");
        return f;
    }

    FieldValue scalar(const ConfigField* f, const json& v, const std::string& p) const {
        switch (f->kind) {
        case ConfigFieldKind::Integer:
            if (!v.is_number_integer())
                fail(p, "expected an integer, got " + json_type_name(v) + " " + dump(v));
            if (v.get<long long>() < 1 || v.get<long long>() > k_max_value)
                fail(p, "expected an integer from 1 to " + std::to_string(k_max_value) + ", got " +
                            dump(v));
            return v.get<long long>();
        case ConfigFieldKind::Boolean:
            if (!v.is_boolean())
                fail(p, "expected true or false, got " + json_type_name(v) + " " + dump(v));
            return v.get<bool>();
        case ConfigFieldKind::Text: {
            if (!v.is_string())
                fail(p, "expected a string, got " + json_type_name(v) + " " + dump(v) +
                            " (allowed: " + join(f->allowed) + ")");
            const auto text = v.get<std::string>();
            if (!f->allowed.empty() &&
                std::find(f->allowed.begin(), f->allowed.end(), text) == f->allowed.end())
                fail(p, "unknown value '" + text + "' for " + std::string(f->name) +
                            " (allowed: " + join(f->allowed) + ")");
            return text;
        }
        }
        fail(p, "unsupported field kind");
    }

    Assignment triple(const json& v, const std::string& p,
                      const std::vector<std::string>& fields) const {
        if (!v.is_array() || v.size() != 3)
            fail(p, "expected [" + fields[0] + ", " + fields[1] + ", " + fields[2] + "], got " +
                        dump(v));
        Assignment a;
        for (std::size_t i = 0; i < 3; ++i) {
            if (!v[i].is_number_integer() || v[i].get<long long>() < 1 ||
                v[i].get<long long>() > k_max_value)
                fail(json_path_index(p, i), "expected a positive integer, got " + dump(v[i]));
            a.emplace_back(find_config_field(fields[i]), v[i].get<long long>());
        }
        return a;
    }

    Assignment tile_record(const json& v, const std::string& p) const {
        if (v.is_array()) return triple(v, p, k_tile_fields);
        if (!v.is_object())
            fail(p, "expected a tile record {\"m\", \"n\", \"k\"[, \"wave\"][, \"warp_tile\"]} or "
                    "[m, n, k]");
        for (const auto& [k, unused] : v.items())
            if (k != "m" && k != "n" && k != "k" && k != "wave" && k != "warp_tile")
                fail(json_path_key(p, k),
                     "unknown key '" + k + "' (allowed: m, n, k, wave, warp_tile)");
        Assignment a;
        const char* dims[] = {"m", "n", "k"};
        for (int i = 0; i < 3; ++i) {
            if (!v.contains(dims[i])) fail(p, std::string("missing '") + dims[i] + "'");
            const auto& d = v.at(dims[i]);
            if (!d.is_number_integer() || d.get<long long>() < 1 ||
                d.get<long long>() > k_max_value)
                fail(json_path_key(p, dims[i]), "expected a positive integer, got " + dump(d));
            a.emplace_back(find_config_field(k_tile_fields[i]), d.get<long long>());
        }
        if (v.contains("wave"))
            for (auto& x : triple(v.at("wave"), json_path_key(p, "wave"), k_wave_fields))
                a.push_back(x);
        if (v.contains("warp_tile"))
            for (auto& x : triple(v.at("warp_tile"), json_path_key(p, "warp_tile"), k_warp_fields))
                a.push_back(x);
        return a;
    }

    Assignment two_stage(const json& v, const std::string& p) const {
        if (!v.is_boolean()) fail(p, "expected true or false, got " + dump(v));
        return {
            {find_config_field("split_k_mode"), std::string(v.get<bool>() ? "2stage" : "atomic")}};
    }

    void add_defaults(TraitConfig& tc, const std::map<std::string, std::string>& owner) const {
        auto given = [&](const std::string& field) { return owner.count(field) != 0; };
        auto add = [&](const std::string& key, std::vector<Assignment> values) {
            Axis axis;
            axis.key = key;
            axis.values = std::move(values);
            axis.is_default = true;
            tc.axes.push_back(std::move(axis));
        };
        auto one = [](const char* field, FieldValue value) {
            return std::vector<Assignment>{{{find_config_field(field), std::move(value)}}};
        };
        if (!given("dtype")) add("data_type", one("dtype", std::string("bf16")));
        if (!given("ndim_spatial")) add("ndim_spatial", one("ndim_spatial", 2LL));
        if (!given("pipeline")) add("pipeline", one("pipeline", std::string("compv3")));
        if (!given("scheduler")) add("scheduler", one("scheduler", std::string("intrawave")));
        if (!given("tile_m") && !given("tile_n") && !given("tile_k")) {
            std::vector<Assignment> tiles;
            for (const auto& t : default_tiles())
                tiles.push_back({{find_config_field("tile_m"), (long long)t[0]},
                                 {find_config_field("tile_n"), (long long)t[1]},
                                 {find_config_field("tile_k"), (long long)t[2]}});
            add("tile", std::move(tiles));
        } else {
            for (const auto& f : k_tile_fields)
                if (!given(f))
                    fail("trait_config", "gives some of tile_m/tile_n/tile_k but not " + f);
        }
        if (!given("wave_m") && !given("wave_n") && !given("wave_k")) {
            std::vector<Assignment> waves;
            for (const auto& w : std::vector<std::array<int, 3>>{{2, 2, 1}, {1, 4, 1}, {4, 1, 1}})
                waves.push_back({{find_config_field("wave_m"), (long long)w[0]},
                                 {find_config_field("wave_n"), (long long)w[1]},
                                 {find_config_field("wave_k"), (long long)w[2]}});
            add("wave_layout", std::move(waves));
        }
        for (const auto& f : k_derivable)
            if (!given(f)) tc.derived.push_back(f);
    }

    static std::vector<std::array<int, 3>> default_tiles() {
        // CK's common grouped-conv block tiles.
        return {{16, 64, 64},   {32, 64, 64},   {64, 64, 64}, {64, 128, 64},  {128, 64, 64},
                {128, 128, 64}, {128, 64, 128}, {64, 64, 32}, {128, 128, 32}, {64, 32, 64}};
    }

    std::string source_;
};

} // namespace

std::size_t TraitConfig::candidate_count() const {
    std::size_t n = 1;
    for (const auto& a : axes) n *= a.values.size();
    return n;
}

void derive_defaults(KernelConfig& c, const std::vector<std::string>& derived) {
    auto has = [&](const char* f) {
        return std::find(derived.begin(), derived.end(), f) != derived.end();
    };
    const int width = 16 / element_bytes(c.dtype);
    if (has("vector_size_a")) c.vector_size_a = width;
    if (has("vector_size_b")) c.vector_size_b = width;
    if (has("vector_size_c")) c.vector_size_c = width;
    // A direct kernel moves one channel vector for every tensor: b and c follow a.
    if (c.pipeline == Pipeline::Direct) {
        if (has("vector_size_b")) c.vector_size_b = c.vector_size_a;
        if (has("vector_size_c")) c.vector_size_c = c.vector_size_a;
    }
    if (has("warp_tile_m")) c.warp_tile_m = 32;
    if (has("warp_tile_n")) c.warp_tile_n = 32;
    if (has("warp_tile_k")) c.warp_tile_k = c.dtype == DataType::FP32 ? 4 : 16;
    // A direct_mma warp tile is one unit of the group width the kernel is built for (tile_k).
    if (c.pipeline == Pipeline::DirectMma && has("warp_tile_n"))
        c.warp_tile_n = std::max(8, c.tile_k);
    if (has("num_wave_groups")) c.num_wave_groups = c.pipeline == Pipeline::CompV5 ? 2 : 1;
    if (has("double_smem_buffer"))
        c.double_smem_buffer = c.pipeline == Pipeline::CompV4 || c.pipeline == Pipeline::CompV5;
    // A direct_wgmma warp tile is a warp's share of the m64nNk16 over its row tile; its bands
    // come in two.
    if (c.pipeline == Pipeline::DirectWgmma) {
        if (has("warp_tile_m")) c.warp_tile_m = 16;
        if (has("warp_tile_n")) c.warp_tile_n = c.tile_m;
        if (has("double_smem_buffer")) c.double_smem_buffer = true;
    }
    if (has("split_k_mode")) c.split_k_mode = c.split_k > 1 ? SplitKMode::Atomic : SplitKMode::None;
}

TraitConfig parse_trait_config(const std::string& json_text, const std::string& source,
                               std::optional<Variant> expected_variant) {
    return Parser(source).parse(parse_json_text(json_text, source), expected_variant);
}

TraitConfig load_trait_config(const std::string& path, std::optional<Variant> expected_variant) {
    return parse_trait_config(read_text_file(path), path, expected_variant);
}

std::string default_config_path(Variant variant) {
    switch (variant) {
    case Variant::Forward:
        return find_data_file("configs/forward_bf16.json");
    case Variant::BwdData:
        return find_data_file("configs/bwd_data.json");
    case Variant::BwdWeight:
        return find_data_file("configs/bwd_weight.json");
    }
    throw Error("unknown variant");
}

std::vector<std::string> trait_keys() {
    std::vector<std::string> keys;
    for (const auto& f : config_fields())
        if (f.name != "variant") keys.emplace_back(f.name);
    for (const auto& k : k_composite) keys.push_back(k);
    for (const auto& [syn, canon] : synonyms()) keys.push_back(syn + " (= " + canon + ")");
    return keys;
}

} // namespace gconv
