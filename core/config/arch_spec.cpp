#include "config/arch_spec.h"

#include "util/data_paths.h"
#include "util/error.h"
#include "util/json_file.h"

namespace gconv {
namespace {

using nlohmann::json;

struct Reader {
    const std::string& file;

    [[noreturn]] void fail(const std::string& path, const std::string& why) const {
        throw Error(file + ": " + path + ": " + why);
    }
    const json& member(const json& obj, const std::string& path, const char* key) const {
        if (!obj.contains(key)) fail(path, std::string("missing key '") + key + "'");
        return obj.at(key);
    }
    int integer(const json& obj, const std::string& path, const char* key) const {
        const auto& v = member(obj, path, key);
        if (!v.is_number_integer() || v.get<long long>() < 0)
            fail(json_path_key(path, key),
                 "expected a non-negative integer, got " + json_type_name(v));
        return v.get<int>();
    }
    std::string text(const json& obj, const std::string& path, const char* key) const {
        const auto& v = member(obj, path, key);
        if (!v.is_string())
            fail(json_path_key(path, key), "expected a string, got " + json_type_name(v));
        return v.get<std::string>();
    }
    std::vector<Triple> triples(const json& v, const std::string& path) const {
        if (!v.is_array()) fail(path, "expected a list of [a, b, c] triples");
        std::vector<Triple> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const auto& t = v[i];
            if (!t.is_array() || t.size() != 3 || !t[0].is_number_integer() ||
                !t[1].is_number_integer() || !t[2].is_number_integer())
                fail(json_path_index(path, i), "expected [a, b, c] of integers");
            out.push_back({t[0].get<int>(), t[1].get<int>(), t[2].get<int>()});
        }
        return out;
    }
    DataType dtype(const std::string& key, const std::string& path) const {
        auto d = enum_from_string<DataType>(key);
        if (!d) fail(path, "unknown data type '" + key + "'");
        return *d;
    }
};

} // namespace

const ArchSpec& ArchSpecs::get(const std::string& name) const {
    auto it = architectures.find(name);
    if (it != architectures.end()) return it->second;
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown architecture '" + name + "' (known: " + known + "; from " + source + ")");
}

std::vector<std::string> ArchSpecs::names() const {
    std::vector<std::string> out;
    for (const auto& [name, spec] : architectures) out.push_back(name);
    return out;
}

ArchSpecs load_arch_specs(const std::string& path) {
    const json doc = read_json_file(path);
    Reader r{path};
    ArchSpecs specs;
    specs.source = path;
    if (!doc.is_object()) r.fail("(top)", "expected an object");
    const auto& archs = r.member(doc, "(top)", "architectures");
    if (!archs.is_object())
        r.fail("architectures", "expected an object keyed by architecture name");
    for (const auto& [name, a] : archs.items()) {
        const std::string p = json_path_key("architectures", name);
        if (!a.is_object()) r.fail(p, "expected an object");
        ArchSpec s;
        s.name = name;
        s.vendor = r.text(a, p, "vendor");
        if (s.vendor != "nvidia" && s.vendor != "amd")
            r.fail(json_path_key(p, "vendor"), "expected nvidia or amd");
        s.family = a.value("family", "");
        s.warp_size = r.integer(a, p, "warp_size");
        s.shared_memory_per_block = r.integer(a, p, "shared_memory_per_block");
        s.shared_memory_per_block_optin = r.integer(a, p, "shared_memory_per_block_optin");
        s.registers_per_block = r.integer(a, p, "registers_per_block");
        s.max_threads_per_block = r.integer(a, p, "max_threads_per_block");
        for (const auto& f : r.member(a, p, "features")) s.features.insert(f.get<std::string>());
        s.wave_layouts =
            r.triples(r.member(a, p, "wave_layouts"), json_path_key(p, "wave_layouts"));
        const auto& wt = r.member(a, p, "warp_tiles");
        for (const auto& [dt, list] : wt.items()) {
            const std::string wp = json_path_key(json_path_key(p, "warp_tiles"), dt);
            s.warp_tiles[r.dtype(dt, wp)] = r.triples(list, wp);
        }
        if (a.contains("mma"))
            for (const auto& [dt, text] : a.at("mma").items())
                s.mma[r.dtype(dt, p + ".mma")] = text.get<std::string>();
        specs.architectures.emplace(name, std::move(s));
    }
    if (doc.contains("pipeline_features")) {
        for (const auto& [name, list] : doc.at("pipeline_features").items()) {
            auto pipeline = enum_from_string<Pipeline>(name);
            if (!pipeline) r.fail("pipeline_features." + name, "unknown pipeline");
            for (const auto& f : list)
                specs.pipeline_features[*pipeline].push_back(f.get<std::string>());
        }
    }
    return specs;
}

const ArchSpecs& default_arch_specs() {
    static const ArchSpecs specs = load_arch_specs(find_data_file("configs/arch_specs.json"));
    return specs;
}

} // namespace gconv
