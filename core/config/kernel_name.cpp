#include "config/kernel_name.h"

#include "util/error.h"

#include <algorithm>
#include <charconv>
#include <vector>

namespace gconv {
namespace {

constexpr std::string_view k_prefix = "grouped_conv_";

std::string triple(int a, int b, int c) {
    return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c);
}

std::string pad_letters(const KernelConfig& c) {
    std::string s;
    if (!c.pad_m) s += 'm';
    if (!c.pad_n) s += 'n';
    if (!c.pad_k) s += 'k';
    return s;
}

[[noreturn]] void fail(std::string_view name, const std::string& why) {
    throw Error("kernel name '" + std::string(name) + "': " + why);
}

// Consumes one of an enum's names followed by '_' or the end; longest names first, since
// some names are prefixes of others' underscore-joined forms.
template <typename E> E take_enum(std::string_view& rest, std::string_view name, const char* what) {
    auto names = enum_names<E>();
    std::sort(names.begin(), names.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
    for (const auto& n : names) {
        if (rest.substr(0, n.size()) == n && (rest.size() == n.size() || rest[n.size()] == '_')) {
            rest.remove_prefix(std::min(rest.size(), n.size() + 1));
            return *enum_from_string<E>(n);
        }
    }
    fail(name, std::string("expected a ") + what + " at '" + std::string(rest) + "'");
}

int to_int(std::string_view text, std::string_view name, std::string_view token) {
    int value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || value < 0)
        fail(name, "bad number in '" + std::string(token) + "'");
    return value;
}

void parse_triple(std::string_view text, int& a, int& b, int& c, std::string_view name,
                  std::string_view token) {
    auto x1 = text.find('x');
    auto x2 = x1 == std::string_view::npos ? x1 : text.find('x', x1 + 1);
    if (x2 == std::string_view::npos) fail(name, "expected AxBxC in '" + std::string(token) + "'");
    a = to_int(text.substr(0, x1), name, token);
    b = to_int(text.substr(x1 + 1, x2 - x1 - 1), name, token);
    c = to_int(text.substr(x2 + 1), name, token);
}

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> parts;
    while (!s.empty()) {
        auto pos = s.find('_');
        parts.push_back(s.substr(0, pos));
        if (pos == std::string_view::npos) break;
        s.remove_prefix(pos + 1);
    }
    return parts;
}

bool starts(std::string_view token, std::string_view prefix) {
    return token.substr(0, prefix.size()) == prefix;
}

} // namespace

std::string kernel_name(const KernelConfig& c) {
    std::string n(k_prefix);
    n += to_string(c.variant);
    n += '_';
    n += to_string(c.dtype);
    n += '_' + std::to_string(c.ndim_spatial) + "d";
    n += '_' + triple(c.tile_m, c.tile_n, c.tile_k);
    n += '_';
    n += to_string(c.pipeline);
    n += '_';
    n += to_string(c.scheduler);
    n += "_w" + triple(c.wave_m, c.wave_n, c.wave_k);
    n += "_wt" + triple(c.warp_tile_m, c.warp_tile_n, c.warp_tile_k);
    n += "_v" + triple(c.vector_size_a, c.vector_size_b, c.vector_size_c);
    const KernelConfig d;
    if (c.epilogue != d.epilogue) n += "_ep" + std::string(to_string(c.epilogue));
    if (c.block_per_cu != d.block_per_cu) n += "_bpc" + std::to_string(c.block_per_cu);
    if (c.cluster_n != d.cluster_n) n += "_cn" + std::to_string(c.cluster_n);
    if (c.cluster_k != d.cluster_k) n += "_ck" + std::to_string(c.cluster_k);
    if (c.num_wave_groups != d.num_wave_groups) n += "_wg" + std::to_string(c.num_wave_groups);
    if (auto p = pad_letters(c); !p.empty()) n += "_nopad" + p;
    if (c.layout != d.layout) n += "_l" + c.layout;
    if (c.split_k != d.split_k || c.split_k_mode != SplitKMode::None) {
        n += "_sk" + std::to_string(c.split_k);
        if (c.split_k_mode == SplitKMode::Atomic) n += "_atomic";
    }
    if (c.num_groups_to_merge != d.num_groups_to_merge)
        n += "_gm" + std::to_string(c.num_groups_to_merge);
    if (c.double_smem_buffer) n += "_dsb";
    if (c.split_image) n += "_si";
    if (c.runtime_filter) n += "_kx";
    if (c.channel_pad) n += "_cpad";
    if (c.pixels_on_n) n += "_pn";
    if (c.split_k_mode == SplitKMode::TwoStage) n += "_2stage";
    return n;
}

