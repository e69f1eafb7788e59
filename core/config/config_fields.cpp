#include "config/config_fields.h"

#include <algorithm>

namespace gconv {
namespace {

// Large enough for any real kernel, small enough that products of fields cannot overflow.
constexpr long long k_max_field_value = 65536;

template <typename E>
ConfigField enum_field(std::string_view name, std::string_view doc, E KernelConfig::*member) {
    return ConfigField{
        name,
        ConfigFieldKind::Text,
        doc,
        enum_names<E>(),
        [member](const KernelConfig& c) -> FieldValue { return std::string(to_string(c.*member)); },
        [member, name](KernelConfig& c, const FieldValue& v) -> std::string {
            const auto* text = std::get_if<std::string>(&v);
            if (!text) return std::string(name) + " takes a string";
            auto parsed = enum_from_string<E>(*text);
            if (!parsed) return "unknown value '" + *text + "'";
            c.*member = *parsed;
            return {};
        }};
}

ConfigField int_field(std::string_view name, std::string_view doc, int KernelConfig::*member) {
    return ConfigField{
        name,
        ConfigFieldKind::Integer,
        doc,
        {},
        [member](const KernelConfig& c) -> FieldValue { return (long long)(c.*member); },
        [member, name](KernelConfig& c, const FieldValue& v) -> std::string {
            const auto* n = std::get_if<long long>(&v);
            if (!n) return std::string(name) + " takes an integer";
            if (*n < 0 || *n > k_max_field_value)
                return "value " + std::to_string(*n) + " is out of range";
            c.*member = int(*n);
            return {};
        }};
}

ConfigField bool_field(std::string_view name, std::string_view doc, bool KernelConfig::*member) {
    return ConfigField{name,
                       ConfigFieldKind::Boolean,
                       doc,
                       {},
                       [member](const KernelConfig& c) -> FieldValue { return c.*member; },
                       [member, name](KernelConfig& c, const FieldValue& v) -> std::string {
                           const auto* b = std::get_if<bool>(&v);
                           if (!b) return std::string(name) + " takes true or false";
                           c.*member = *b;
                           return {};
                       }};
}

std::vector<ConfigField> make_fields() {
    std::vector<ConfigField> f;
    f.push_back(enum_field("variant", "direction: forward, bwd_data or bwd_weight",
                           &KernelConfig::variant));
    f.push_back(
        enum_field("dtype", "element type of input, weight and output", &KernelConfig::dtype));
    f.push_back(
        int_field("ndim_spatial", "2 for 2D, 3 for 3D convolution", &KernelConfig::ndim_spatial));
    f.push_back(ConfigField{"layout",
                            ConfigFieldKind::Text,
                            "tensor layout family (nhwgc = NHWGC/GKYXC/NHWGK)",
                            {"nhwgc"},
                            [](const KernelConfig& c) -> FieldValue { return c.layout; },
                            [](KernelConfig& c, const FieldValue& v) -> std::string {
                                const auto* t = std::get_if<std::string>(&v);
                                if (!t) return "layout takes a string";
                                if (*t != "nhwgc") return "unknown value '" + *t + "'";
                                c.layout = *t;
                                return {};
                            }});
    f.push_back(int_field("tile_m", "block tile along GEMM M", &KernelConfig::tile_m));
    f.push_back(int_field("tile_n", "block tile along GEMM N", &KernelConfig::tile_n));
    f.push_back(int_field("tile_k", "block tile along GEMM K", &KernelConfig::tile_k));
    f.push_back(int_field("wave_m", "warps per block along M", &KernelConfig::wave_m));
    f.push_back(int_field("wave_n", "warps per block along N", &KernelConfig::wave_n));
    f.push_back(int_field("wave_k", "warps per block along K", &KernelConfig::wave_k));
    f.push_back(int_field("warp_tile_m", "per-warp MMA tile along M", &KernelConfig::warp_tile_m));
    f.push_back(int_field("warp_tile_n", "per-warp MMA tile along N", &KernelConfig::warp_tile_n));
    f.push_back(int_field("warp_tile_k", "per-warp MMA tile along K", &KernelConfig::warp_tile_k));
    f.push_back(enum_field("pipeline", "how the main K loop moves data", &KernelConfig::pipeline));
    f.push_back(
        enum_field("scheduler", "how warps interleave loads and MMAs", &KernelConfig::scheduler));
    f.push_back(enum_field("epilogue", "how the C tile is stored", &KernelConfig::epilogue));
    f.push_back(int_field("vector_size_a", "global access width of A in elements",
                          &KernelConfig::vector_size_a));
    f.push_back(int_field("vector_size_b", "global access width of B in elements",
                          &KernelConfig::vector_size_b));
    f.push_back(int_field("vector_size_c", "global access width of C in elements",
                          &KernelConfig::vector_size_c));
    f.push_back(int_field("block_per_cu", "minimum resident blocks per SM/CU (launch bounds)",
                          &KernelConfig::block_per_cu));
    f.push_back(int_field("cluster_n",
                          "blocks of a cluster along N sharing each A tile by multicast (cn)",
                          &KernelConfig::cluster_n));
    f.push_back(int_field("cluster_k",
                          "blocks of a cluster along K summing their partial tiles in shared "
                          "memory (ck)",
                          &KernelConfig::cluster_k));
    f.push_back(bool_field("pixels_on_n",
                           "wgmma forward: output pixels on the instruction's N side (pn)",
                           &KernelConfig::pixels_on_n));
    f.push_back(int_field("num_wave_groups", "warp groups of a warp-specialised pipeline",
                          &KernelConfig::num_wave_groups));
    f.push_back(int_field("num_groups_to_merge", "conv groups computed by one block tile (gm)",
                          &KernelConfig::num_groups_to_merge));
    f.push_back(bool_field("double_smem_buffer", "two shared-memory buffers (dsb)",
                           &KernelConfig::double_smem_buffer));
    f.push_back(bool_field("split_image", "64-bit offsets over split output pieces (si)",
                           &KernelConfig::split_image));
    f.push_back(bool_field("runtime_filter",
                           "tensor-core direct entries read the filter size at run time (kx)",
                           &KernelConfig::runtime_filter));
    f.push_back(bool_field("channel_pad",
                           "forward GEMM on a channel-padded copy of input and filter (cpad)",
                           &KernelConfig::channel_pad));
    f.push_back(bool_field("pad_m", "tail handling along M", &KernelConfig::pad_m));
    f.push_back(bool_field("pad_n", "tail handling along N", &KernelConfig::pad_n));
    f.push_back(bool_field("pad_k", "tail handling along K", &KernelConfig::pad_k));
    f.push_back(int_field("split_k", "slices of GEMM K: bwd_weight N*Ho*Wo, forward Z*Y*X*C/G",
                          &KernelConfig::split_k));
    f.push_back(enum_field("split_k_mode",
                           "none, atomic (bwd_weight, forward) or 2stage (bwd_weight)",
                           &KernelConfig::split_k_mode));
    return f;
}

} // namespace

const std::vector<ConfigField>& config_fields() {
    static const std::vector<ConfigField> fields = make_fields();
    return fields;
}

const ConfigField* find_config_field(std::string_view name) {
    const auto& fields = config_fields();
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const ConfigField& f) { return f.name == name; });
    return it == fields.end() ? nullptr : &*it;
}

std::string field_value_to_string(const FieldValue& value) {
    if (const auto* n = std::get_if<long long>(&value)) return std::to_string(*n);
    if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    return std::get<std::string>(value);
}

} // namespace gconv