KernelConfig parse_kernel_name(std::string_view name) {
    if (!starts(name, k_prefix)) fail(name, "does not start with 'grouped_conv_'");
    std::string_view rest = name.substr(k_prefix.size());
    KernelConfig c;
    c.variant = take_enum<Variant>(rest, name, "variant");
    c.dtype = take_enum<DataType>(rest, name, "data type");
    auto parts = split(rest);
    std::size_t i = 0;
    auto next = [&](const char* what) -> std::string_view {
        if (i >= parts.size()) fail(name, std::string("ends before the ") + what);
        return parts[i++];
    };
    auto nd = next("spatial dimension");
    if (nd.size() < 2 || nd.back() != 'd')
        fail(name, "expected '2d' or '3d', got '" + std::string(nd) + "'");
    c.ndim_spatial = to_int(nd.substr(0, nd.size() - 1), name, nd);
    auto tile = next("block tile");
    parse_triple(tile, c.tile_m, c.tile_n, c.tile_k, name, tile);

    // Pipeline and scheduler names may contain '_': rejoin the rest and read them as enums.
    std::string tail;
    for (std::size_t j = i; j < parts.size(); ++j)
        tail += std::string(parts[j]) + (j + 1 < parts.size() ? "_" : "");
    std::string_view tail_view = tail;
    c.pipeline = take_enum<Pipeline>(tail_view, name, "pipeline");
    c.scheduler = take_enum<Scheduler>(tail_view, name, "scheduler");
    parts = split(tail_view);
    i = 0;

    bool seen_w = false, seen_wt = false, seen_v = false;
    for (; i < parts.size(); ++i) {
        auto t = parts[i];
        if (starts(t, "wt")) {
            parse_triple(t.substr(2), c.warp_tile_m, c.warp_tile_n, c.warp_tile_k, name, t);
            seen_wt = true;
        } else if (starts(t, "w") && !seen_w) {
            parse_triple(t.substr(1), c.wave_m, c.wave_n, c.wave_k, name, t);
            seen_w = true;
        } else if (starts(t, "v") && !seen_v) {
            parse_triple(t.substr(1), c.vector_size_a, c.vector_size_b, c.vector_size_c, name, t);
            seen_v = true;
        } else if (starts(t, "ep")) {
            auto e = enum_from_string<Epilogue>(t.substr(2));
            if (!e) fail(name, "unknown epilogue in '" + std::string(t) + "'");
            c.epilogue = *e;
        } else if (starts(t, "bpc")) {
            c.block_per_cu = to_int(t.substr(3), name, t);
        } else if (starts(t, "cn")) {
            c.cluster_n = to_int(t.substr(2), name, t);
        } else if (starts(t, "ck")) {
            c.cluster_k = to_int(t.substr(2), name, t);
        } else if (starts(t, "wg")) {
            c.num_wave_groups = to_int(t.substr(2), name, t);
        } else if (starts(t, "nopad")) {
            for (char ch : t.substr(5)) {
                if (ch == 'm')
                    c.pad_m = false;
                else if (ch == 'n')
                    c.pad_n = false;
                else if (ch == 'k')
                    c.pad_k = false;
                else
                    fail(name, "unknown pad dimension in '" + std::string(t) + "'");
            }
        } else if (starts(t, "sk")) {
            c.split_k = to_int(t.substr(2), name, t);
            c.split_k_mode = SplitKMode::Atomic;
            if (i + 1 < parts.size() && parts[i + 1] == "atomic")
                ++i;
            else
                c.split_k_mode = SplitKMode::None; // decided by _2stage below, else plain
        } else if (starts(t, "gm")) {
            c.num_groups_to_merge = to_int(t.substr(2), name, t);
        } else if (t == "dsb") {
            c.double_smem_buffer = true;
        } else if (t == "si") {
            c.split_image = true;
        } else if (t == "kx") {
            c.runtime_filter = true;
        } else if (t == "cpad") {
            c.channel_pad = true;
        } else if (t == "pn") {
            c.pixels_on_n = true;
        } else if (t == "2stage") {
            c.split_k_mode = SplitKMode::TwoStage;
        } else if (starts(t, "l") && t.size() > 1) {
            c.layout = std::string(t.substr(1));
        } else {
            fail(name, "unknown part '" + std::string(t) + "'");
        }
    }
    if (!seen_w || !seen_wt || !seen_v)
        fail(name, "is missing the wave layout (_w), warp tile (_wt) or vector sizes (_v)");
    if (kernel_name(c) != name)
        fail(name, "is not in canonical form (expected '" + kernel_name(c) + "')");
    return c;
}

} // namespace gconv
